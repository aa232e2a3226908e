"""The rules Clank! and Clank! Legacy share, as a mixin of their engines.

A game engine that mixes in `ClankCore` keeps its state in `self.s` (shaped as `CoreState`) and
its content in `self.content` (shaped as `CoreContent`). The mixin holds the deck-building core:
drawing (with the reshuffle and the "acquired this turn" bookkeeping), Clank! cubes (negative
Clank! offsetting later Clank!), damage and healing, the Rage track, drawing from the dragon bag,
the shared effect primitives, the pending trash / discard / choose choices, the card actions of a
main turn (play, acquire, buy from the Reserve, fight, drink), the turn's clean-up and a dragon
attack's draw. Each game supplies `_knock_out` (what happens then), `_describe` (rules text of
effects), `_row_discard` (where a defeated monster goes), and may extend `_resolve_op` (its own
effect ops), `_condition` (its own conditions), `_acquire_row_card` / `_acquired` (what an
acquisition also does) and `_count_defeat`.

Random streams are named as Clank! always named them (`deck/<seat>`, `new/<seat>`,
`dragon_bag`), so Clank!'s games replay bit for bit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from referee.core.effects import Effect, effects_from_json, effects_to_json
from referee.core.game import Action
from referee.core.rng import RandomStreams
from referee.games.clank_core.state import PLAYING, CorePlayer, CoreState

__all__ = [
    "ClankCore",
    "CoreCard",
    "CoreContent",
    "CoreSecret",
    "card_counts",
    "redeal_hidden_cards",
    "stream_deck",
]


def stream_deck(seat: int) -> str:
    """The random stream a seat's deck is shuffled with."""
    return f"deck/{seat}"


class CoreCard(Protocol):
    """What the shared rules read of a card definition."""

    @property
    def name(self) -> str:
        """Display name."""

    @property
    def kind(self) -> str:
        """The card's kind ("monster" is fought, the others acquired)."""

    @property
    def cost(self) -> int:
        """Skill to acquire (Swords to defeat, for a monster)."""

    @property
    def points(self) -> int:
        """Points at the end."""

    @property
    def tags(self) -> tuple[str, ...]:
        """Labels read by the `played_tag` condition."""

    @property
    def play(self) -> tuple[Effect, ...]:
        """Effects of playing the card."""

    @property
    def acquire(self) -> tuple[Effect, ...]:
        """Effects of acquiring the card."""

    @property
    def defeat(self) -> tuple[Effect, ...]:
        """Effects of defeating the monster."""


class CoreSecret(Protocol):
    """What the shared rules read of a secret token kind."""

    @property
    def points(self) -> int:
        """Points at the end, when kept."""

    @property
    def effects(self) -> tuple[Effect, ...]:
        """Effects on taking it (on drinking it, for a potion)."""

    @property
    def dragon_egg(self) -> bool:
        """A dragon egg: taking it angers the dragon."""

    @property
    def potion(self) -> bool:
        """A potion: kept, drunk later."""


class CoreContent(Protocol):
    """What the shared rules read of a game's content."""

    @property
    def rules(self) -> Mapping[str, Any]:
        """The game's numbers (`health` at least)."""

    @property
    def cards(self) -> Mapping[str, CoreCard]:
        """Card definitions by id."""

    @property
    def secrets(self) -> Mapping[str, CoreSecret]:
        """Secret token kinds by id."""


class ClankCore:
    """The shared deck-building rules, mixed into a Clank! game engine."""

    __slots__ = ()

    s: CoreState
    content: CoreContent

    # --- hooks each game supplies -------------------------------------------------------------

    def _knock_out(self, seat: int) -> None:
        """Knock `seat` out (the game decides what follows)."""
        raise NotImplementedError

    def _describe(self, effects_json: list[dict[str, Any]]) -> str:
        """Rules text of effects (in their JSON form)."""
        raise NotImplementedError

    def _resolve_op(self, seat: int, e: Effect, source: str, pushes: list[dict[str, Any]]) -> None:
        """Resolve an effect op the core does not know (a game's own primitive)."""
        raise ValueError(f"unknown effect op {e.op!r}")

    def _game_condition(self, seat: int, e: Effect, source: str) -> bool:
        """Judge a condition the core does not know."""
        raise ValueError(f"unknown condition {e.cond!r}")

    # --- pending choices ----------------------------------------------------------------------

    def _pending_actions(self, top: dict[str, Any]) -> tuple[Action, ...]:
        """The legal actions of a pending trash / discard / choose."""
        p = self.s.players[top["seat"]]
        cards = self.content.cards
        out: list[Action] = []
        if top["kind"] == "trash":
            for card_id in sorted(set(p.play)):
                out.append(Action("trash", ("play", card_id), f"trash {cards[card_id].name} from play"))
            for card_id in sorted(set(p.discard)):
                out.append(Action("trash", ("discard", card_id), f"trash {cards[card_id].name} from discard"))
            out.append(Action("skip", (), "trash nothing"))
        elif top["kind"] == "discard":
            for card_id in sorted(set(p.hand)):
                out.append(Action("discard", (card_id,), f"discard {cards[card_id].name}"))
            out.append(Action("skip", (), "discard nothing"))
        else:  # choose
            for i, option in enumerate(top["options"]):
                out.append(Action("choose", (i,), "choose " + self._describe(option)))
        return tuple(out)

    def _apply_pending(self, action: Action) -> None:
        """Answer the pending choice on top of the stack."""
        s = self.s
        top = s.stack.pop()
        seat = top["seat"]
        p = s.players[seat]
        if action.kind == "trash":
            zone, card_id = str(action.args[0]), str(action.args[1])
            (p.play if zone == "play" else p.discard).remove(card_id)
            if zone == "discard" and card_id in p.new_discard:
                p.new_discard.remove(card_id)  # of identical copies, the new one goes first
            p.trashed += 1
        elif action.kind == "discard":
            card_id = str(action.args[0])
            p.hand.remove(card_id)
            p.discard.append(card_id)
            if card_id in p.new_hand:  # of identical copies, the unplayable new one goes first
                p.new_hand.remove(card_id)
                p.new_discard.append(card_id)
            self._resolve(seat, effects_from_json(top["then"]), top.get("source", ""))
        elif action.kind == "choose":
            self._resolve(seat, effects_from_json(top["options"][int(action.args[0])]), top.get("source", ""))

    # --- the card actions of a main turn ------------------------------------------------------

    def _row_discard(self) -> list[str]:
        """The discard pile of the row's deck (a defeated monster goes there)."""
        raise NotImplementedError

    def _count_defeat(self) -> None:
        """Count a monster defeated this turn, if the game counts them (Legacy's Contracts do)."""

    def _card_actions(
        self, cache: dict[tuple[Any, ...], Action], piles: Iterable[str], out: list[Action]
    ) -> None:
        """Append the card actions open to the active player: play a card (not one acquired and
        drawn again this turn: "other newly acquired cards cannot be used that turn"), fight a
        monster or acquire a card of the row, acquire from a Reserve pile (`piles`, in the game's
        order). An action's text depends only on the content and its key: each is built once
        and kept in `cache`."""
        s = self.s
        p = s.players[s.current]
        pool = s.pool
        cards = self.content.cards
        hand, new_hand = p.hand, p.new_hand
        for card_id in sorted(set(hand)):
            if not new_hand or hand.count(card_id) > new_hand.count(card_id):
                key: tuple[Any, ...] = ("play", card_id)
                a = cache.get(key)
                if a is None:
                    a = cache[key] = Action("play", (card_id,), f"play {cards[card_id].name}")
                out.append(a)
        for slot, row_card in enumerate(s.row):
            if row_card is None:
                continue
            c = cards[row_card]
            if c.kind == "monster":
                if pool.swords < c.cost:
                    continue
                key = ("fight", slot, row_card)
                a = cache.get(key)
                if a is None:
                    a = cache[key] = Action("fight", (slot,), f"fight {c.name} ({c.cost} swords)")
            else:
                if pool.skill < c.cost:
                    continue
                key = ("acquire", slot, row_card)
                a = cache.get(key)
                if a is None:
                    a = cache[key] = Action("acquire", (slot,), f"acquire {c.name} ({c.cost} skill)")
            out.append(a)
        for pile in piles:
            c = cards[pile]
            if s.reserve[pile] > 0 and pool.skill >= c.cost:
                key = ("buy_reserve", pile)
                a = cache.get(key)
                if a is None:
                    a = cache[key] = Action("buy_reserve", (pile,), f"acquire {c.name} ({c.cost} skill)")
                out.append(a)

    def _apply_card_action(self, seat: int, action: Action) -> bool:
        """Apply a card action both games have (play, acquire, buy_reserve, fight, drink); False
        if `action` is none of them."""
        s = self.s
        p = s.players[seat]
        pool = s.pool
        cards = self.content.cards
        kind, args = action.kind, action.args
        if kind == "play":
            card_id = str(args[0])
            p.hand.remove(card_id)
            p.play.append(card_id)
            self._resolve(seat, cards[card_id].play, source=card_id)
        elif kind == "acquire":
            card_id = self._take_from_row(int(args[0]))
            pool.skill -= cards[card_id].cost
            self._acquire_row_card(seat, card_id)
        elif kind == "buy_reserve":
            pile = str(args[0])
            pool.skill -= cards[pile].cost
            s.reserve[pile] -= 1
            self._acquired(seat, pile)
        elif kind == "fight":
            card_id = self._take_from_row(int(args[0]))
            c = cards[card_id]
            pool.swords -= c.cost
            self._row_discard().append(card_id)
            self._count_defeat()
            self._resolve(seat, c.defeat)
        elif kind == "drink":
            potion = str(args[0])
            p.potions.remove(potion)
            self._resolve(seat, self.content.secrets[potion].effects)
        else:
            return False
        return True

    # --- tokens ----------------------------------------------------------------------------------

    def _take_artifact(self, p: CorePlayer, place: str) -> None:
        """Pick up the artifact at `place`: the dragon's Rage goes up one."""
        p.artifacts.append(self.s.artifacts.pop(place))
        self._advance_rage(1)

    def _gain_secret(self, seat: int, secret_id: str) -> None:
        """A secret taken: a dragon egg angers the dragon; a potion is kept to drink later; a
        secret worth points (or an egg) is kept, and its effects resolve."""
        p = self.s.players[seat]
        secret = self.content.secrets[secret_id]
        if secret.dragon_egg:
            self._advance_rage(1)
        if secret.potion:
            p.potions.append(secret_id)
            return
        if secret.points or secret.dragon_egg:
            p.kept_secrets.append(secret_id)
        self._resolve(seat, secret.effects)

    def _fight_guardian(self, seat: int, card_id: str) -> None:
        """Fight the monster that is always there (Clank!'s Goblin, Legacy's Cultist): it stays,
        its defeat effects resolve."""
        c = self.content.cards[card_id]
        self.s.pool.swords -= c.cost
        self._count_defeat()
        self._resolve(seat, c.defeat)

    def _take_from_row(self, slot: int) -> str:
        """Take the card out of row slot `slot` (the slot stays empty until the refill)."""
        card_id = self.s.row[slot]
        assert card_id is not None
        self.s.row[slot] = None
        return card_id

    def _acquire_row_card(self, seat: int, card_id: str) -> None:
        """A card acquired from the row (a game may treat some kinds otherwise)."""
        self._acquired(seat, card_id)

    def _acquired(self, seat: int, card_id: str) -> None:
        """A card acquired: gained (`_gain`), then its acquire effects resolve."""
        self._gain(self.s.players[seat], card_id)
        self._resolve(seat, self.content.cards[card_id].acquire)

    def _gain(self, p: CorePlayer, card_id: str) -> None:
        """An acquired card goes to the discard pile, new this turn (it cannot be played)."""
        p.discard.append(card_id)
        p.new_discard.append(card_id)

    # --- the end of a turn ----------------------------------------------------------------------

    def _clean_up(self, p: CorePlayer, unplayed: Sequence[str]) -> None:
        """The active player's clean-up: unused negative Clank! expires, no token may be taken
        any more ("when you enter": not on a later turn), nothing is new any more, the play area
        and the `unplayed` cards go to the discard pile, the hand is emptied."""
        self.s.pool.negative_clank = 0
        p.may_take = False
        p.new_discard.clear()
        p.new_deck.clear()
        p.new_hand.clear()
        p.discard.extend(p.play)
        p.discard.extend(unplayed)
        p.play.clear()
        p.hand.clear()

    def _attack(self, cubes: int, reason: str) -> None:
        """A dragon attack: the Clank! Area's cubes go into the bag, `cubes` are drawn (damage to
        those still playing), and what happened is kept in `last_attack`."""
        s = self.s
        self._empty_clank_area()
        drawn = self._draw_from_bag(cubes)
        s.last_attack = {
            "reason": reason,
            "round": s.round,
            "cubes": cubes,
            "drawn": len(drawn),
            "black": drawn.count(-1),
            "damage": [drawn.count(seat) for seat in range(s.players_n)],
        }

    # --- effects ------------------------------------------------------------------------------

    def _resolve(self, seat: int, effects: Sequence[Effect], source: str = "") -> None:
        """Resolve effects for `seat`. Choices are pushed so the first listed is decided first.

        `source` is the card being played, so that `played_tag` looks for *another* card.
        """
        s = self.s
        p = s.players[seat]
        pool = s.pool
        pushes: list[dict[str, Any]] = []
        for e in effects:
            op = e.op
            if op == "skill":
                pool.skill += e.n
            elif op == "swords":
                pool.swords += e.n
            elif op == "boots":
                pool.boots += e.n
            elif op == "teleport":
                pool.teleports += e.n
            elif op == "gold":
                p.gold += e.n
            elif op == "clank":
                self._clank(seat, e.n)
            elif op == "clank_all":
                for other in range(s.players_n):
                    if s.players[other].status == PLAYING:
                        self._add_clank(other, e.n)
            elif op == "draw":
                self._draw(seat, e.n)
            elif op == "heal":
                self._heal(seat, e.n)
            elif op == "rage":
                self._advance_rage(e.n)
            elif op == "trash":
                if p.play or p.discard:
                    pushes.append({"kind": "trash", "seat": seat, "prompt": "you may trash a card"})
            elif op == "discard_for":
                pushes.append(
                    {
                        "kind": "discard",
                        "seat": seat,
                        "source": source,
                        "then": effects_to_json(e.then),
                        "prompt": "you may discard a card from hand for: "
                        + self._describe(effects_to_json(e.then)),
                    }
                )
            elif op == "choose":
                pushes.append(
                    {
                        "kind": "choose",
                        "seat": seat,
                        "source": source,
                        "options": [effects_to_json(o) for o in e.options],
                        "prompt": "choose one",
                    }
                )
            elif op == "if":
                self._resolve_if(seat, e, source)
            else:
                self._resolve_op(seat, e, source, pushes)
        for pending in reversed(pushes):
            # A discard choice with an empty hand has nothing to choose (only unplayed cards).
            if pending["kind"] == "discard" and not p.hand:
                continue
            s.stack.append(pending)

    def _resolve_if(self, seat: int, e: Effect, source: str) -> None:
        """A conditional effect: resolve `then` if the condition holds now."""
        if self._condition(seat, e, source):
            self._resolve(seat, e.then, source)

    def _condition(self, seat: int, e: Effect, source: str) -> bool:
        """Judge a card condition for `seat`."""
        p = self.s.players[seat]
        if e.cond == "has_artifact":
            return bool(p.artifacts)
        if e.cond == "has_item":
            return e.arg in p.items
        if e.cond == "played_tag":
            # another card with the tag is in the play area (the source itself is there)
            cards = self.content.cards
            tagged = sum(1 for c in p.play if e.arg in cards[c].tags)
            own = 1 if source and e.arg in cards[source].tags else 0
            return tagged - own > 0
        return self._game_condition(seat, e, source)

    # --- cubes, cards, health -----------------------------------------------------------------

    def _clank(self, seat: int, n: int) -> None:
        """Clank! from the player's own effects: negative removes own cubes, then offsets later."""
        pool = self.s.pool
        if n < 0:
            removable = min(-n, self.s.clank_area[seat])
            self.s.clank_area[seat] -= removable
            self.s.players[seat].supply += removable
            pool.negative_clank += -n - removable
            return
        offset = min(n, pool.negative_clank)
        pool.negative_clank -= offset
        self._add_clank(seat, n - offset)

    def _add_clank(self, seat: int, n: int) -> None:
        """Move up to `n` of the player's cubes from the supply to the Clank! Area."""
        p = self.s.players[seat]
        if p.status != PLAYING:
            return
        added = min(n, p.supply)  # none left in the supply: no more added
        p.supply -= added
        self.s.clank_area[seat] += added

    def _draw(self, seat: int, n: int) -> None:
        """Draw `n` cards, shuffling the discard pile into the deck when it runs out."""
        p = self.s.players[seat]
        for _ in range(n):
            if not p.deck:
                if not p.discard:
                    return
                p.deck, p.discard = p.discard, []
                p.new_deck.extend(p.new_discard)
                p.new_discard.clear()
                RandomStreams(self.s.seed, self.s.rng).shuffle(stream_deck(seat), p.deck)
            card_id = p.deck.pop()
            p.hand.append(card_id)
            if card_id in p.new_deck:
                # Copies of a card are alike but for being new: the top one of k copies, j of
                # them new, is a new one with chance j/k (its own stream, so games without a
                # mid-turn reshuffle draw exactly as before).
                new, copies = p.new_deck.count(card_id), p.deck.count(card_id) + 1
                if new >= copies or RandomStreams(self.s.seed, self.s.rng).below(f"new/{seat}", copies) < new:
                    p.new_deck.remove(card_id)
                    p.new_hand.append(card_id)

    def _heal(self, seat: int, n: int) -> None:
        """Remove up to `n` damage (the cubes return to the supply)."""
        p = self.s.players[seat]
        healed = min(n, p.damage)
        p.damage -= healed
        p.supply += healed

    def _damage(self, seat: int, n: int) -> None:
        """Damage from the player's supply (paths, tunnels). An empty supply takes from the
        Clank! Area, then the bag, so the 30 cubes are always accounted for."""
        s = self.s
        p = s.players[seat]
        for _ in range(n):
            if p.supply > 0:
                p.supply -= 1
            elif s.clank_area[seat] > 0:
                s.clank_area[seat] -= 1
            elif s.bag_cubes[seat] > 0:
                s.bag_cubes[seat] -= 1
            p.damage += 1
        if p.damage >= self.content.rules["health"] and p.status == PLAYING:
            self._knock_out(seat)

    def _advance_rage(self, n: int) -> None:
        """Advance the Dragon Marker `n` spaces (it stops on the last one)."""
        self.s.rage = min(self.s.rage + n, len(self.content.rules["rage_track"]) - 1)

    # --- the dragon bag -----------------------------------------------------------------------

    def _empty_clank_area(self) -> None:
        """All Clank! Area cubes go into the dragon bag."""
        s = self.s
        for seat in range(s.players_n):
            s.bag_cubes[seat] += s.clank_area[seat]
            s.clank_area[seat] = 0

    def _draw_from_bag(self, to_draw: int) -> list[int]:
        """Draw up to `to_draw` cubes from the bag (fewer if it empties): -1 for a black cube,
        else the owner's seat. A drawn cube of a player still playing is one damage (a knockout
        at full health); a finished player's cube is removed with no damage."""
        s = self.s
        health = self.content.rules["health"]
        rng = RandomStreams(s.seed, s.rng)
        drawn: list[int] = []
        for _ in range(to_draw):
            total = s.bag_black + sum(s.bag_cubes)
            if total == 0:
                break  # an empty bag draws nothing more
            pick = rng.below("dragon_bag", total)
            if pick < s.bag_black:
                s.bag_black -= 1
                drawn.append(-1)
                continue
            pick -= s.bag_black
            for seat in range(s.players_n):
                if pick < s.bag_cubes[seat]:
                    break
                pick -= s.bag_cubes[seat]
            s.bag_cubes[seat] -= 1
            drawn.append(seat)
            p = s.players[seat]
            if p.status == PLAYING:
                p.damage += 1  # the drawn cube goes onto the Health Meter
                if p.damage >= health:
                    self._knock_out(seat)
        return drawn


def card_counts(cards: list[str]) -> dict[str, int]:
    """Card id -> copies, in card id order: what an observation shows of a deck (its owner knows
    what it holds, not the order). What `dict(sorted(Counter(cards).items()))` gives, at a
    fraction of its cost (observe runs at every decision)."""
    found: dict[str, int] = {}
    for card in sorted(cards):
        found[card] = found.get(card, 0) + 1
    return found


def redeal_hidden_cards(players: Sequence[CorePlayer], seat: int, rng: RandomStreams) -> None:
    """For a hidden variant (`Game.hidden_variant`): what `seat` cannot know of the decks and
    hands re-dealt at random. Its own deck is reshuffled (it knows the contents, not the order);
    every other player's hand and deck are dealt again from their union, the cards acquired and
    redrawn this turn spread over the new hand and deck."""
    for i, p in enumerate(players):
        if i == seat:
            rng.shuffle("own", p.deck)
            continue
        unseen = p.hand + p.deck
        rng.shuffle("other", unseen)
        p.hand, p.deck = unseen[: len(p.hand)], unseen[len(p.hand) :]
        new, p.new_hand, p.new_deck = p.new_hand + p.new_deck, [], []
        for card_id in new:
            in_hand = p.hand.count(card_id) > p.new_hand.count(card_id)
            (p.new_hand if in_hand else p.new_deck).append(card_id)
