"""Clank! Legacy: Acquisitions Incorporated rules engine, one game of a campaign.

Every rule of `docs/rules/clank-legacy.md` lives here, in `observation.py` (what a seat may
see) or in the shared core (`referee/games/clank_core`: deck, Clank! cubes, dragon bag, damage,
the shared effect primitives). The campaign state before the game comes in the config; the
game resolves its Prologue at setup and its Epilogue at the end (group votes: every seat votes
in seat order, the majority wins, a tie goes to the MVP's vote), and `campaign_after()` is the
campaign state after it. Decisions:

- ``turn``: the active player's main decision (play, acquire, fight, move, Hire a Coach, take a
  token, buy from a market, expend fruit, drink, court the Patron, end the turn);
- ``trash``, ``discard``, ``choose``: pending choices of card effects and Waypoint passages;
- ``vote``: a seat's vote in a group decision of the Prologue or the Epilogue.

Engine choices the rules leave open are in `RULES_NOTES.md` beside this file.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any, Self

from referee.core import effects
from referee.core.effects import Effect, effects_from_json, effects_to_json
from referee.core.game import Action, Decision, IllegalAction, InvalidConfig, json_digest
from referee.core.rng import RandomStreams
from referee.games.clank_core.game import MAIN, ClankGameBase
from referee.games.clank_core.rules import stream_deck
from referee.games.clank_core.scoring import places
from referee.games.clank_legacy.campaign import (
    PERMANENT_OPS,
    CampaignState,
    MissionReport,
    adventure_deck,
    apply_permanent,
    close_game,
    new_campaign,
    path_state,
    starting_deck,
)
from referee.games.clank_legacy.content import (
    CAMPAIGN_CONDITIONS,
    Board,
    CardDef,
    LegacyContent,
    default_content,
)
from referee.games.clank_legacy.state import (
    ESCAPED,
    KNOCKED_OUT,
    PHASE_EPILOGUE,
    PHASE_OVER,
    PHASE_PLAY,
    PHASE_PROLOGUE,
    PLAYING,
    LegacyPlayer,
    LegacyState,
    TurnLog,
    TurnPool,
)

__all__ = ["ClankLegacyGame", "describe_effects"]

ENGINE_VERSION = "clank_legacy-2"
#: engine safeguard (not a printed rule): from this round on, the dragon attacks at the end of
#: every turn, so a game whose players never take from the Adventure Row still ends.
ROUND_LIMIT = 40

VOTE = "vote"


def _describe_own(e: Effect) -> str:
    """The rules text of an op beside the structural ones (trash, discard_for, choose, if)."""
    if e.op in ("clank_all", "gold_all", "heal_all"):
        return f"every player on the clock {'+' if e.n >= 0 else ''}{e.n} {e.op[:-4]}"
    if e.op == "rage":
        return f"Rage +{e.n}"
    if e.op == "refresh_fruit":
        return "every expended mystic fruit turns unexpended"
    if e.op == "next_game":
        return f"next game: passage {e.n}"
    if e.op == "end_campaign":
        return "the campaign ends"
    if e.arg:
        return f"{e.op.replace('_', ' ')} {e.arg}" + (f" x{e.n}" if e.n > 1 else "")
    return f"{'+' if e.n >= 0 else ''}{e.n} {e.op.replace('_', ' ')}"


#: a short rules text for one effect, and for a list of effects ("nothing" for none)
describe_effect = partial(effects.describe_effect, own=_describe_own)
describe_effects = partial(effects.describe_effects, own=_describe_own)


_ADJACENCY: dict[
    tuple[int, frozenset[int]], tuple[Board, dict[str, tuple[int, ...]], dict[str, tuple[int, ...]]]
] = {}


def _adjacency(
    board: Board, open_paths: frozenset[int]
) -> tuple[dict[str, tuple[int, ...]], dict[str, tuple[int, ...]]]:
    """(exits, touching): space -> the open paths one may walk out of it (one-way paths only
    from `a`), and space -> the open paths touching it either way (teleport ignores arrows).
    Memoised per board object and set of open paths."""
    key = (id(board), open_paths)
    hit = _ADJACENCY.get(key)
    if hit is not None and hit[0] is board:
        return hit[1], hit[2]
    exits: dict[str, list[int]] = {sid: [] for sid in board.spaces}
    touching: dict[str, list[int]] = {sid: [] for sid in board.spaces}
    for i in sorted(open_paths):
        p = board.paths[i]
        exits[p.a].append(i)
        touching[p.a].append(i)
        touching[p.b].append(i)
        if not p.one_way:
            exits[p.b].append(i)
    out = ({k: tuple(v) for k, v in exits.items()}, {k: tuple(v) for k, v in touching.items()})
    _ADJACENCY[key] = (board, *out)
    return out


#: built actions by content version, then by what their text depends on (see _main_actions)
_ACTION_CACHE: dict[str, dict[tuple[Any, ...], Action]] = {}
_END_TURN = Action("end_turn", (), "end the turn")


def _other_end(board: Board, path: int, space: str) -> str:
    p = board.paths[path]
    return p.b if p.a == space else p.a


class ClankLegacyGame(ClankGameBase[Board, CardDef]):
    """One game of a Clank! Legacy campaign."""

    name = "clank_legacy"
    engine_version = ENGINE_VERSION
    #: a seat that does not answer ends its turn, trashes / discards nothing, votes the first option
    passive_kinds = ("end_turn", "skip")

    __slots__ = ("_decision", "content", "s")

    s: LegacyState
    content: LegacyContent
    state_type = LegacyState

    def __init__(self, state: LegacyState, content: LegacyContent) -> None:
        super().__init__(state, content)

    # --- construction -------------------------------------------------------------------

    @classmethod
    def default_config(cls, players: int) -> dict[str, Any]:
        return {"players": players, "campaign": new_campaign(players).to_json()}

    @classmethod
    def game_content(cls) -> LegacyContent:
        """The content this version's games are set up from (the bundled content)."""
        return default_content()

    @classmethod
    def new_game(cls, config: Mapping[str, Any], seed: int) -> Self:
        content = cls.game_content()
        players = config.get("players")
        lo, hi = content.rules["players"]
        if isinstance(players, bool) or not isinstance(players, int) or not lo <= players <= hi:
            raise InvalidConfig(f"config.players: Clank! Legacy is for {lo} to {hi} players")
        unknown = set(config) - {"players", "campaign"}
        if unknown:
            raise InvalidConfig(f"config: unknown fields {sorted(unknown)}")
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise InvalidConfig("seed: must be a non-negative integer")
        raw = config.get("campaign")
        try:
            campaign = new_campaign(players) if raw is None else CampaignState.from_json(raw, content)
        except ValueError as exc:
            raise InvalidConfig(f"config.campaign: {exc}") from None
        if campaign.players != players:
            raise InvalidConfig(f"config.campaign: a campaign of {campaign.players} players, not {players}")
        if campaign.over:
            raise InvalidConfig("config.campaign: the campaign is over")
        prologue = content.passages[campaign.next_prologue]
        state = LegacyState(
            seed=seed,
            players_n=players,
            content_version=content.version,
            campaign=campaign.to_json(),
            campaign_now=campaign.to_json(),
            prologue=prologue.id,
            epilogue=prologue.epilogue,
            players=[LegacyPlayer(deck=[]) for _ in range(players)],
        )
        game = cls(state, content)
        state.passage = {"id": prologue.id, "queue": effects_to_json(prologue.effects)}
        game._run_passage()
        return game

    def _setup(self) -> None:
        """Setup after the Prologue chose the side (checklist "Setup")."""
        s, content = self.s, self.content
        rules = content.rules
        if not s.board:
            raise InvalidConfig(f"passage {s.prologue}: the prologue chose no board side")
        board = content.boards[s.board]
        campaign = self.campaign_now()
        revealed, blocked = path_state(campaign, s.board)
        s.open_paths = sorted(board.open_paths(revealed, blocked))
        rng = RandomStreams(s.seed, s.rng)
        n = s.players_n

        # Bank: minor secrets face down; major secrets one per space, the extras to the Bank.
        minors = [x.id for x in content.secrets.values() if x.size == "minor" for _ in range(x.count)]
        majors = [x.id for x in content.secrets.values() if x.size == "major" for _ in range(x.count)]
        rng.shuffle("secrets", minors)
        rng.shuffle("secrets", majors)
        for space in board.spaces.values():
            if space.major_secret and majors:
                s.major_secrets[space.id] = [majors.pop()]
            if space.artifact:
                s.artifacts[space.id] = space.artifact
        s.bank_minor, s.bank_major = minors, majors
        fruit_spaces = [sp.id for sp in board.spaces.values() if sp.mystic_fruit]
        s.fruit_spaces = fruit_spaces[: content.tokens.fruit_count]
        s.fruit_supply = content.tokens.fruit_count - len(s.fruit_spaces)
        s.market = {item.id: item.count for item in content.market.values()}
        s.mugs = content.tokens.mug_per_player * n
        s.reserve = dict(content.reserve)
        s.bag_black = rules["black_cubes"]
        s.bag_cubes = [0] * n
        s.clank_area = [0] * n
        s.rage = rules["rage_start"][str(n)]

        # Adventure deck: deal 6, setting aside Events and Dragon Attack cards, replacing them,
        # then shuffle the set-aside cards back.
        deck = adventure_deck(campaign, content)
        rng.shuffle("adventure", deck)
        set_aside: list[str] = []
        row: list[str] = []
        while len(row) < rules["row_size"] and deck:
            card = deck.pop()
            c = content.cards[card]
            (set_aside if c.kind == "event" or c.dragon_attack else row).append(card)
        deck.extend(set_aside)
        rng.shuffle("adventure", deck)
        s.adventure_deck = deck
        s.row = list(row) + [None] * (rules["row_size"] - len(row))

        s.first = self._first_player(rng, n)
        # Employees: starting deck (with promotions), figure on HQ, 3/2/1/0 Clank! in turn order
        # from the first player, draw 5.
        for seat, p in enumerate(s.players):
            p.deck = starting_deck(campaign, seat, content)
            rng.shuffle(stream_deck(seat), p.deck)
            p.space = board.hq
            p.visited = [board.hq]
            p.supply = rules["cubes"]
            start = rules["starting_clank"][(seat - s.first) % n]
            p.supply -= start
            s.clank_area[seat] += start
        for seat in range(n):
            self._draw(seat, rules["hand_size"])
        # Franchise abilities gained so far that act at setup.
        for ability in campaign.abilities:
            a = content.franchise.abilities[ability]
            if a.timing == "setup":
                for seat in range(n):
                    self._resolve(seat, a.effects)
        s.pool = TurnPool()
        s.stack.clear()
        s.phase = PHASE_PLAY
        s.current = s.first
        self._begin_turn()

    def _first_player(self, rng: RandomStreams, n: int) -> int:
        """A random first player (seed: "Randomly choose a first player"): a campaign keeps its
        seats from game to game, so seat order cannot stand in for the draw as in Clank!."""
        return rng.below("first_player", n)

    # --- the contract --------------------------------------------------------------------

    # num_seats, content_version, is_over, copy, to_json, from_json, digest, board (the board
    # side in play, after the Prologue), card: ClankGameBase

    def campaign_before(self) -> CampaignState:
        """The campaign state this game started from."""
        return CampaignState.from_json(self.s.campaign, self.content)

    def campaign_now(self) -> CampaignState:
        """The campaign state with this game's permanent changes so far."""
        return CampaignState.from_json(self.s.campaign_now, self.content)

    def campaign_after(self) -> CampaignState:
        """The campaign state after this game (Epilogue, Mission Report and Employee Reviews
        done): a pure function of the state before, the seed and the actions."""
        if not self.s.over:
            raise IllegalAction("the game is not over")
        return self.campaign_now()

    # forfeit: ClankGameBase (an employee still on the clock is knocked out where it stands and
    # scores 0, and votes no more; a seat forfeited during the Prologue or the Epilogue keeps what
    # it earned, the referee answers its votes)

    def _in_play(self) -> bool:
        return self.s.phase == PHASE_PLAY

    def hidden_variant(self, seat: int, seed: int) -> Self:
        from referee.games.clank_legacy.observation import hidden_variant

        variant: Self = hidden_variant(self, seat, seed)  # type: ignore[assignment]
        return variant

    def observe(self, seat: int) -> dict[str, Any]:
        from referee.games.clank_legacy.observation import observe

        return observe(self, seat)

    def observe_all(self) -> dict[str, Any]:
        from referee.games.clank_legacy.observation import observe_all

        return observe_all(self)

    def summarize(self, observation: dict[str, Any]) -> list[str]:
        from referee.games.clank_legacy.observation import summarize

        return summarize(self, observation)

    # result, outcome (knocked out: "knocked_out" scoring, "lost" scoring 0), score: ClankGameBase

    def _result_details(self) -> dict[str, Any]:
        s = self.s
        return {
            **super()._result_details(),
            "end": s.end_reason,
            "mvp": s.mvp,
            "prologue": s.prologue,
            "epilogue": s.epilogue,
            "choices": list(s.choices),
            "campaign_before": self._campaign_digest(s.campaign),
            "campaign_after": self._campaign_digest(s.campaign_now),
        }

    def _keeps_points(self, p: LegacyPlayer) -> bool:
        """A knocked-out employee scores only with an artifact and outside the Danger Zone."""
        return bool(p.artifacts) and not self.board.spaces[p.space].danger_zone

    def _own_points(self, p: LegacyPlayer) -> int:
        """Market items and the Mug."""
        content = self.content
        return sum(content.market[i].points for i in p.items) + (content.tokens.mug_points if p.mug else 0)

    # --- decisions -----------------------------------------------------------------------

    def _stack_decision(self, top: dict[str, Any]) -> Decision:
        if top["kind"] == VOTE:
            actions = tuple(
                Action("vote", (i,), "vote for " + self._describe(o)) for i, o in enumerate(top["options"])
            )
            return Decision(self.s.step, top["seat"], VOTE, top["prompt"], actions)
        return super()._stack_decision(top)

    def _main_actions(self) -> list[Action]:
        s, seat = self.s, self.s.current
        p = s.players[seat]
        pool = s.pool
        content = self.content
        cards = content.cards
        rules = content.rules
        # an action's text depends only on the content (and the key): built once per content
        cache = _ACTION_CACHE.setdefault(content.version, {})
        out: list[Action] = []
        self._card_actions(cache, s.reserve, out)
        cultist = cards[content.cultist]
        if pool.swords >= cultist.cost:
            out.append(Action("fight_cultist", (), f"fight {cultist.name} ({cultist.cost} swords)"))
        if not s.turn.patron_used:
            for patron_id in s.patrons:
                patron = content.patrons[patron_id]
                if pool.skill >= patron.cost:
                    out.append(Action("patron", (patron_id,), f"court {patron.name} ({patron.cost} skill)"))
        if p.status == PLAYING:
            self._movement_actions(p, cache, out)
            for token in self._takeable_tokens(p):
                out.append(Action("take", (token,), f"take the {token.replace('_', ' ')} here"))
            if p.gold >= rules["market_price"] and self.board.spaces[p.space].town:
                for item, left in s.market.items():
                    if left > 0 and item not in p.items:
                        name = content.market[item].name
                        out.append(Action("buy_item", (item,), f"buy {name} ({rules['market_price']} gold)"))
        if p.fruit > 0:
            out.append(Action("expend_fruit", (), f"expend a {content.tokens.fruit_name}"))
        for potion in sorted(set(p.potions)):
            out.append(Action("drink", (potion,), f"drink {content.secrets[potion].name}"))
        if len(p.hand) == len(p.new_hand):  # every card played (new ones cannot be)
            out.append(_END_TURN)
        return out

    def _movement_actions(
        self, p: LegacyPlayer, cache: dict[tuple[Any, ...], Action], out: list[Action]
    ) -> None:
        """Append the moves (walk, Hire a Coach, teleport) open to `p` now."""
        s, board = self.s, self.board
        pool = s.pool
        here = p.space
        opened = frozenset(s.open_paths)
        exits, touching = _adjacency(board, opened)
        if not pool.exhausted:
            has_canoe = "canoe" in p.items
            for i in exits[here]:
                path = board.paths[i]
                if pool.boots < path.boots or (path.canoe and not has_canoe):
                    continue
                for spend in range(min(path.monsters, pool.swords) + 1):
                    key: tuple[Any, ...] = ("move", board.id, here, i, spend)
                    a = cache.get(key)
                    if a is None:
                        dest = _other_end(board, i, here)
                        text = f"move to {board.spaces[dest].name} [{dest}]"
                        if path.monsters:
                            text += f" taking {path.monsters - spend} damage"
                            if spend:
                                text += f", spending {spend} swords"
                        a = cache[key] = Action("move", (i, spend), text)
                    out.append(a)
            value = board.spaces[here].coach
            if value and pool.boots >= self.content.rules["coach_boots"]:
                for sp in board.spaces.values():
                    price = value + sp.coach
                    if sp.coach and sp.id != here and p.gold >= price:
                        text = f"hire a coach to {sp.name} [{sp.id}] ({price} gold)"
                        out.append(Action("coach", (sp.id,), text))
        if pool.teleports > 0:
            for i in touching[here]:
                dest = _other_end(board, i, here)
                out.append(Action("teleport", (i,), f"teleport to {board.spaces[dest].name} [{dest}]"))

    def _takeable_tokens(self, p: LegacyPlayer) -> list[str]:
        s, space = self.s, p.space
        tokens = []
        carry = self.content.rules["artifacts_carried"] + sum(self.content.market[i].carry for i in p.items)
        # seed: "If you're on a space with an Artifact token, you can pick it up" (any time on
        # it); major secrets and fruit are rewards "when you enter", so one take per entry
        if space in s.artifacts and len(p.artifacts) < carry:
            tokens.append("artifact")
        if not p.may_take:
            return tokens
        if s.major_secrets.get(space):
            tokens.append("major_secret")
        if space in s.fruit_spaces:
            tokens.append("mystic_fruit")
        return tokens

    # --- applying --------------------------------------------------------------------------

    def _apply(self, decision: Decision, action: Action) -> None:
        s = self.s
        s.step += 1
        if decision.kind == VOTE:
            self._apply_vote(action)
            return
        if decision.kind == MAIN:
            ended = self._apply_main(action)
        else:
            self._apply_pending(action)
            ended = False
        if ended or s.phase != PHASE_PLAY:
            return
        p = s.players[s.current]
        if p.status == KNOCKED_OUT:
            s.stack.clear()
            self._end_turn()
            return
        if not s.stack:
            self._settle_deferred()

    def _apply_main(self, action: Action) -> bool:
        """Apply a main action; True when the turn has ended."""
        s = self.s
        seat = s.current
        p = s.players[seat]
        pool = s.pool
        rules = self.content.rules
        kind, args = action.kind, action.args
        if self._apply_card_action(seat, action):
            pass  # play, acquire, buy_reserve, fight, drink: the shared rules (ClankCore)
        elif kind == "fight_cultist":
            self._fight_guardian(seat, self.content.cultist)
        elif kind == "patron":
            patron = self.content.patrons[str(args[0])]
            pool.skill -= patron.cost
            s.turn.patron_used = True
            self._resolve(seat, patron.favor)
        elif kind == "move":
            i, spend = int(args[0]), int(args[1])
            path = self.board.paths[i]
            pool.boots -= path.boots
            pool.swords -= spend
            dest = _other_end(self.board, i, p.space)
            hurt = (path.monsters - spend) * rules["monster_icon_damage"]
            if hurt > 0:
                self._damage(seat, hurt)
                if p.status != PLAYING:  # knocked out on the path: stays where it was
                    self._end_turn()
                    return True
            self._enter(seat, dest)
        elif kind == "coach":
            dest = str(args[0])
            spaces = self.board.spaces
            pool.boots -= rules["coach_boots"]
            p.gold -= spaces[p.space].coach + spaces[dest].coach
            self._enter(seat, dest)
        elif kind == "teleport":
            pool.teleports -= 1
            self._enter(seat, _other_end(self.board, int(args[0]), p.space))
        elif kind == "take":
            self._take(seat, str(args[0]))
        elif kind == "buy_item":
            item = self.content.market[str(args[0])]
            p.gold -= rules["market_price"]
            s.market[item.id] -= 1
            p.items.append(item.id)
            self._resolve(seat, item.effects)
        elif kind == "expend_fruit":
            p.fruit -= 1
            p.fruit_expended += 1
            self._resolve(seat, self.content.tokens.fruit_expend)
        elif kind == "end_turn":
            self._end_turn()
            return True
        else:  # pragma: no cover - legal actions are generated above
            raise IllegalAction(kind)
        return False

    # --- the core's hooks ----------------------------------------------------------------

    def _acquired(self, seat: int, card_id: str) -> None:
        self.s.turn.acquired += 1  # Contracts count cards acquired this turn
        super()._acquired(seat, card_id)

    def _row_discard(self) -> list[str]:
        return self.s.adventure_discard

    def _count_defeat(self) -> None:
        self.s.turn.defeated += 1

    def _describe(self, effects_json: list[dict[str, Any]]) -> str:
        return describe_effects(effects_from_json(effects_json))

    def _knock_out(self, seat: int) -> None:
        self.s.players[seat].status = KNOCKED_OUT

    def _resolve_op(self, seat: int, e: Effect, source: str, pushes: list[dict[str, Any]]) -> None:
        s = self.s
        p = s.players[seat]
        op = e.op
        if op == "minor_secret":
            for _ in range(e.n):
                if s.bank_minor:
                    self._gain_secret(seat, s.bank_minor.pop())
        elif op == "major_secret":
            for _ in range(e.n):
                if s.bank_major:
                    self._gain_secret(seat, s.bank_major.pop())
        elif op == "mystic_fruit":
            taken = min(e.n, s.fruit_supply)
            s.fruit_supply -= taken
            p.fruit += taken
        elif op == "gold_all":
            for other in s.players:
                if other.status == PLAYING:
                    other.gold += e.n
        elif op == "heal_all":
            for i, other in enumerate(s.players):
                if other.status == PLAYING:
                    self._heal(i, e.n)
        elif op == "refresh_fruit":
            for other in s.players:
                other.fruit += other.fruit_expended
                other.fruit_expended = 0
        elif op == "grant_contract":
            if e.arg not in s.contracts and e.arg not in s.claimed:
                s.contracts.append(e.arg)
        elif op == "grant_patron":
            if e.arg not in s.patrons:
                s.patrons.append(e.arg)
        elif op == "board_side":
            s.board = e.arg
        elif op in PERMANENT_OPS:
            self._permanent(e)
            if op == "reveal_path" and s.phase == PHASE_PLAY:
                side, _, pid = e.arg.partition(":")
                if side == s.board:
                    i = self.board.path_index[pid]
                    if i not in s.open_paths:
                        s.open_paths = sorted([*s.open_paths, i])
        else:
            raise ValueError(f"unknown effect op {op!r}")

    def _permanent(self, e: Effect) -> None:
        """A permanent campaign op: the campaign state as this game changes it."""
        now = apply_permanent(self.campaign_now(), e, self.content, self.s.prologue)
        self.s.campaign_now = now.to_json()

    def _game_condition(self, seat: int, e: Effect, source: str) -> bool:
        if e.cond == "has_fruit":
            # a fruit is had expended or not: expending it then cannot undo a card's condition,
            # so the card gives the same whether it is played before or after ("regardless of
            # play order"); every card condition only grows within a turn
            p = self.s.players[seat]
            return p.fruit + p.fruit_expended > 0
        if e.cond in CAMPAIGN_CONDITIONS:
            held = e.arg in self.s.campaign_now["facts"]
            return held == (e.cond == "has_fact")
        raise ValueError(f"unknown condition {e.cond!r}")

    def _resolve_if(self, seat: int, e: Effect, source: str) -> None:
        """Card conditions are judged at the end of the turn's play: one that does not hold yet
        waits, judged again after every action (a later pick-up or a later tagged card counts)
        and for the last time when the turn ends. Campaign conditions are judged at once."""
        if self._condition(seat, e, source):
            self._resolve(seat, e.then, source)
        elif e.cond not in CAMPAIGN_CONDITIONS and self.s.phase == PHASE_PLAY:
            self.s.turn.deferred.append({"seat": seat, "source": source, "effect": effects_to_json([e])})

    def _settle_deferred(self) -> None:
        """Resolve every waiting card condition that now holds."""
        s = self.s
        changed = True
        while changed and s.turn.deferred and not s.stack:
            changed = False
            for i, wait in enumerate(s.turn.deferred):
                e = effects_from_json(wait["effect"])[0]
                if self._condition(wait["seat"], e, wait["source"]):
                    del s.turn.deferred[i]
                    self._resolve(wait["seat"], e.then, wait["source"])
                    changed = True
                    break

    # --- moving and taking -----------------------------------------------------------------

    def _enter(self, seat: int, space_id: str) -> None:
        s = self.s
        p = s.players[seat]
        board = self.board
        space = board.spaces[space_id]
        p.space = space_id
        p.may_take = True
        if space.forest:
            s.pool.exhausted = True
        if space_id == board.hq and p.artifacts:
            self._escape(seat)
            return
        # The seed: rewards are gained and Waypoints trigger "when you enter" a space, so by
        # default every entry counts; rules.json may restrict either to the first entry.
        rules = self.content.rules
        first = space_id not in p.visited
        if first:
            p.visited.append(space_id)
        if space.reward and (first or rules["reward_trigger"] == "every_entry"):
            self._resolve(seat, space.reward)
        if space.waypoint and (first or rules["waypoint_trigger"] == "every_entry"):
            self._resolve(seat, self.content.passages[space.waypoint].effects)

    def _escape(self, seat: int) -> None:
        """Arriving at HQ with an artifact: off the clock, figure and Clank! cubes removed, a Mug;
        the turn goes on (it is finished), without moving."""
        s = self.s
        p = s.players[seat]
        p.status = ESCAPED
        p.may_take = False
        p.supply += s.clank_area[seat]
        s.clank_area[seat] = 0
        if s.mugs > 0:
            s.mugs -= 1
            p.mug = True
        for ability in self.campaign_now().abilities:
            a = self.content.franchise.abilities[ability]
            if a.timing == "escape":
                self._resolve(seat, a.effects)

    def _take(self, seat: int, token: str) -> None:
        s = self.s
        p = s.players[seat]
        space = p.space
        p.may_take = False
        if token == "artifact":
            self._take_artifact(p, space)
        elif token == "mystic_fruit":
            s.fruit_spaces.remove(space)
            p.fruit += 1
        else:
            self._gain_secret(seat, s.major_secrets[space].pop())

    # --- turn end, the dragon, the end -----------------------------------------------------

    def _begin_turn(self) -> None:
        s = self.s
        p = s.players[s.current]
        s.pool = TurnPool()
        s.turn = TurnLog()
        p.turns += 1
        if p.turns == 1:
            for ability in self.campaign_now().abilities:
                a = self.content.franchise.abilities[ability]
                if a.timing == "first_turn":
                    self._resolve(s.current, a.effects)

    def _end_turn(self) -> None:
        s = self.s
        seat = s.current
        p = s.players[seat]
        s.stack.clear()
        unplayed = list(p.hand)
        if p.status != KNOCKED_OUT:
            self._settle_deferred()
            s.stack.clear()  # choices a late condition pushed cannot be answered any more
            unplayed = list(p.hand)
            self._contracts(seat)
            s.stack.clear()
        # cards a Contract drew join the next hand (of an employee still on the clock)
        drawn = list(p.hand)
        for card_id in unplayed:
            drawn.remove(card_id)
        s.turn.deferred.clear()
        self._clean_up(p, unplayed)
        if p.status == PLAYING:
            p.hand.extend(drawn)
        else:
            p.discard.extend(drawn)
        if p.status == PLAYING:
            self._draw(seat, self.content.rules["hand_size"])
        attack = self._refill_row()
        if attack or s.round >= ROUND_LIMIT:
            self._attack(
                self.content.rules["rage_track"][s.rage], "refill" if attack else "round limit"
            )
            if self._bag_empty():
                self._end_play("bag_empty")
                return
        self._next_turn()

    def _contracts(self, seat: int) -> None:
        """Resolve the Contracts the active player meets (before the play area is cleared)."""
        s = self.s
        p = s.players[seat]
        for contract_id in list(s.contracts):
            c = self.content.contracts[contract_id]
            chk = c.check
            if chk.cond == "at_space":
                met = self._space_is(p, chk.arg)
            elif chk.cond == "defeated_this_turn":
                met = s.turn.defeated >= chk.n
            elif chk.cond == "acquired_this_turn":
                met = s.turn.acquired >= chk.n
            elif chk.cond == "gold_at_least":
                met = p.gold >= chk.n
            elif chk.cond == "has_fruit":
                met = p.fruit > 0
            else:  # has_artifact
                met = bool(p.artifacts)
            if not met:
                continue
            if c.once:
                s.contracts.remove(contract_id)
                s.claimed[contract_id] = seat
            self._resolve(seat, c.reward)

    def _space_is(self, p: LegacyPlayer, kind: str) -> bool:
        space = self.board.spaces[p.space]
        if kind == "hq":
            return space.id == self.board.hq
        if kind == "town":
            return space.town
        if kind == "waypoint":
            return bool(space.waypoint)
        if kind == "coach":
            return bool(space.coach)
        if kind == "forest":
            return space.forest
        return space.danger_zone

    def _refill_row(self) -> bool:
        """Refill the Adventure Row; an Event revealed resolves at once and is discarded, and
        refilling goes on. True if a newly revealed card (Events too) shows the Dragon Attack."""
        s = self.s
        rng = RandomStreams(s.seed, s.rng)
        cards = self.content.cards
        attack = False
        for slot in range(len(s.row)):
            while s.row[slot] is None:
                if not s.adventure_deck:
                    # only Events left to reveal would never fill the slot: leave it empty
                    if not any(cards[c].kind != "event" for c in s.adventure_discard):
                        break
                    s.adventure_deck, s.adventure_discard = s.adventure_discard, []
                    rng.shuffle("adventure", s.adventure_deck)
                new = s.adventure_deck.pop()
                c = cards[new]
                if c.dragon_attack and (
                    c.kind != "event" or self.content.rules["event_symbol_triggers_attack"]
                ):
                    attack = True
                if c.kind == "event":
                    s.adventure_discard.append(new)
                    self._resolve(s.current, c.reveal)
                else:
                    s.row[slot] = new
        return attack

    def _bag_empty(self) -> bool:
        return self.s.bag_black + sum(self.s.bag_cubes) == 0

    def _next_turn(self) -> None:
        """Pass the turn; an off-the-clock player's turn is their dragon draw, played at once."""
        s = self.s
        off_clock = self.content.rules["off_clock_draw"][str(s.players_n)]
        for _ in range(4 * s.players_n + 8):
            if all(p.status != PLAYING for p in s.players):
                self._end_play("all_off_the_clock")
                return
            s.current = (s.current + 1) % s.players_n
            if s.current == s.first:
                s.round += 1
            p = s.players[s.current]
            if p.status == PLAYING:
                self._begin_turn()
                return
            self._attack(off_clock, f"off the clock: seat {s.current}")
            if self._bag_empty():
                self._end_play("bag_empty")
                return
        raise AssertionError("turn order found no player")  # pragma: no cover

    def _end_play(self, reason: str) -> None:
        """Play is over: everyone still playing is knocked out; the Epilogue follows."""
        s = self.s
        s.end_reason = reason
        for seat, p in enumerate(s.players):
            if p.status == PLAYING:
                self._knock_out(seat)
        s.stack.clear()
        scores = [self.score(seat) for seat in range(s.players_n)]
        ranks = places(scores, self._best_artifacts())
        s.mvp = min(range(s.players_n), key=lambda i: (ranks[i], i))
        s.phase = PHASE_EPILOGUE
        s.passage = {"id": s.epilogue, "queue": effects_to_json(self.content.passages[s.epilogue].effects)}
        self._run_passage()

    # --- Prologue, Epilogue, group votes ------------------------------------------------------

    def _run_passage(self) -> None:
        """Resolve the prologue / epilogue queue until a group vote is needed or it is done."""
        s = self.s
        queue: list[dict[str, Any]] = s.passage["queue"]
        while queue:
            e = effects_from_json([queue.pop(0)])[0]
            if e.op == "choose":
                voters = [i for i, p in enumerate(s.players) if not p.forfeited]
                options = [effects_to_json(o) for o in e.options]
                if not voters:
                    queue[:0] = options[0]
                    s.choices.append(0)
                    continue
                s.stack.append(
                    {
                        "kind": VOTE,
                        "seat": voters[0],
                        "voters": voters,
                        "votes": [],
                        "options": options,
                        "prompt": f"group decision (passage {s.passage['id']}): vote for one",
                    }
                )
                return
            if e.op == "if":
                if self._game_condition(s.current, e, ""):
                    queue[:0] = effects_to_json(e.then)
                continue
            self._resolve_op(s.current, e, "", [])
        s.passage = {}
        if s.phase == PHASE_PROLOGUE:
            self._setup()
        else:
            self._close()

    def _apply_vote(self, action: Action) -> None:
        top = self.s.stack[-1]
        top["votes"].append(int(action.args[0]))
        self._next_voter(top)

    def _next_voter(self, top: dict[str, Any]) -> None:
        """Ask the next voter still in the game, or count the votes (a forfeited seat's vote
        is -1: it does not count)."""
        s = self.s
        voters: list[int] = top["voters"]
        votes: list[int] = top["votes"]
        while len(votes) < len(voters) and s.players[voters[len(votes)]].forfeited:
            votes.append(-1)
        if len(votes) < len(voters):
            top["seat"] = voters[len(votes)]
            return
        s.stack.pop()
        chosen = self._count_votes(voters, votes, len(top["options"]))
        s.choices.append(chosen)
        s.passage["queue"][:0] = top["options"][chosen]
        self._run_passage()

    def _count_votes(self, voters: list[int], votes: list[int], options: int) -> int:
        """Majority wins; a tie goes to the MVP's vote (this game's in the Epilogue, the previous
        game's in the Prologue, seat 0 in game 1) if the MVP voted for a tied option, else to
        the lowest tied option."""
        tally = [votes.count(i) for i in range(options)]
        best = max(tally)
        tied = [i for i in range(options) if tally[i] == best]
        if len(tied) == 1:
            return tied[0]
        s = self.s
        if s.phase == PHASE_EPILOGUE:
            mvp = s.mvp
        else:
            reports = s.campaign["reports"]
            mvp = int(reports[-1]["mvp"]) if reports else 0
        if mvp in voters and votes[voters.index(mvp)] in tied:
            return votes[voters.index(mvp)]
        return tied[0]

    def _campaign_digest(self, campaign: dict[str, Any]) -> str:
        """The digest of a campaign state's JSON (`CampaignState.digest`)."""
        return json_digest(campaign)

    def _close(self) -> None:
        """The Mission Report and the Employee Reviews: the campaign state after this game."""
        s = self.s
        report = MissionReport(
            game_index=s.campaign["game_index"],
            prologue=s.prologue,
            epilogue=s.epilogue,
            seed=s.seed,
            scores=tuple(self.score(seat) for seat in range(s.players_n)),
            escaped=tuple(i for i, p in enumerate(s.players) if p.status == ESCAPED),
            knocked_out=tuple(i for i, p in enumerate(s.players) if p.status == KNOCKED_OUT),
            mvp=s.mvp,
            choices=tuple(s.choices),
            state_before=self._campaign_digest(s.campaign),
            board=s.board,
        )
        s.campaign_now = close_game(self.campaign_now(), report, self.content).to_json()
        s.phase = PHASE_OVER
