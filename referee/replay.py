"""Replays: a complete, verifiable record of one game.

Format (documented in `referee/REPLAY.md`). In memory a replay is the *expanded* document: the
header (engine and content versions, config, seed, seats, ...), one dict per step (decision id,
seat, index, the action's kind/args/text, an optional bot note and times, or a forfeit) and the
result. The recorder hashes the game state only at checkpoints (every :data:`CHECKPOINT_EVERY`
steps, at each forfeit and after the last step): hashing is most of a step's cost. The local
runner's `IndexRecorder` keeps only references per step and builds the same document on demand;
the referee's `CompactRecorder` keeps a few bytes per step and writes format 3 from them.

On disk (`dumps`/`encode`) a replay is format 3: the header, the chosen action indexes as one
integer array, the sparse extras (notes, default-action reasons, forfeits, times) and a chain
of checkpoint digests that binds the header (seat metadata and the initial state included) and
every step's record to the re-simulated state. Format 3 is format 2 with less of the chain
stored: the checkpoints' positions follow from the actions, the header and checkpoint links
keep 64 of their 128 bits (they only locate a fault; the final digest keeps all 128 and covers
everything), and the initial state's digest is bound into the header's link instead of stored.
`loads` reads formats 3, 2 and 1 (the expanded document itself), through one strict reader:
every field is type-checked and a malformed file ends in a one-line `ReplayError` naming the
field; the inflated size and the JSON nesting are capped. `verify` re-simulates the game and
checks every digest and the result.
"""

from __future__ import annotations

import copy
import gzip
import hashlib
import io
import json
import re
import time
import zlib
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final

from referee.core.game import Action, Game, IllegalAction, Result, canonical_json
from referee.games import game_spec

__all__ = [
    "CHAINED_VERSION",
    "CHECKPOINT_EVERY",
    "EXPANDED_VERSION",
    "FORMAT",
    "FORMAT_VERSION",
    "MAX_DEPTH",
    "MAX_INFLATED_BYTES",
    "CompactRecorder",
    "IndexRecorder",
    "ReplayError",
    "ReplayRecorder",
    "VerifyReport",
    "dumps",
    "encode",
    "load",
    "loads",
    "save",
    "simulate",
    "verify",
    "verify_file",
]

FORMAT: Final = "arena-replay"
#: the version `dumps` writes: compact, checkpoint digests chained over header and steps, the
#: chain stored in short form (positions implied, 64-bit links)
FORMAT_VERSION: Final = 3
#: the compact version written before format 3 (positions and 128-bit links stored)
CHAINED_VERSION: Final = 2
#: the in-memory layout, and the files written before format 2 (a digest after every step)
EXPANDED_VERSION: Final = 1
SUPPORTED_VERSIONS: Final = (EXPANDED_VERSION, CHAINED_VERSION, FORMAT_VERSION)
#: the state is hashed after every this many steps (and at forfeits and after the last step):
#: a fault is located to within this many steps, and hashing costs 1/64 of what it did
CHECKPOINT_EVERY: Final = 64
#: a replay inflating past this many bytes is refused (read in bounded chunks, never whole)
MAX_INFLATED_BYTES: Final = 64 * 1024 * 1024
#: JSON nested deeper than this is refused (a real replay nests about 8 deep)
MAX_DEPTH: Final = 48
NOTE_LIMIT: Final = 256

_DIGEST = re.compile(r"[0-9a-f]{32}")
#: hex digits format 3 stores of the header's and each checkpoint's link (64 bits)
_SHORT_LINK: Final = 16
_LINK = re.compile(r"[0-9a-f]{16}")
# step keys with a column of their own in formats 2 and 3; any other step key goes into "extra"
_STEP_KEYS: Final = frozenset(
    {"decision", "seat", "index", "action", "digest", "note", "ms", "cpu_ms", "reason", "forfeit"}
)
# format 2 and 3 keys that are not header: the body, the digests and the end
_BODY_KEYS: Final = frozenset(
    {
        "actions",
        "forfeits",
        "notes",
        "reasons",
        "ms",
        "cpu_ms",
        "extra",
        "checkpoints",
        "checkpoint_every",
        "header_digest",
        "final_digest",
    }
)
_END_KEYS: Final = ("result", "ended_by")
_NOT_HEADER: Final = frozenset({"format", "format_version", "steps", *_END_KEYS}) | _BODY_KEYS


class ReplayError(ValueError):
    """A replay is malformed, from another engine version, or does not re-simulate.

    The message is one line (a file's text never breaks it)."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).split()))


# --- recording -----------------------------------------------------------------------------


@dataclass
class ReplayRecorder:
    """Builds a replay while a game is played. Call `action` / `forfeit` after each step.

    The state is hashed only at checkpoints: every :data:`CHECKPOINT_EVERY`-th step, each
    forfeit, and the last step (in `finish`)."""

    game: Game
    seed: int
    config: Mapping[str, Any]
    seats: Sequence[Mapping[str, Any]]
    steps: list[dict[str, Any]] = field(default_factory=list)
    #: Unix time the game started (informational); None leaves it out, so that the same seed and
    #: actions give the same file bit for bit (the local runner)
    started: float | None = field(default_factory=time.time)

    def __post_init__(self) -> None:
        self.initial_digest = self.game.digest()

    def action(
        self,
        decision_id: int,
        seat: int,
        index: int,
        action: Action,
        *,
        note: str = "",
        millis: int | None = None,
        reason: str = "",
        cpu_millis: int | None = None,
    ) -> None:
        """Record an applied action (call after game.apply). `reason` marks a default action;
        `cpu_millis` is the bot's CPU time on it, when its launcher measured it."""
        step: dict[str, Any] = {
            "decision": decision_id,
            "seat": seat,
            "index": index,
            "action": action.to_json(),
        }
        if note:
            step["note"] = note[:NOTE_LIMIT]
        if millis is not None:
            step["ms"] = millis
        if cpu_millis is not None:
            step["cpu_ms"] = cpu_millis
        if reason:
            step["reason"] = reason
        self.steps.append(step)
        if len(self.steps) % CHECKPOINT_EVERY == 0:
            step["digest"] = self.game.digest()

    def forfeit(self, seat: int, reason: str) -> None:
        """Record a forfeit (call after game.forfeit)."""
        self.steps.append({"forfeit": seat, "reason": reason, "digest": self.game.digest()})

    def finish(self, ended_by: str = "game_over") -> dict[str, Any]:
        """The replay document (expanded). `ended_by` says why the match ended."""
        if self.steps and "digest" not in self.steps[-1]:
            self.steps[-1]["digest"] = self.game.digest()
        result = self.game.result().to_json() if self.game.is_over() else None
        return _document(self, self.steps, result, ended_by, self.started)


def _document(
    recorder: ReplayRecorder | IndexRecorder | CompactRecorder,
    steps: list[dict[str, Any]],
    result: dict[str, Any] | None,
    ended_by: str,
    started: float | None,
) -> dict[str, Any]:
    """The expanded replay document of a recorder's game."""
    game = recorder.game
    doc = {
        "format": FORMAT,
        "format_version": EXPANDED_VERSION,
        "game": game.name,
        "engine_version": game.engine_version,
        "content_version": game.content_version,
        "config": dict(recorder.config),
        "seed": recorder.seed,
        "seats": [dict(s) for s in recorder.seats],
        "initial_digest": recorder.initial_digest,
        "steps": steps,
        "result": result,
        "ended_by": ended_by,
    }
    if started is not None:
        doc["started_at"] = round(started, 3)
    return doc


class IndexRecorder:
    """The local runner's recorder: what `ReplayRecorder` records of a game played by actions
    alone (no notes, times or forfeits), kept as columns of references to objects that exist
    anyway (the decision's id and seat, the index, the applied action) plus the state digests
    at the same checkpoints. Nothing is built per step; `finish` returns a function that builds
    the expanded document, equal to `ReplayRecorder.finish`'s, when someone asks for it.

    A step's dict and its action's dict cost about 1 us per decision, 6% of a Clank! decision
    with its observation (`make bench`)."""

    __slots__ = (
        "_actions",
        "_digests",
        "_ids",
        "_indexes",
        "_seats",
        "config",
        "game",
        "initial_digest",
        "seats",
        "seed",
    )

    def __init__(
        self, game: Game, seed: int, config: Mapping[str, Any], seats: Sequence[Mapping[str, Any]]
    ) -> None:
        self.game = game
        self.seed = seed
        self.config = config
        self.seats = seats
        self.initial_digest = game.digest()
        self._ids: list[int] = []
        self._seats: list[int] = []
        self._indexes: list[int] = []
        self._actions: list[Action] = []
        #: step number (1-based) -> the state digest after it
        self._digests: dict[int, str] = {}

    def action(self, decision_id: int, seat: int, index: int, action: Action) -> None:
        """Record an applied action (call after game.apply)."""
        self._ids.append(decision_id)
        self._seats.append(seat)
        self._indexes.append(index)
        self._actions.append(action)
        n = len(self._indexes)
        if n % CHECKPOINT_EVERY == 0:
            self._digests[n] = self.game.digest()

    def finish(self, ended_by: str = "game_over") -> Callable[[], dict[str, Any]]:
        """Take the last digest and the result now; the returned function builds the document
        (expanded, as `ReplayRecorder.finish` gives it; a new one at each call)."""
        n = len(self._indexes)
        if n and n not in self._digests:
            self._digests[n] = self.game.digest()
        result = self.game.result().to_json() if self.game.is_over() else None

        def document() -> dict[str, Any]:
            digests = self._digests
            steps: list[dict[str, Any]] = []
            for n, (decision, seat, index, action) in enumerate(
                zip(self._ids, self._seats, self._indexes, self._actions, strict=True), start=1
            ):
                step = {"decision": decision, "seat": seat, "index": index, "action": action.to_json()}
                if n in digests:
                    step["digest"] = digests[n]
                steps.append(step)
            return _document(self, steps, copy.deepcopy(result), ended_by, None)

        return document


class CompactRecorder:
    """The referee's recorder: everything `ReplayRecorder` records (notes, times, default-action
    reasons, forfeits) kept as format 3 keeps it, in columns of a few bytes per step (the index,
    the wall and CPU milliseconds, the reason's number) and sparse tables for the rare rest.
    A match's memory does not grow by a step dict per decision (about 400 B each).

    `finish` takes the last digest and the result; `encode` / `dumps` then write the same bytes
    as `encode` / `dumps` of `ReplayRecorder.finish`'s document with the same `header` keys, at
    no step dict kept (the expanded document is `loads(dumps())`: it re-simulates). The
    decision ids, seats and actions are not kept: format 3 re-derives them from the indexes.
    """

    __slots__ = (
        "_cpu",
        "_digests",
        "_extra",
        "_forfeits",
        "_header",
        "_indexes",
        "_ms",
        "_notes",
        "_reason",
        "_reason_codes",
        "_reasons",
        "config",
        "game",
        "initial_digest",
        "seats",
        "seed",
        "started",
    )

    #: a missing time in the `_ms` / `_cpu` columns
    _NONE: Final = -(2**63)

    def __init__(
        self,
        game: Game,
        seed: int,
        config: Mapping[str, Any],
        seats: Sequence[Mapping[str, Any]],
        *,
        started: float | None = None,
    ) -> None:
        self.game = game
        self.seed = seed
        self.config = config
        self.seats = seats
        #: Unix time the game started (informational; now, unless given)
        self.started = time.time() if started is None else started
        self.initial_digest = game.digest()
        #: per step: the chosen index, -1 for a forfeit
        self._indexes = array("i")
        self._ms = array("q")
        #: created at the first step with a CPU time (most seats are not measured)
        self._cpu: array[int] | None = None
        #: per step: the number of its reason in `_reasons` ("" is 0); a handful of texts in a
        #: live match, but a past replay's steps (`record`) may each bring their own
        self._reason = array("I")
        self._reasons: list[str] = [""]
        self._reason_codes: dict[str, int] = {"": 0}
        #: sparse, by step number (1-based)
        self._notes: dict[int, str] = {}
        self._forfeits: dict[int, int] = {}
        self._digests: dict[int, str] = {}
        self._extra: dict[int, dict[str, Any]] = {}
        self._header: dict[str, Any] | None = None

    def __len__(self) -> int:
        return len(self._indexes)

    def _step(self, index: int, millis: int | None, cpu_millis: int | None, reason: str) -> int:
        """Append a step's columns; its number (1-based)."""
        self._indexes.append(index)
        self._ms.append(self._NONE if millis is None else millis)
        n = len(self._indexes)
        if cpu_millis is not None and self._cpu is None:
            self._cpu = array("q", [self._NONE]) * (n - 1)
        if self._cpu is not None:
            self._cpu.append(self._NONE if cpu_millis is None else cpu_millis)
        code = self._reason_codes.get(reason)
        if code is None:
            code = self._reason_codes[reason] = len(self._reasons)
            self._reasons.append(reason)
        self._reason.append(code)
        return n

    def action(
        self,
        decision_id: int,
        seat: int,
        index: int,
        action: Action,
        *,
        note: str = "",
        millis: int | None = None,
        reason: str = "",
        cpu_millis: int | None = None,
    ) -> None:
        """Record an applied action (call after game.apply), as `ReplayRecorder.action`."""
        del decision_id, seat, action  # re-derived from the index by re-simulation
        if index < 0:
            raise ValueError(f"action index {index} is negative")
        n = self._step(index, millis, cpu_millis, reason)
        if note:
            self._notes[n] = note[:NOTE_LIMIT]
        if n % CHECKPOINT_EVERY == 0:
            self._digests[n] = self.game.digest()

    def forfeit(self, seat: int, reason: str) -> None:
        """Record a forfeit (call after game.forfeit)."""
        n = self._step(-1, None, None, reason)
        self._forfeits[n] = seat
        self._digests[n] = self.game.digest()

    def record(self, step: Mapping[str, Any]) -> None:
        """Record a step given as an expanded replay's step (a past match's, already applied to
        the game: `arena replay rerun`). Its digest, if it has one, is kept as recorded."""
        if "forfeit" in step:
            n = self._step(-1, step.get("ms"), step.get("cpu_ms"), step["reason"])
            self._forfeits[n] = step["forfeit"]
        else:
            n = self._step(step["index"], step.get("ms"), step.get("cpu_ms"), step.get("reason", ""))
            if "note" in step:
                self._notes[n] = step["note"]
        if "digest" in step:
            self._digests[n] = step["digest"]
        others = {k: v for k, v in step.items() if k not in _STEP_KEYS}
        if others:
            self._extra.setdefault(n, {}).update(copy.deepcopy(others))

    @property
    def steps(self) -> _Appender:
        """Something with `append(step)`: `record` (for callers of `ReplayRecorder.steps`)."""
        return _Appender(self)

    def finish(self, ended_by: str = "game_over", **header: Any) -> None:
        """Take the last digest and the result now, with the header's extra keys (a copy: the
        replay is what they are now). Then `encode` / `dumps` write it (any thread)."""
        n = len(self._indexes)
        if n and n not in self._digests:
            self._digests[n] = self.game.digest()
        result = self.game.result().to_json() if self.game.is_over() else None
        doc = _document(self, [], result, ended_by, self.started)
        doc.update(header)
        doc = copy.deepcopy(doc)
        _check_header(doc)
        self._header = doc

    def _steps(self) -> Iterator[dict[str, Any]]:
        """Each step as format 3 sees it (built one at a time)."""
        cpu = self._cpu
        none = self._NONE
        for i, index in enumerate(self._indexes):
            n = i + 1
            step: dict[str, Any]
            reason = self._reasons[self._reason[i]]
            extra = self._extra.get(n)
            if index < 0:
                step = {"forfeit": self._forfeits[n], "reason": reason}
            else:
                step = {"index": index}
                if n in self._notes:
                    step["note"] = self._notes[n]
                if reason:
                    step["reason"] = reason
            if self._ms[i] != none:
                step["ms"] = self._ms[i]
            if cpu is not None and cpu[i] != none:
                step["cpu_ms"] = cpu[i]
            if extra is not None:
                step.update(extra)
            if n in self._digests:
                step["digest"] = self._digests[n]
            yield step

    def encode(self) -> bytes:
        """The format 3 bytes (uncompressed), as `encode` gives them; after `finish`."""
        if self._header is None:
            raise RuntimeError("CompactRecorder.encode before finish")
        return _write(self._header, self._steps(), len(self._indexes))

    def dumps(self) -> bytes:
        """The replay file's bytes, as `dumps` gives them; after `finish`."""
        return gzip.compress(self.encode(), compresslevel=9, mtime=0)


class _Appender:
    """`CompactRecorder.steps`: appending records a step."""

    __slots__ = ("_recorder",)

    def __init__(self, recorder: CompactRecorder) -> None:
        self._recorder = recorder

    def append(self, step: Mapping[str, Any]) -> None:
        """Record `step` (`CompactRecorder.record`)."""
        self._recorder.record(step)

    def __len__(self) -> int:
        return len(self._recorder)


# --- the digest chain (formats 2 and 3) -----------------------------------------------------


def _hash(*parts: str) -> str:
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]


def _header(doc: Mapping[str, Any], version: int) -> dict[str, Any]:
    """The header a compact format's first link covers: format 3 binds the initial state's
    digest into that link itself, so it is not a header field there."""
    skip = _NOT_HEADER if version == CHAINED_VERSION else _NOT_HEADER | {"initial_digest"}
    return {k: v for k, v in doc.items() if k not in skip}


def _header_link(doc: Mapping[str, Any], version: int, initial: str) -> str:
    """The chain's first link (format 2 stores it whole as `header_digest`; format 3 its first
    64 bits). `initial` is the state digest before the first step (format 3 only)."""
    header = canonical_json(_header(doc, version))
    if version == CHAINED_VERSION:
        return _hash("arena-replay/2 header", header)
    return _hash(f"arena-replay/{version} header", header, initial)


def _record(step: Mapping[str, Any]) -> dict[str, Any]:
    """What a step's checkpoint digest covers besides the state: everything recorded of it but
    what re-simulation derives (decision id, seat and action of an index) and the digest."""
    if "forfeit" in step:
        return {k: v for k, v in step.items() if k != "digest"}
    return {k: v for k, v in step.items() if k not in ("digest", "action", "decision", "seat")}


def _link(version: int, previous: str, n: int, state: str, records: Sequence[Mapping[str, Any]]) -> str:
    return _hash(f"arena-replay/{version} checkpoint", previous, str(n), state, canonical_json(list(records)))


def _final_digest(version: int, last: str, steps: int, doc: Mapping[str, Any]) -> str:
    end = {k: doc[k] for k in _END_KEYS if k in doc}
    if version != CHAINED_VERSION:
        end["result"] = doc.get("result")  # format 3 derives it on reading: absent and null are one
    return _hash(f"arena-replay/{version} final", last, str(steps), canonical_json(end))


def _is_checkpoint(n: int, count: int, forfeit: bool) -> bool:
    """Whether step n of `count` is a checkpoint: format 3 stores no positions, they are these."""
    return n % CHECKPOINT_EVERY == 0 or forfeit or n == count


def _initial_digest(doc: Mapping[str, Any]) -> str:
    """The state digest before the first step: the document's, or (a format 1 file written
    without one) the engine's for its header."""
    recorded = doc.get("initial_digest")
    if isinstance(recorded, str):
        return recorded
    return _start(doc).digest()


# --- writing -------------------------------------------------------------------------------


def encode(replay: Mapping[str, Any], *, version: int = FORMAT_VERSION) -> bytes:
    """Replay document -> format 3 canonical JSON bytes (uncompressed, deterministic).

    Checkpoints are every CHECKPOINT_EVERY-th step, the forfeits and the last step: each must
    carry its state digest (the recorders see to it). `version` 2 writes the format before
    (for the fixtures that test it is still read: `tests/fixtures/replays`)."""
    if version not in (CHAINED_VERSION, FORMAT_VERSION):
        raise ValueError(f"encode writes format {CHAINED_VERSION} or {FORMAT_VERSION}, not {version}")
    doc = load_document(replay)  # the strict reader: only a sound document is written
    steps: list[Mapping[str, Any]] = doc["steps"]
    return _write(doc, steps, len(steps), version)


def _write(
    doc: Mapping[str, Any], steps: Iterable[Mapping[str, Any]], count: int, version: int = FORMAT_VERSION
) -> bytes:
    """Format 3 (or 2) bytes of a checked header (`doc`, its "steps" ignored) and its `count`
    steps, each an expanded step or the part of one the format keeps (no decision, seat or
    action): `encode` gives the document's steps, `CompactRecorder` builds them one at a time."""
    clashing = sorted(set(doc) & _BODY_KEYS)
    if clashing:
        raise ReplayError(
            f"replay: {clashing[0]}: a header key may not be named like a format {version} field"
        )
    short = version == FORMAT_VERSION
    # format 3 stores nothing re-simulation derives: the initial digest (bound into the header's
    # link) and the result (bound by the final digest) are given back by reading
    derived = ("steps", "initial_digest", "result") if short else ("steps",)
    out: dict[str, Any] = {k: v for k, v in doc.items() if k not in derived}
    out["format_version"] = version
    if not short:
        out["checkpoint_every"] = CHECKPOINT_EVERY
    actions: list[int | None] = []
    forfeits: list[list[Any]] = []
    notes: list[list[Any]] = []
    reasons: list[list[Any]] = []
    extra: list[list[Any]] = []
    ms: list[int | None] = []
    cpu: list[int | None] = []
    checkpoints: list[Any] = []
    chain = header = _header_link(doc, version, _initial_digest(doc) if short else "")
    block: list[dict[str, Any]] = []
    for n, step in enumerate(steps, start=1):
        if "forfeit" in step:
            actions.append(None)
            forfeits.append([n, step["forfeit"], step["reason"]])
        else:
            actions.append(step["index"])
            if "note" in step:
                notes.append([n, step["note"]])
            if "reason" in step:
                reasons.append([n, step["reason"]])
        ms.append(step.get("ms"))
        cpu.append(step.get("cpu_ms"))
        others = {k: v for k, v in step.items() if k not in _STEP_KEYS}
        if others:
            extra.append([n, others])
        block.append(_record(step))
        if _is_checkpoint(n, count, "forfeit" in step):
            if "digest" not in step:
                raise ReplayError(f"replay: steps[{n - 1}].digest: missing (step {n} is a checkpoint)")
            chain = _link(version, chain, n, step["digest"], block)
            checkpoints.append(chain[:_SHORT_LINK] if short else [n, chain])
            block = []
    out["actions"] = actions
    for key, column in (("forfeits", forfeits), ("notes", notes), ("reasons", reasons), ("extra", extra)):
        if column:
            out[key] = column
    for key, values in (("ms", ms), ("cpu_ms", cpu)):
        if any(v is not None for v in values):
            out[key] = values
    out["checkpoints"] = checkpoints
    out["header_digest"] = header[:_SHORT_LINK] if short else header
    out["final_digest"] = _final_digest(version, chain, len(actions), doc)
    return canonical_json(out).encode()


def dumps(replay: Mapping[str, Any]) -> bytes:
    """Replay document -> format 3 file bytes: gzip (no timestamp) of `encode`; the same game
    gives the same bytes."""
    return gzip.compress(encode(replay), compresslevel=9, mtime=0)


def save(replay: Mapping[str, Any], path: Path) -> None:
    """Write a replay file (format 3)."""
    path.write_bytes(dumps(replay))


# --- reading -------------------------------------------------------------------------------


def _read_capped(stream: IO[bytes] | gzip.GzipFile, limit: int, what: str) -> bytes:
    out = bytearray()
    while chunk := stream.read(min(1 << 20, limit + 1 - len(out))):
        out += chunk
        if len(out) > limit:
            raise ReplayError(f"replay: the file {what} past the limit of {limit} bytes")
    return bytes(out)


def _inflate(stream: IO[bytes], limit: int) -> bytes:
    """The JSON bytes of a seekable stream: gzip inflated in bounded chunks (a gzip bomb stops
    at `limit`, having held at most `limit` bytes)."""
    head = stream.read(2)
    stream.seek(0)
    try:
        if head == b"\x1f\x8b":
            with gzip.GzipFile(fileobj=stream, mode="rb") as inflated:
                return _read_capped(inflated, limit, "inflates")
        return _read_capped(stream, limit, "is")
    except ReplayError:
        raise
    except (OSError, EOFError, ValueError, zlib.error) as exc:
        raise ReplayError(f"not a replay file: {exc}") from None


def _depth_ok(value: Any, limit: int) -> bool:
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            items: Any = item.values()
        elif isinstance(item, list):
            items = item
        else:
            continue
        if depth > limit:
            return False
        stack.extend((v, depth + 1) for v in items if isinstance(v, dict | list))
    return True


def _parse(raw: bytes) -> Any:
    try:
        doc = json.loads(raw)
    except RecursionError:
        raise ReplayError(f"replay: JSON nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # not JSON, not UTF-8, or an integer of over 4,300 digits
        raise ReplayError(f"not a replay file: {exc}") from None
    if not _depth_ok(doc, MAX_DEPTH):
        raise ReplayError(f"replay: JSON nested deeper than {MAX_DEPTH} levels")
    return doc


def loads(data: bytes, *, limit: int = MAX_INFLATED_BYTES) -> dict[str, Any]:
    """Compressed (or plain JSON) bytes of any supported format -> the expanded document.

    Raises ReplayError (one line, naming the field) for anything malformed. A format 2 or 3 file is
    expanded by re-simulation, which checks its digest chain on the way (see `verify`)."""
    return load_document(_parse(_inflate(io.BytesIO(data), limit)))


def load(path: Path, *, limit: int = MAX_INFLATED_BYTES) -> dict[str, Any]:
    """Read a replay file (streamed: neither the file nor its inflated form is read past `limit`)."""
    with path.open("rb") as stream:
        raw = _inflate(stream, limit)
    return load_document(_parse(raw))


# --- the strict reader ---------------------------------------------------------------------


def _type_name(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number"
    )


def _is(value: Any, kind: str) -> bool:
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "str":
        return isinstance(value, str)
    if kind == "dict":
        return isinstance(value, dict)
    if kind == "list":
        return isinstance(value, list)
    if kind == "digest":
        return isinstance(value, str) and _DIGEST.fullmatch(value) is not None
    if kind == "link":
        return isinstance(value, str) and _LINK.fullmatch(value) is not None
    raise AssertionError(kind)


_WANT = {
    "int": "an integer",
    "number": "a number",
    "str": "a string",
    "dict": "an object",
    "list": "an array",
    "digest": "32 hex digits",
    "link": "16 hex digits",
}


def _field(
    obj: Mapping[str, Any], key: str, kind: str, where: str, *, optional: bool = False, null: bool = False
) -> Any:
    """obj[key], checked to be of `kind`; ReplayError naming ``where.key`` otherwise."""
    if key not in obj:
        if optional:
            return None
        raise ReplayError(f"replay: {where}{key}: missing")
    value = obj[key]
    if value is None and null:
        return None
    if not _is(value, kind):
        raise ReplayError(f"replay: {where}{key}: expected {_WANT[kind]}, got {_type_name(value)}")
    return value


def _check_header(doc: Mapping[str, Any]) -> None:
    for key in ("game", "engine_version", "content_version"):
        _field(doc, key, "str", "")
    _field(doc, "config", "dict", "")
    _field(doc, "seed", "int", "")
    seats = _field(doc, "seats", "list", "")
    for i, seat in enumerate(seats):
        if not isinstance(seat, dict):
            raise ReplayError(f"replay: seats[{i}]: expected an object, got {_type_name(seat)}")
        for j, incident in enumerate(_field(seat, "incidents", "list", f"seats[{i}].", optional=True) or ()):
            if not isinstance(incident, dict):
                raise ReplayError(f"replay: seats[{i}].incidents[{j}]: expected an object")
    _field(doc, "initial_digest", "digest", "", optional=True)
    _field(doc, "result", "dict", "", optional=True, null=True)
    _field(doc, "ended_by", "str", "", optional=True)
    _field(doc, "started_at", "number", "", optional=True)


_OPTIONAL_STEP_FIELDS: Final = (("note", str), ("reason", str), ("ms", int), ("cpu_ms", int))


def _plain_action_step(step: Any) -> bool:
    """True for a well-formed action step: the common case, checked quickly (a replay is checked
    each time it is written, and this is most of that cost)."""
    if type(step) is not dict or "forfeit" in step:
        return False
    action = step.get("action")
    if not (
        type(step.get("decision")) is int
        and type(step.get("seat")) is int
        and type(step.get("index")) is int
        and type(action) is dict
        and type(action.get("kind")) is str
        and type(action.get("args")) is list
        and type(action.get("text", "")) is str
    ):
        return False
    for key, kind in _OPTIONAL_STEP_FIELDS:
        if key in step and type(step[key]) is not kind:
            return False
    return "digest" not in step or _is(step["digest"], "digest")


def _check_step(step: Any, i: int) -> None:
    if _plain_action_step(step):
        return
    where = f"steps[{i}]."
    if not isinstance(step, dict):
        raise ReplayError(f"replay: steps[{i}]: expected an object, got {_type_name(step)} (step {i + 1})")
    try:
        if "forfeit" in step:
            _field(step, "forfeit", "int", where)
            _field(step, "reason", "str", where)
        else:
            if "index" not in step and "action" not in step:
                raise ReplayError(f"replay: {where}action: missing (neither an action nor a forfeit)")
            _field(step, "decision", "int", where)
            _field(step, "seat", "int", where)
            _field(step, "index", "int", where)
            action = _field(step, "action", "dict", where)
            _field(action, "kind", "str", f"{where}action.")
            _field(action, "args", "list", f"{where}action.")
            _field(action, "text", "str", f"{where}action.", optional=True)
            _field(step, "note", "str", where, optional=True)
            _field(step, "reason", "str", where, optional=True)
        _field(step, "ms", "int", where, optional=True)
        _field(step, "cpu_ms", "int", where, optional=True)
        _field(step, "digest", "digest", where, optional=True)
    except ReplayError as exc:
        raise ReplayError(f"{exc} (step {i + 1})") from None


def _check_expanded(doc: Mapping[str, Any]) -> None:
    _check_header(doc)
    steps = _field(doc, "steps", "list", "")
    seats = len(doc["seats"])
    for i, step in enumerate(steps):
        _check_step(step, i)
        key = "forfeit" if "forfeit" in step else "seat"
        if not 0 <= step[key] < seats:
            raise ReplayError(f"replay: steps[{i}].{key}: seat {step[key]} does not exist (step {i + 1})")


def _pairs(doc: Mapping[str, Any], key: str, arity: int, kinds: Sequence[str], steps: int) -> list[list[Any]]:
    """A sparse column ``[[n, ...], ...]``: n a step number 1..steps, strictly increasing."""
    rows = _field(doc, key, "list", "", optional=True) or []
    last = 0
    for i, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != arity:
            raise ReplayError(f"replay: {key}[{i}]: expected [step, ...] of {arity} items")
        for j, kind in enumerate(kinds):
            if not _is(row[j], kind):
                raise ReplayError(
                    f"replay: {key}[{i}][{j}]: expected {_WANT[kind]}, got {_type_name(row[j])}"
                )
        if not last < row[0] <= steps:
            raise ReplayError(f"replay: {key}[{i}]: step {row[0]} out of order or past the last step {steps}")
        last = row[0]
    return rows


def _check_compact(doc: Mapping[str, Any], version: int) -> None:
    _check_header(doc)
    actions = _field(doc, "actions", "list", "")
    for i, a in enumerate(actions):
        if a is not None and not _is(a, "int"):
            raise ReplayError(
                f"replay: actions[{i}]: expected an integer or null, got {_type_name(a)} (step {i + 1})"
            )
    n = len(actions)
    forfeits = _pairs(doc, "forfeits", 3, ("int", "int", "str"), n)
    if {f[0] for f in forfeits} != {i + 1 for i, a in enumerate(actions) if a is None}:
        raise ReplayError("replay: forfeits: must name exactly the steps whose action is null")
    for i, (step, seat, _reason) in enumerate(forfeits):
        if not 0 <= seat < len(doc["seats"]):
            raise ReplayError(f"replay: forfeits[{i}]: seat {seat} does not exist (step {step})")
    _pairs(doc, "notes", 2, ("int", "str"), n)
    _pairs(doc, "reasons", 2, ("int", "str"), n)
    _pairs(doc, "extra", 2, ("int", "dict"), n)
    for key in ("ms", "cpu_ms"):
        column = _field(doc, key, "list", "", optional=True)
        if column is None:
            continue
        if len(column) != n:
            raise ReplayError(f"replay: {key}: {len(column)} entries for {n} steps")
        for i, v in enumerate(column):
            if v is not None and not _is(v, "int"):
                raise ReplayError(f"replay: {key}[{i}]: expected an integer or null, got {_type_name(v)}")
    if version == CHAINED_VERSION:
        checkpoints = _pairs(doc, "checkpoints", 2, ("int", "digest"), n)
        if n and (not checkpoints or checkpoints[-1][0] != n):
            raise ReplayError("replay: checkpoints: the last step must be a checkpoint")
        _field(doc, "checkpoint_every", "int", "", optional=True)
        _field(doc, "header_digest", "digest", "")
    else:
        for key in ("initial_digest", "result"):
            if key in doc:
                raise ReplayError(f"replay: {key}: format 3 derives it by re-simulation; it is not a field")
        links = _field(doc, "checkpoints", "list", "")
        expected = len(_checkpoint_steps(actions))
        if len(links) != expected:
            raise ReplayError(f"replay: checkpoints: {len(links)} links for {expected} checkpoints")
        for i, link in enumerate(links):
            if not _is(link, "link"):
                raise ReplayError(
                    f"replay: checkpoints[{i}]: expected {_WANT['link']}, got {_type_name(link)}"
                )
        _field(doc, "header_digest", "link", "")
    _field(doc, "final_digest", "digest", "")


def _checkpoint_steps(actions: Sequence[int | None]) -> list[int]:
    """Format 3's checkpoint positions (1-based) for its actions column (null: a forfeit)."""
    count = len(actions)
    return [n for n, a in enumerate(actions, start=1) if _is_checkpoint(n, count, a is None)]


def load_document(doc: Any) -> dict[str, Any]:
    """A parsed replay of any supported format, checked field by field -> the expanded document
    (a format 2 or 3 document is expanded by re-simulation, its digest chain checked on the way)."""
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ReplayError("not a replay file: missing format marker")
    version = doc.get("format_version")
    if version == EXPANDED_VERSION:
        _check_expanded(doc)
        return doc
    if version in (CHAINED_VERSION, FORMAT_VERSION):
        _check_compact(doc, version)
        return _expand(doc, version)
    raise ReplayError(
        f"replay format version {version!r} is not supported (this build reads {list(SUPPORTED_VERSIONS)})"
    )


# --- re-simulation -------------------------------------------------------------------------


def _engine_fault(n: int, exc: Exception) -> ReplayError:
    return ReplayError(f"step {n}: the engine refused it: {type(exc).__name__}: {exc}")


def _start(replay: Mapping[str, Any]) -> Game:
    """A new game as the replay's header describes it, checked against the header."""
    try:
        spec = game_spec(replay["game"])
    except KeyError as exc:
        raise ReplayError(f"replay: game: {exc}") from None
    # every released engine version stays playable: the replay's own rules re-simulate it
    if replay["engine_version"] not in spec.versions():
        raise ReplayError(
            f"replay needs engine {replay['engine_version']}, this build has {', '.join(spec.versions())}"
        )
    cls = spec.engine_class(replay["engine_version"])
    try:
        game = cls.new_game(replay["config"], int(replay["seed"]))
    except Exception as exc:  # the config is outside input: any refusal is the file's fault
        raise ReplayError(f"replay: config: {type(exc).__name__}: {exc}") from None
    if game.content_version != replay["content_version"]:
        raise ReplayError(
            f"replay needs content {replay['content_version']}, this build has {game.content_version}"
        )
    if len(replay["seats"]) != game.num_seats:
        raise ReplayError(f"replay: seats: {len(replay['seats'])} seats for a {game.num_seats}-seat game")
    if replay.get("initial_digest") not in (None, game.digest()):
        raise ReplayError("initial state digest differs")
    return game


def _result(game: Game) -> dict[str, Any] | None:
    """The result the engine gives the re-simulated game (null if it is not over)."""
    try:
        return game.result().to_json() if game.is_over() else None
    except Exception as exc:
        raise ReplayError(f"the engine cannot score the final state: {type(exc).__name__}: {exc}") from None


def _forfeit(game: Game, seat: int, n: int) -> None:
    if not 0 <= seat < game.num_seats:
        raise ReplayError(f"step {n}: forfeit of seat {seat}, which does not exist")
    if game.is_over():
        raise ReplayError(f"step {n}: the game is already over")
    try:
        game.forfeit(seat)
    except Exception as exc:
        raise _engine_fault(n, exc) from None


def _choose(game: Game, index: int, n: int) -> Action:
    d = game.decision()
    if d is None:
        raise ReplayError(f"step {n}: the game is already over")
    if not 0 <= index < len(d.actions):
        raise ReplayError(f"step {n}: index {index} out of range (0..{len(d.actions) - 1})")
    return d.actions[index]


def _expand(doc: Mapping[str, Any], version: int) -> dict[str, Any]:
    """Format 2 or 3 -> the expanded document, re-simulating to recover each step's decision
    id, seat and action, and checking the header digest and each checkpoint of the chain."""
    actions: list[int | None] = doc["actions"]
    initial = ""
    if version == CHAINED_VERSION:
        chain = _header_link(doc, version, initial)
        stored = {n: (link, len(link)) for n, link in doc["checkpoints"]}
        game = None
    else:
        game = _start(doc)  # the initial state is part of format 3's header link
        initial = game.digest()
        chain = _header_link(doc, version, initial)
        stored = {
            n: (link, _SHORT_LINK)
            for n, link in zip(_checkpoint_steps(actions), doc["checkpoints"], strict=True)
        }
    if chain[: len(doc["header_digest"])] != doc["header_digest"]:
        raise ReplayError(
            "replay: header_digest differs: the header (seats and their metadata, config, seed, "
            "versions) was changed after the replay was written"
        )
    if game is None:
        game = _start(doc)
    forfeits = {row[0]: row for row in doc.get("forfeits", [])}
    notes = dict(doc.get("notes", []))
    reasons = dict(doc.get("reasons", []))
    extra = dict(doc.get("extra", []))
    ms: list[int | None] = doc.get("ms") or [None] * len(actions)
    cpu: list[int | None] = doc.get("cpu_ms") or [None] * len(actions)
    steps: list[dict[str, Any]] = []
    block: list[dict[str, Any]] = []
    start = 1
    for n, index in enumerate(actions, start=1):
        step: dict[str, Any]
        if index is None:
            _, seat, reason = forfeits[n]
            _forfeit(game, seat, n)
            step = {"forfeit": seat, "reason": reason}
        else:
            d = game.decision()
            action = _choose(game, index, n)
            assert d is not None
            try:
                game.apply(action)
            except Exception as exc:
                raise _engine_fault(n, exc) from None
            step = {"decision": d.id, "seat": d.seat, "index": index, "action": action.to_json()}
            if n in notes:
                step["note"] = notes[n]
            if n in reasons:
                step["reason"] = reasons[n]
        if ms[n - 1] is not None:
            step["ms"] = ms[n - 1]
        if cpu[n - 1] is not None:
            step["cpu_ms"] = cpu[n - 1]
        for key, value in extra.get(n, {}).items():
            if key in _STEP_KEYS:
                raise ReplayError(f"replay: extra: step {n} names {key!r}, which has a field of its own")
            step[key] = value
        block.append(_record(step))
        if n in stored:
            try:
                state = game.digest()
            except Exception as exc:
                raise _engine_fault(n, exc) from None
            chain = _link(version, chain, n, state, block)
            link, length = stored[n]
            if chain[:length] != link:
                raise ReplayError(
                    f"step {n}: digest differs: the state after step {n} or the record of steps "
                    f"{start}..{n} (index, note, times, forfeit) differs from what was recorded"
                )
            step["digest"] = state
            block = []
            start = n + 1
        steps.append(step)
    out = {k: v for k, v in doc.items() if k not in _BODY_KEYS}
    if version != CHAINED_VERSION:
        out["initial_digest"] = initial
        out["result"] = _result(game)
    if _final_digest(version, chain, len(actions), out) != doc["final_digest"]:
        raise ReplayError(
            "replay: final_digest differs: the result or ended_by was changed after the replay was written"
        )
    out["format_version"] = EXPANDED_VERSION
    out["steps"] = steps
    return out


@dataclass(frozen=True)
class VerifyReport:
    """Outcome of `verify`: steps re-simulated, checkpoints whose digest matched, the result,
    and whether the seat metadata is covered by the digests (format 2 and 3 files only)."""

    steps: int
    result: Result | None
    checkpoints: int = 0
    format_version: int = EXPANDED_VERSION
    metadata_covered: bool = False

    def describe(self) -> str:
        """One line for people."""
        covered = (
            "the header and seat metadata included"
            if self.metadata_covered
            else f"format {self.format_version}: the seat metadata is not covered"
        )
        result = self.result.to_json() if self.result else None
        return (
            f"{self.steps} steps re-simulated, every digest matches ({self.checkpoints} checkpoints, "
            f"{covered}); result {result}"
        )


def simulate(replay: Mapping[str, Any]) -> Iterator[tuple[Game, Mapping[str, Any] | None]]:
    """Re-simulate an expanded replay, yielding (game, step) before each step and (game, None)
    at the end. Step n (1-based, as ``arena replay show`` numbers it) is ``replay["steps"][n-1]``.

    Checks the document first (ReplayError naming the field), then raises ReplayError at the
    first step that does not match: decision id, seat, action or, where the step carries one,
    the state digest. The yielded game is live: copy it before keeping it.
    """
    if replay.get("format_version") != EXPANDED_VERSION:
        raise ReplayError("simulate needs the expanded document (referee.replay.loads gives it)")
    _check_expanded(replay)
    game = _start(replay)
    for n, step in enumerate(replay["steps"], start=1):
        yield game, step
        if "forfeit" in step:
            _forfeit(game, step["forfeit"], n)
        else:
            d = game.decision()
            if d is None:
                raise ReplayError(f"step {n}: the game is already over")
            if step["decision"] != d.id or step["seat"] != d.seat:
                raise ReplayError(f"step {n}: expected decision {d.id} for seat {d.seat}")
            action = _choose(game, step["index"], n)
            recorded = step["action"]
            if action.kind != recorded["kind"] or list(action.args) != list(recorded["args"]):
                raise ReplayError(
                    f"step {n}: recorded action {canonical_json(recorded)[:200]} but index "
                    f"{step['index']} is {canonical_json(action.to_json())}"
                )
            try:
                game.apply(action)
            except IllegalAction as exc:
                raise ReplayError(f"step {n}: {exc}") from None
            except Exception as exc:
                raise _engine_fault(n, exc) from None
        if "digest" in step:
            try:
                state = game.digest()
            except Exception as exc:
                raise _engine_fault(n, exc) from None
            if state != step["digest"]:
                raise ReplayError(f"step {n}: state digest differs (recorded {step['digest']}, got {state})")
    yield game, None


def verify(replay: Mapping[str, Any]) -> VerifyReport:
    """Re-simulate every step and check every digest and the result. Raises ReplayError."""
    last: Game | None = None
    for last, _ in simulate(replay):  # noqa: B007 - the loop runs the simulation; we keep the end
        pass
    assert last is not None
    game = last
    try:
        result = game.result() if game.is_over() else None
    except Exception as exc:
        raise ReplayError(f"the engine cannot score the final state: {type(exc).__name__}: {exc}") from None
    recorded = replay.get("result")
    if recorded is not None:
        if result is None:
            raise ReplayError("replay records a result but the game is not over")
        if result.to_json() != recorded:
            raise ReplayError(
                f"result differs: recorded {canonical_json(recorded)[:300]}, "
                f"got {canonical_json(result.to_json())}"
            )
    checkpoints = sum(1 for s in replay["steps"] if "digest" in s)
    return VerifyReport(steps=len(replay["steps"]), result=result, checkpoints=checkpoints)


def verify_file(path: Path, *, limit: int = MAX_INFLATED_BYTES) -> VerifyReport:
    """Read and verify a replay file of any supported format (`arena replay verify`)."""
    with path.open("rb") as stream:
        doc = _parse(_inflate(stream, limit))
    version = doc.get("format_version") if isinstance(doc, dict) else None
    report = verify(load_document(doc))
    return VerifyReport(
        steps=report.steps,
        result=report.result,
        checkpoints=report.checkpoints,
        format_version=version if isinstance(version, int) else EXPANDED_VERSION,
        metadata_covered=version in (CHAINED_VERSION, FORMAT_VERSION),
    )
