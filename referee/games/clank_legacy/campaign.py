"""Clank! Legacy campaign state: what persists from one game of a campaign to the next.

Pure (no I/O beyond the packaged content the loader reads once): a `CampaignState` is data, its
canonical JSON is versioned (`CAMPAIGN_STATE_VERSION`) and digested, and it changes only through
the functions here, so the state after game k is a pure function of the state before it and what
happened in game k.

The order in one game (the engine resolves the passages, this module keeps the score):

1. setup: the prologue named by `state.next_prologue`; each permanent op it resolves (and each
   `record_fact` a Waypoint resolves during play) goes through `apply_permanent`;
2. game end: the epilogue's permanent ops through `apply_permanent`, ending in exactly one
   `next_game` (sets `next_prologue`) or `end_campaign` (sets `over`);
3. `close_game(state, report)`: appends the `MissionReport`, runs the Employee Reviews and
   moves `game_index` on.

Pinned here (the checklist leaves them open):

- `game_index` is the Book's game number of the next game (1 for the first game), so it matches
  a prologue's `game` and the storage's (campaign, index) key.
- Employee Reviews: a seat earns at most one Checkmark per game, for being the MVP or for
  escaping (`rules.checkmark_for`). At `rules.checkmarks_per_promotion` (3) Checkmarks the seat
  is promoted and its counter **resets** to 0 (the three are spent). The promotion is the first
  entry of reviews.json whose `replace` card is still in that seat's starting deck and whose
  `with` upgrade still has copies in the box (all seats draw on the same box); if none is left
  the Checkmarks are spent all the same and nothing changes (a promotion is not a decision: it
  would need a chooser after the game has ended).
- Path changes: `"side:path" -> "opened" | "blocked"`, the latest op wins, which is what the
  loader's walk computes (a revealed path later blocked is closed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from referee.core.effects import Effect
from referee.core.game import json_digest
from referee.games.clank_legacy.content import (
    LegacyContent,
    default_content,
)
from referee.games.clank_legacy.content import (
    _check_path_changes as _check_paths,
)
from referee.games.clank_legacy.content import (
    _Walk as _ContentWalk,
)

__all__ = [
    "CAMPAIGN_STATE_VERSION",
    "DEFAULT_NAMES",
    "PERMANENT_OPS",
    "CampaignState",
    "MissionReport",
    "adventure_counts",
    "adventure_deck",
    "apply_passage",
    "apply_permanent",
    "close_game",
    "end_passage",
    "new_campaign",
    "open_paths",
    "path_state",
    "starting_deck",
]

#: bumped whenever the JSON shape of a CampaignState changes; from_json reads this version and
#: upgrades version 1 (whose reports did not name the next prologue), refusing any other
CAMPAIGN_STATE_VERSION = 2

#: the ops `apply_permanent` resolves: the Book's permanent ops plus the epilogue's two endings
PERMANENT_OPS = frozenset(
    {
        "record_fact",
        "add_card",
        "remove_card",
        "gain_ability",
        "reveal_path",
        "block_path",
        "next_game",
        "end_campaign",
    }
)

#: deck-box names given when a campaign starts without names (our own, one per seat)
DEFAULT_NAMES = ("Wren Ashdown", "Tobble Quill", "Marga Vell", "Osric Fenn")

PATH_OPENED = "opened"
PATH_BLOCKED = "blocked"
_NAME_MAX = 40


def _content(content: LegacyContent | None) -> LegacyContent:
    return content if content is not None else default_content()


# --- strict JSON reading -----------------------------------------------------------------------


def _fail(what: str, problem: str) -> ValueError:
    return ValueError(f"campaign state: {what}: {problem}")


def _obj(data: Any, what: str, keys: frozenset[str]) -> Mapping[str, Any]:
    if not isinstance(data, dict):
        raise _fail(what, "must be a JSON object")
    unknown = sorted(set(data) - keys)
    if unknown:
        raise _fail(what, f"unknown field {unknown[0]!r}")
    missing = sorted(keys - set(data))
    if missing:
        raise _fail(what, f"missing field {missing[0]!r}")
    return data


def _int(value: Any, what: str, lo: int | None = None, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(what, "must be an integer")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise _fail(what, f"{value} is outside {lo}..{hi}")
    return value


def _str(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise _fail(what, "must be a non-empty string")
    return value


def _list(value: Any, what: str, length: int | None = None) -> list[Any]:
    if not isinstance(value, list):
        raise _fail(what, "must be a list")
    if length is not None and len(value) != length:
        raise _fail(what, f"must have {length} entries (one per seat), has {len(value)}")
    return value


def _seats(value: Any, what: str, players: int) -> tuple[int, ...]:
    seats = tuple(_int(s, f"{what}[{i}]", 0, players - 1) for i, s in enumerate(_list(value, what)))
    if list(seats) != sorted(set(seats)):
        raise _fail(what, "seats must be ascending and distinct")
    return seats


# --- the Mission Report ------------------------------------------------------------------------


@dataclass(frozen=True)
class MissionReport:
    """The campaign log of one game (the Mission Report), filled at its end.

    `game_index` is the game's number, `prologue`/`epilogue` its passages, `board` the side the
    prologue chose, `seed` the game's seed, `scores` one per seat, `escaped`/`knocked_out` seat
    lists, `mvp` the seat with the highest score (ties broken as the engine ranks), `choices` the
    group choices made in its prologue and epilogue (option indices, in order) and
    `state_before` the digest of the campaign state the game started from, and `next_prologue`
    the Prologue it names for the next game (the Epilogue's `next_game`; 0 when the campaign
    ended). `close_game` fills `next_prologue` from the state after the Epilogue.
    """

    game_index: int
    prologue: int
    epilogue: int
    seed: int
    scores: tuple[int, ...]
    escaped: tuple[int, ...]
    knocked_out: tuple[int, ...]
    mvp: int
    choices: tuple[int, ...]
    state_before: str
    board: str = ""
    next_prologue: int = 0

    def to_json(self) -> dict[str, Any]:
        """The report as JSON data (part of the campaign state's canonical JSON)."""
        return {
            "game_index": self.game_index,
            "prologue": self.prologue,
            "epilogue": self.epilogue,
            "board": self.board,
            "seed": self.seed,
            "scores": list(self.scores),
            "escaped": list(self.escaped),
            "knocked_out": list(self.knocked_out),
            "mvp": self.mvp,
            "choices": list(self.choices),
            "state_before": self.state_before,
            "next_prologue": self.next_prologue,
        }

    @classmethod
    def from_json(cls, data: Any, players: int | None = None) -> MissionReport:
        """Read a report strictly: an unknown or missing field, a wrong type or a seat outside
        the table is a ValueError naming the field."""
        d = _obj(data, "report", _REPORT_KEYS)
        scores = tuple(
            _int(s, f"report.scores[{i}]") for i, s in enumerate(_list(d["scores"], "report.scores"))
        )
        n = players if players is not None else len(scores)
        if len(scores) != n or not 2 <= n <= 4:
            raise _fail("report.scores", f"needs one score per seat ({n}), has {len(scores)}")
        escaped = _seats(d["escaped"], "report.escaped", n)
        knocked = _seats(d["knocked_out"], "report.knocked_out", n)
        if set(escaped) & set(knocked):
            raise _fail("report", "a seat cannot both escape and be knocked out")
        board = d["board"]
        if not isinstance(board, str):
            raise _fail("report.board", "must be a string")
        state_before = _str(d["state_before"], "report.state_before")
        return cls(
            game_index=_int(d["game_index"], "report.game_index", 1),
            prologue=_int(d["prologue"], "report.prologue", 1),
            epilogue=_int(d["epilogue"], "report.epilogue", 1),
            seed=_int(d["seed"], "report.seed", 0),
            scores=scores,
            escaped=escaped,
            knocked_out=knocked,
            mvp=_int(d["mvp"], "report.mvp", 0, n - 1),
            choices=tuple(
                _int(c, f"report.choices[{i}]", 0)
                for i, c in enumerate(_list(d["choices"], "report.choices"))
            ),
            state_before=state_before,
            board=board,
            next_prologue=_int(d["next_prologue"], "report.next_prologue", 0),
        )


_REPORT_KEYS = frozenset(
    {
        "game_index",
        "prologue",
        "epilogue",
        "board",
        "seed",
        "scores",
        "escaped",
        "knocked_out",
        "mvp",
        "choices",
        "state_before",
        "next_prologue",
    }
)


# --- the campaign state ------------------------------------------------------------------------


@dataclass(frozen=True)
class CampaignState:
    """Everything that persists between the games of one campaign.

    `adventure_changes` is card id -> copies added (positive) or removed (negative) against the
    Adventure deck of `adventure.json` (zero entries are dropped); `abilities` the Franchise
    Board abilities in the order gained; `paths` is `"side:path" -> "opened" | "blocked"`;
    `checkmarks` the Checkmarks each seat holds towards its next promotion; `promotions` the
    upgrade card ids each seat's starting deck has gained, in order; `reports` the Mission
    Reports so far. Never mutate the mappings: every change goes through this module.
    """

    players: int
    names: tuple[str, ...]
    game_index: int
    next_prologue: int
    facts: frozenset[str] = frozenset()
    adventure_changes: Mapping[str, int] = field(default_factory=dict)
    abilities: tuple[str, ...] = ()
    paths: Mapping[str, str] = field(default_factory=dict)
    checkmarks: tuple[int, ...] = ()
    promotions: tuple[tuple[str, ...], ...] = ()
    reports: tuple[MissionReport, ...] = ()
    over: bool = False
    version: int = CAMPAIGN_STATE_VERSION

    def to_json(self) -> dict[str, Any]:
        """The canonical, versioned JSON form (sorted where order carries no meaning)."""
        return {
            "version": self.version,
            "players": self.players,
            "names": list(self.names),
            "game_index": self.game_index,
            "next_prologue": self.next_prologue,
            "facts": sorted(self.facts),
            "adventure_changes": {k: self.adventure_changes[k] for k in sorted(self.adventure_changes)},
            "abilities": list(self.abilities),
            "paths": {k: self.paths[k] for k in sorted(self.paths)},
            "checkmarks": list(self.checkmarks),
            "promotions": [list(p) for p in self.promotions],
            "reports": [r.to_json() for r in self.reports],
            "over": self.over,
        }

    def digest(self) -> str:
        """Digest of the canonical JSON: equal digests mean equal campaign states."""
        return json_digest(self.to_json())

    @classmethod
    def from_json(cls, data: Any, content: LegacyContent | None = None) -> CampaignState:
        """Read a stored state strictly (it comes from files, configs and the database): an
        unknown or missing field, another version, a wrong type, or a name the content does not
        know is a ValueError naming the field."""
        if isinstance(data, dict) and data.get("version") == 1:
            data = _upgrade_v1(data)
        if isinstance(data, dict) and "version" in data and data["version"] != CAMPAIGN_STATE_VERSION:
            raise _fail(
                "version", f"{data['version']!r} is not supported (this build reads {CAMPAIGN_STATE_VERSION})"
            )
        d = _obj(data, "state", _STATE_KEYS)
        c = _content(content)
        lo, hi = c.rules["players"]
        players = _int(d["players"], "players", lo, hi)
        names = tuple(_name(n, f"names[{i}]") for i, n in enumerate(_list(d["names"], "names", players)))
        game_index = _int(d["game_index"], "game_index", 1)
        next_prologue = _int(d["next_prologue"], "next_prologue", 1)
        passage = c.passages.get(next_prologue)
        if passage is None or passage.kind != "prologue":
            raise _fail("next_prologue", f"passage {next_prologue} is not a prologue")
        facts_raw = [_str(f, f"facts[{i}]") for i, f in enumerate(_list(d["facts"], "facts"))]
        for f in facts_raw:
            if f not in c.facts:
                raise _fail("facts", f"unknown fact {f!r}")
        if facts_raw != sorted(set(facts_raw)):
            raise _fail("facts", "must be sorted and distinct")
        changes = d["adventure_changes"]
        if not isinstance(changes, dict):
            raise _fail("adventure_changes", "must be an object of card id -> copies")
        adventure: dict[str, int] = {}
        for cid, n in changes.items():
            if cid not in c.adventure and cid not in c.campaign_cards:
                raise _fail("adventure_changes", f"unknown Adventure card {cid!r}")
            n = _int(n, f"adventure_changes.{cid}")
            have = c.adventure.get(cid, 0) + n
            if n == 0 or have < 0 or have > c.adventure.get(cid, 0) + c.campaign_cards.get(cid, 0):
                raise _fail(
                    f"adventure_changes.{cid}", f"{n} leaves {have} copies, outside what the box holds"
                )
            adventure[cid] = n
        abilities = tuple(
            _str(a, f"abilities[{i}]") for i, a in enumerate(_list(d["abilities"], "abilities"))
        )
        for a in abilities:
            if a not in c.franchise.abilities:
                raise _fail("abilities", f"unknown ability {a!r}")
        if len(set(abilities)) != len(abilities) or len(abilities) > c.franchise.ability_slots:
            raise _fail(
                "abilities", f"distinct and at most {c.franchise.ability_slots} (the Franchise slots)"
            )
        paths_raw = d["paths"]
        if not isinstance(paths_raw, dict):
            raise _fail("paths", "must be an object of 'side:path' -> opened / blocked")
        known_paths = {f"{b.id}:{p.id}" for b in c.boards.values() for p in b.paths}
        for key, how in paths_raw.items():
            if key not in known_paths:
                raise _fail("paths", f"unknown path {key!r}")
            if how not in (PATH_OPENED, PATH_BLOCKED):
                raise _fail(f"paths.{key}", f"must be {PATH_OPENED!r} or {PATH_BLOCKED!r}")
        checkmarks = tuple(
            _int(n, f"checkmarks[{i}]", 0, c.rules["checkmarks_per_promotion"] - 1)
            for i, n in enumerate(_list(d["checkmarks"], "checkmarks", players))
        )
        promotions: list[tuple[str, ...]] = []
        upgrades = {p.with_ for p in c.promotions.values()}
        for i, seat in enumerate(_list(d["promotions"], "promotions", players)):
            cards = tuple(_str(u, f"promotions[{i}]") for u in _list(seat, f"promotions[{i}]"))
            for u in cards:
                if u not in upgrades:
                    raise _fail(f"promotions[{i}]", f"unknown upgrade card {u!r}")
            promotions.append(cards)
        reports = tuple(MissionReport.from_json(r, players) for r in _list(d["reports"], "reports"))
        for i, r in enumerate(reports):
            if r.game_index != i + 1:
                raise _fail(f"reports[{i}].game_index", f"is {r.game_index}, expected {i + 1}")
        over = d["over"]
        if not isinstance(over, bool):
            raise _fail("over", "must be true or false")
        if len(reports) != game_index - 1:
            raise _fail(
                "game_index", f"{game_index} after {len(reports)} reports (expected {len(reports) + 1})"
            )
        return cls(
            players=players,
            names=names,
            game_index=game_index,
            next_prologue=next_prologue,
            facts=frozenset(facts_raw),
            adventure_changes=adventure,
            abilities=abilities,
            paths=dict(paths_raw),
            checkmarks=checkmarks,
            promotions=tuple(promotions),
            reports=reports,
            over=over,
        )


_STATE_KEYS = frozenset(
    {
        "version",
        "players",
        "names",
        "game_index",
        "next_prologue",
        "facts",
        "adventure_changes",
        "abilities",
        "paths",
        "checkmarks",
        "promotions",
        "reports",
        "over",
    }
)


def _upgrade_v1(data: dict[str, Any]) -> dict[str, Any]:
    """A version 1 state as version 2: each Mission Report names the next game's prologue (the
    next report's prologue; the state's `next_prologue` for the last, 0 once the campaign is
    over). Shapes are left to the strict reader that follows."""
    reports = data.get("reports")
    if not isinstance(reports, list) or not all(isinstance(r, dict) for r in reports):
        return data | {"version": CAMPAIGN_STATE_VERSION}
    upgraded = []
    for i, r in enumerate(reports):
        if i + 1 < len(reports):
            nxt = reports[i + 1].get("prologue", 0)
        else:
            nxt = 0 if data.get("over") is True else data.get("next_prologue", 0)
        upgraded.append(dict(r) if "next_prologue" in r else r | {"next_prologue": nxt})
    return data | {"version": CAMPAIGN_STATE_VERSION, "reports": upgraded}


def _name(value: Any, what: str) -> str:
    name = _str(value, what)
    if len(name) > _NAME_MAX or not name.isprintable() or name != name.strip():
        raise _fail(what, f"a name is printable, trimmed and at most {_NAME_MAX} characters")
    return name


def new_campaign(
    players: int, names: Sequence[str] | None = None, content: LegacyContent | None = None
) -> CampaignState:
    """A campaign before its first game: the Book's first prologue next, no changes yet, every
    seat's deck box named (`names`, or `DEFAULT_NAMES`)."""
    c = _content(content)
    lo, hi = c.rules["players"]
    if isinstance(players, bool) or not isinstance(players, int) or not lo <= players <= hi:
        raise ValueError(f"a campaign has {lo} to {hi} players, not {players!r}")
    chosen = tuple(names) if names is not None else DEFAULT_NAMES[:players]
    if len(chosen) != players:
        raise ValueError(f"{len(chosen)} names for {players} players")
    for i, n in enumerate(chosen):
        _name(n, f"names[{i}]")
    return CampaignState(
        players=players,
        names=chosen,
        game_index=1,
        next_prologue=c.first_prologue,
        checkmarks=(0,) * players,
        promotions=((),) * players,
    )


# --- permanent ops -----------------------------------------------------------------------------


def apply_permanent(
    state: CampaignState, effect: Effect, content: LegacyContent | None = None, passage: int = 0
) -> CampaignState:
    """The state after one permanent op of a passage (`passage` only names it in errors).

    The checks are the loader's walk's (the same code): never more copies of a card than the box
    holds, never fewer than 0, no ability twice, no more abilities than Franchise slots. Paths
    are checked per passage, not per op (a passage may block one path before it reveals the
    detour): call `end_passage` after a prologue's ops (`close_game` checks after the
    epilogue), or use `apply_passage` for a passage's resolved ops. `next_game` must
    name the prologue of the next game (`game_index + 1`); it and `end_campaign` are refused
    once the campaign is over. Raises ValueError (ContentError for a broken rule, naming the
    passage)."""
    c = _content(content)
    op = effect.op
    if op not in PERMANENT_OPS:
        raise ValueError(
            f"op {op!r} is not a permanent campaign op (allowed: {', '.join(sorted(PERMANENT_OPS))})"
        )
    if op in ("next_game", "end_campaign"):
        if state.over:
            raise ValueError(f"the campaign is over: {op} cannot resolve")
        if op == "end_campaign":
            return replace(state, over=True)
        target = c.passages.get(effect.n)
        if target is None or target.kind != "prologue" or target.game != state.game_index + 1:
            raise ValueError(f"next_game {effect.n}: not the prologue of game {state.game_index + 1}")
        return replace(state, next_prologue=effect.n)
    _check_ref(c, effect)
    walk = _walk_from(c, state)
    walk.run(passage, [effect])
    return _state_from_walk(c, state, walk, effect)


def apply_passage(
    state: CampaignState, effects: Sequence[Effect], passage: int, content: LegacyContent | None = None
) -> CampaignState:
    """Apply a passage's resolved permanent ops in order (choices and conditions already
    taken), then `end_passage`."""
    c = _content(content)
    for e in effects:
        state = apply_permanent(state, e, c, passage)
    end_passage(state, passage, c)
    return state


def end_passage(state: CampaignState, passage: int, content: LegacyContent | None = None) -> None:
    """The loader's check after a passage: with the campaign's path changes, every artifact of
    every side is still reachable from HQ on foot and no space is a trap. Raises ContentError
    naming the passage."""
    c = _content(content)
    _check_paths(c, _walk_from(c, state), passage)


def _check_ref(c: LegacyContent, effect: Effect) -> None:
    """Refuse a name the content does not define (the Book's own are checked on load)."""
    op, arg = effect.op, effect.arg
    known: bool
    if op == "record_fact":
        known = arg in c.facts
    elif op == "add_card":
        known = arg in c.campaign_cards
    elif op == "remove_card":
        known = arg in c.adventure or arg in c.campaign_cards
    elif op == "gain_ability":
        known = arg in c.franchise.abilities
    else:
        side, _, pid = arg.partition(":")
        board = c.boards.get(side)
        known = board is not None and pid in board.path_index
        if known and op == "reveal_path" and board is not None:
            known = board.paths[board.path_index[pid]].hidden
    if not known:
        raise ValueError(f"{op}: {arg!r} is not in the content")
    if op in ("add_card", "remove_card") and effect.n < 1:
        raise ValueError(f"{op} {arg}: copies must be at least 1, not {effect.n}")


def _walk_from(c: LegacyContent, state: CampaignState) -> _ContentWalk:
    """The loader's walk positioned at `state`, so its op code (and checks) apply."""
    w = _ContentWalk(c, (), state.facts)
    w.adventure = dict(adventure_counts(state, c))
    w.abilities = list(state.abilities)
    w.revealed = {p for p, how in state.paths.items() if how == PATH_OPENED}
    w.blocked = {p for p, how in state.paths.items() if how == PATH_BLOCKED}
    return w


def _state_from_walk(
    c: LegacyContent, state: CampaignState, w: _ContentWalk, effect: Effect
) -> CampaignState:
    """Read the walk back into a state; a path op's latest value wins, as in the walk."""
    paths = dict(state.paths)
    if effect.op in ("reveal_path", "block_path"):
        paths[effect.arg] = PATH_OPENED if effect.op == "reveal_path" else PATH_BLOCKED
    changes: dict[str, int] = {}
    for cid in sorted(set(c.adventure) | set(w.adventure)):
        delta = w.adventure.get(cid, 0) - c.adventure.get(cid, 0)
        if delta:
            changes[cid] = delta
    return replace(
        state,
        facts=frozenset(w.facts),
        adventure_changes=changes,
        abilities=tuple(w.abilities),
        paths=paths,
    )


# --- components --------------------------------------------------------------------------------


def adventure_counts(state: CampaignState, content: LegacyContent | None = None) -> dict[str, int]:
    """Card id -> copies in the campaign's Adventure deck now (cards with 0 copies left out)."""
    c = _content(content)
    ids = sorted(set(c.adventure) | set(state.adventure_changes))
    counts = {cid: c.adventure.get(cid, 0) + state.adventure_changes.get(cid, 0) for cid in ids}
    return {cid: n for cid, n in counts.items() if n}


def adventure_deck(state: CampaignState, content: LegacyContent | None = None) -> list[str]:
    """The Adventure deck as card ids, one per copy, sorted by id (the canonical order the
    engine shuffles from with its own seeded RNG)."""
    return [cid for cid, n in adventure_counts(state, content).items() for _ in range(n)]


def path_state(state: CampaignState, side: str) -> tuple[frozenset[str], frozenset[str]]:
    """(revealed, blocked) path ids of board `side` (ids without the `side:` prefix), the two
    arguments `Board.open_paths` takes."""
    prefix = side + ":"
    revealed = frozenset(
        k[len(prefix) :] for k, v in state.paths.items() if k.startswith(prefix) and v == PATH_OPENED
    )
    blocked = frozenset(
        k[len(prefix) :] for k, v in state.paths.items() if k.startswith(prefix) and v == PATH_BLOCKED
    )
    return revealed, blocked


def open_paths(state: CampaignState, content: LegacyContent | None, side: str) -> frozenset[int]:
    """Indices into `content.boards[side].paths` of the paths usable in this campaign: not
    hidden or revealed, and not blocked."""
    c = _content(content)
    revealed, blocked = path_state(state, side)
    return c.boards[side].open_paths(revealed, blocked)


def starting_deck(state: CampaignState, seat: int, content: LegacyContent | None = None) -> list[str]:
    """Seat `seat`'s starting deck as card ids, one per copy, sorted by id: starting.json with
    each promotion's `replace` card swapped for its upgrade."""
    c = _content(content)
    counts = dict(c.starting)
    replaced = {p.with_: p.replace for p in c.promotions.values()}
    for upgrade in state.promotions[seat]:
        counts[replaced[upgrade]] -= 1
        counts[upgrade] = counts.get(upgrade, 0) + 1
    return [cid for cid in sorted(counts) for _ in range(counts[cid])]


# --- end of a game -----------------------------------------------------------------------------


def close_game(
    state: CampaignState, report: MissionReport, content: LegacyContent | None = None
) -> CampaignState:
    """The state after game `state.game_index`: its Mission Report appended, the Employee
    Reviews done (module docstring), `game_index` + 1. Call it after the epilogue resolved:
    unless the campaign is over, `next_prologue` must already name the next game's prologue."""
    c = _content(content)
    if report.game_index != state.game_index:
        raise ValueError(f"report for game {report.game_index}, the campaign is at game {state.game_index}")
    if len(report.scores) != state.players or not 0 <= report.mvp < state.players:
        raise ValueError(f"the report's seats do not match the campaign's {state.players} players")
    for s in (*report.escaped, *report.knocked_out):
        if not 0 <= s < state.players:
            raise ValueError(f"seat {s} is not at the table")
    end_passage(state, report.epilogue, c)
    if not state.over:
        nxt = c.passages.get(state.next_prologue)
        if nxt is None or nxt.game != state.game_index + 1:
            raise ValueError("the epilogue named no next game (resolve next_game or end_campaign first)")
    per_promotion: int = c.rules["checkmarks_per_promotion"]
    earners: set[int] = set()
    if "mvp" in c.rules["checkmark_for"]:
        earners.add(report.mvp)
    if "escaped" in c.rules["checkmark_for"]:
        earners |= set(report.escaped)
    checkmarks = list(state.checkmarks)
    promotions = [list(p) for p in state.promotions]
    for seat in sorted(earners):
        checkmarks[seat] += 1
        if checkmarks[seat] >= per_promotion:
            checkmarks[seat] = 0
            upgrade = _promotion_for(c, promotions, seat)
            if upgrade is not None:
                promotions[seat].append(upgrade)
    # the Mission Report names the next game's Prologue (checklist: "each game's Prologue named
    # by the Mission Report of the game before")
    report = replace(report, next_prologue=0 if state.over else state.next_prologue)
    return replace(
        state,
        reports=(*state.reports, report),
        checkmarks=tuple(checkmarks),
        promotions=tuple(tuple(p) for p in promotions),
        game_index=state.game_index + 1,
    )


def _promotion_for(c: LegacyContent, promotions: Sequence[Sequence[str]], seat: int) -> str | None:
    """The first reviews.json entry seat can take: its `replace` card still in the seat's
    starting deck, its upgrade still in the box."""
    for p in c.promotions.values():
        in_deck = c.starting.get(p.replace, 0) - sum(
            1 for u in promotions[seat] if _replace_of(c, u) == p.replace
        )
        used = sum(1 for seat_ups in promotions for u in seat_ups if u == p.with_)
        if in_deck > 0 and used < c.upgrades.get(p.with_, 0):
            return p.with_
    return None


def _replace_of(c: LegacyContent, upgrade: str) -> str:
    for p in c.promotions.values():
        if p.with_ == upgrade:
            return p.replace
    raise ValueError(f"unknown upgrade card {upgrade!r}")
