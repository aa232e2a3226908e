"""Decision requests built as bytes, each part encoded once and reused while it is unchanged.

Protobuf's encoding of a message is the concatenation of its fields' encodings in field-number
order (a repeated message field: one length-delimited record per element). So a typed
observation can be kept per seat as one encoded part per field: from one decision to the next
most fields are unchanged (a turn changes the pool, one player and a few piles), and only the
changed ones are encoded again. The same holds for the decision request around it: the
observation and the legal actions go in as bytes, the few scalar fields are encoded by protobuf
itself. What a bot receives is the message `messages.decision_request` builds, byte for byte
(tests/referee/test_wire_bytes.py compares both on every decision of whole games).

A game's codec describes its observation message with an `ObservationTable`: for every field,
the observation key of the same name and how its value becomes the field's value.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from referee.core.game import Action, canonical_json
from referee.wire._proto.arena.v1 import bot_pb2, common_pb2

__all__ = [
    "ActionCache",
    "Each",
    "ObservationCache",
    "ObservationTable",
    "Volatile",
    "json_observation",
    "len_field",
    "scalar_encoder",
    "varint",
]

#: an observation value -> the message field's value (a message, a list, a scalar)
Converter = Callable[[Any], Any]


def varint(n: int) -> bytes:
    """Protobuf's base-128 varint of a non-negative int."""
    if n < 0x80:
        return bytes((n,))
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def len_field(number: int, payload: bytes) -> bytes:
    """The encoding of a length-delimited field (a message, bytes or a string) `number`."""
    return varint((number << 3) | 2) + varint(len(payload)) + payload


@dataclass(frozen=True, slots=True)
class Each:
    """A repeated message field: `convert` turns one element into its message; each element is
    encoded and reused on its own (one player changes, the others' bytes are kept)."""

    convert: Converter


@dataclass(frozen=True, slots=True)
class Volatile:
    """A field never reused from one decision to the next: its value may share objects with
    the engine's state (a pending choice's options), which could change them in place while
    an equal-looking copy is kept here."""

    convert: Converter | None = None


_INT_RANGES = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63),
}


def scalar_encoder(fd: Any) -> Callable[[Any], bytes | None] | None:
    """A direct encoder of a singular int32/int64/bool/string field: the field's encoding, or
    None for a value it does not take as it is (another type, out of range: protobuf then
    encodes it, or refuses it, as it would in the whole message). None if the field is of
    another kind."""
    if fd.is_repeated or fd.message_type is not None:
        return None
    presence = fd.has_presence
    varint_tag = varint(fd.number << 3)
    kind = fd.type
    if kind in _INT_RANGES:
        low, high = _INT_RANGES[kind]

        def encode_int(v: Any) -> bytes | None:
            if type(v) is not int or not low <= v < high:
                return None
            if v == 0 and not presence:
                return b""
            return varint_tag + varint(v if v >= 0 else v + 2**64)

        return encode_int
    if kind == FieldDescriptor.TYPE_BOOL:
        true, false = varint_tag + b"\x01", b"" if not presence else varint_tag + b"\x00"

        def encode_bool(v: Any) -> bytes | None:
            if type(v) is not bool:
                return None
            return true if v else false

        return encode_bool
    if kind == FieldDescriptor.TYPE_STRING:
        number = fd.number

        def encode_str(v: Any) -> bytes | None:
            if type(v) is not str:
                return None
            if not v and not presence:
                return b""
            return len_field(number, v.encode())

        return encode_str
    return None


@dataclass(frozen=True, slots=True)
class _Field:
    key: str
    number: int
    convert: Converter | None
    each: bool
    volatile: bool
    #: the direct encoder of a plain scalar field (`scalar_encoder`)
    scalar: Callable[[Any], bytes | None] | None = None


@dataclass(frozen=True, slots=True)
class _Run:
    """Fields encoded together: one `Each` or `Volatile` field, or consecutive plain fields
    whose values are read at once (`get`) and compared as one tuple."""

    fields: tuple[_Field, ...]
    get: Callable[[Mapping[str, Any]], tuple[Any, ...]]
    plain: bool


class ObservationTable:
    """How a game's observation dict becomes its typed message (`message`, carried in the
    `Observation` oneof field `oneof`): `fields` gives, for every field of the message, the
    converter of the observation value with the same key (None: the value as it is; `Each`;
    `Volatile`). `strict`: an observation key the message lacks is a KeyError (the referee then
    sends JSON) instead of being left out."""

    def __init__(
        self,
        message: type[Message],
        oneof: str,
        fields: Mapping[str, Converter | Each | Volatile | None],
        *,
        strict: bool = False,
    ) -> None:
        descriptor = message.DESCRIPTOR
        names = set(descriptor.fields_by_name)
        if set(fields) != names:  # a codec's bug: caught on import, by every test
            raise ValueError(
                f"{descriptor.full_name}: table fields {sorted(set(fields) ^ names)} do not match"
            )
        self.message = message
        self.oneof = oneof
        self.oneof_number: int = bot_pb2.Observation.DESCRIPTOR.fields_by_name[oneof].number
        self.strict = strict
        self.keys = frozenset(names)
        table = []
        for key, spec in fields.items():
            fd = descriptor.fields_by_name[key]
            if isinstance(spec, Each):
                table.append(_Field(key, fd.number, spec.convert, True, False))
            elif isinstance(spec, Volatile):
                table.append(_Field(key, fd.number, spec.convert, False, True))
            else:
                scalar = scalar_encoder(fd) if spec is None else None
                table.append(_Field(key, fd.number, spec, False, False, scalar))
        # encoded in field-number order, as protobuf encodes a whole message
        self.fields: tuple[_Field, ...] = tuple(sorted(table, key=lambda f: f.number))
        runs: list[list[_Field]] = []
        for f in self.fields:
            plain = not (f.each or f.volatile)
            if plain and runs and not (runs[-1][-1].each or runs[-1][-1].volatile):
                runs[-1].append(f)
            else:
                runs.append([f])
        self.runs: tuple[_Run, ...] = tuple(_run(r) for r in runs)

    def _check(self, obs: Mapping[str, Any]) -> None:
        if self.strict and not self.keys.issuperset(obs):
            unknown = sorted(set(obs) - self.keys)
            raise KeyError(f"{self.oneof} observation keys without a typed field: {unknown}")

    def _value(self, f: _Field, value: Any) -> Any:
        if f.each:
            assert f.convert is not None
            return [f.convert(v) for v in value]
        return value if f.convert is None else f.convert(value)

    def observation(self, obs: Mapping[str, Any]) -> bot_pb2.Observation:
        """The whole typed message, wrapped in the Observation oneof."""
        self._check(obs)
        msg = self.message(**{f.key: self._value(f, obs[f.key]) for f in self.fields})
        wrapped = bot_pb2.Observation()
        getattr(wrapped, self.oneof).CopyFrom(msg)
        return wrapped

    def encode_field(self, f: _Field, value: Any) -> bytes:
        """One field's encoding (b"" for a default value, as in the whole message)."""
        if f.scalar is not None:
            encoded = f.scalar(value)
            if encoded is not None:
                return encoded
        converted = self._value(f, value)
        if converted is None:  # an unset field (a message or an optional scalar)
            return b""
        return self.message(**{f.key: converted}).SerializeToString()

    def element(self, f: _Field, value: Any) -> bytes:
        """One element of a repeated message field, encoded as a record of that field."""
        assert f.convert is not None
        return len_field(f.number, f.convert(value).SerializeToString())

    def cache(self) -> ObservationCache:
        """An empty per-seat cache of this game's encoded fields."""
        return ObservationCache(self)


class ObservationCache:
    """One seat's last observation, field by field, with each field's encoding (`Observation`
    bytes out). The values kept are the observation's own (the engine builds a new dict and new
    containers for every observation); a `Volatile` field is encoded every time."""

    __slots__ = ("_last", "_table")

    def __init__(self, table: ObservationTable) -> None:
        self._table = table
        #: per run of fields (`ObservationTable.runs`): what was encoded last, and how
        self._last: list[Any] = [None] * len(table.runs)

    def encode(self, obs: Mapping[str, Any]) -> bytes:
        """The Observation message's encoding for `obs` (KeyError, ValueError, TypeError as the
        whole-message codec would raise)."""
        table = self._table
        if table.strict:
            table._check(obs)
        last = self._last
        parts: list[bytes] = []
        for i, run in enumerate(table.runs):
            values = run.get(obs)
            kept = last[i]
            if run.plain:
                # kept: (values, their encodings, the run's encoding)
                if kept is not None and kept[0] == values:
                    parts.append(kept[2])
                    continue
                encodings = [
                    old if kept is not None and kept[0][j] == v else table.encode_field(f, v)
                    for j, (f, v, old) in enumerate(
                        zip(run.fields, values, kept[1] if kept is not None else run.fields, strict=True)
                    )
                ]
                joined = b"".join(encodings)
                last[i] = (values, encodings, joined)
                parts.append(joined)
                continue
            f = run.fields[0]
            value = values[0]
            if f.volatile:
                parts.append(table.encode_field(f, value))
                continue
            # an `Each` field: kept is [(element, its record)], reused element by element
            elements: list[tuple[Any, bytes]] = []
            for j, v in enumerate(value):
                if kept is not None and j < len(kept) and kept[j][0] == v:
                    elements.append(kept[j])
                else:
                    elements.append((v, table.element(f, v)))
            last[i] = elements
            parts.extend(e[1] for e in elements)
        return len_field(table.oneof_number, b"".join(parts))


def _run(fields: list[_Field]) -> _Run:
    plain = not (fields[0].each or fields[0].volatile)
    if len(fields) == 1:
        key = fields[0].key

        def get_one(obs: Mapping[str, Any]) -> tuple[Any, ...]:
            return (obs[key],)

        return _Run(tuple(fields), get_one, plain)
    get: Callable[[Mapping[str, Any]], tuple[Any, ...]] = itemgetter(*(f.key for f in fields))
    return _Run(tuple(fields), get, plain)


def json_observation(obs: Mapping[str, Any]) -> bytes:
    """The encoding of the JSON fallback `Observation(json=...)`."""
    return bot_pb2.Observation(json=canonical_json(obs)).SerializeToString()


#: a typed action codec: (engine action, the deciding seat's observation) -> its message
ActionEncoder = Callable[[Action, Mapping[str, Any]], Message]
#: what a game's typed action depends on besides the action (its `action_context`)
ActionContext = Callable[[Action, Mapping[str, Any]], Hashable]

#: encoded legal actions kept (per game, for every match of it); past this the cache starts
#: over (bounded memory)
ACTION_CACHE_LIMIT = 4096


class ActionCache:
    """Encoded `LegalAction` records (field 6 of DecisionRequest) of one game, by action and,
    when the game's typed message reads the observation, by what it reads there
    (`context(action, obs)`): an action offered again is not encoded again. Without a
    `context` function only the untyped part is kept and the typed part is encoded each time.
    """

    __slots__ = ("_context", "_encoded", "_field", "_typed", "_untyped", "on_error")

    def __init__(
        self,
        typed: ActionEncoder | None,
        typed_field: int,
        context: ActionContext | None,
        on_error: Callable[[Action, Exception], None],
    ) -> None:
        self._typed = typed
        self._field = typed_field
        self._context = context
        self._untyped: dict[tuple[str, tuple[Any, ...], str], bytes] = {}
        self._encoded: dict[Hashable, bytes] = {}
        #: told about a typed encoding that failed (the action then goes with `args` only)
        self.on_error = on_error

    def _plain(self, action: Action) -> bytes:
        key = (action.kind, action.args, action.text)
        found = self._untyped.get(key)
        if found is None:
            args = [
                common_pb2.Arg(int_value=a) if isinstance(a, int) else common_pb2.Arg(string_value=a)
                for a in action.args
            ]
            found = common_pb2.LegalAction(kind=action.kind, args=args, text=action.text).SerializeToString()
            if len(self._untyped) >= ACTION_CACHE_LIMIT:
                self._untyped.clear()
            self._untyped[key] = found
        return found

    def _one(self, action: Action, obs: Mapping[str, Any]) -> bytes:
        plain = self._plain(action)
        if self._typed is None:
            return len_field(6, plain)
        try:
            typed = self._typed(action, obs).SerializeToString()
        except (ValueError, TypeError, KeyError, IndexError) as exc:
            self.on_error(action, exc)
            return len_field(6, plain)
        return len_field(6, plain + len_field(self._field, typed))

    def encode(self, actions: Sequence[Action], obs: Mapping[str, Any]) -> bytes:
        """The legal-action records of a decision, in the engine's order."""
        context = self._context
        if context is None or self._typed is None:
            return b"".join(self._one(a, obs) for a in actions)
        parts = []
        cache = self._encoded
        for action in actions:
            try:
                key = (action.kind, action.args, action.text, context(action, obs))
            except (ValueError, TypeError, KeyError, IndexError):
                parts.append(self._one(action, obs))  # the codec rules on it (and logs)
                continue
            found = cache.get(key)
            if found is None:
                found = self._one(action, obs)
                if len(cache) >= ACTION_CACHE_LIMIT:
                    cache.clear()
                cache[key] = found
            parts.append(found)
        return b"".join(parts)
