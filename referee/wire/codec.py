"""Decision requests built as bytes, each part encoded once and reused while it is unchanged.

Protobuf's encoding of a message is the concatenation of its fields' encodings in field-number
order (a repeated message field: one length-delimited record per element). So a typed
observation can be kept per seat as one encoded part per field: from one decision to the next
most fields are unchanged (a turn changes the pool, one player and a few piles), and only the
changed ones are encoded again. The same holds one level down for a message given as a dict of
its own fields (`Fields`: a player whose hand size changed keeps its discard pile's bytes), and
for the decision request around the observation: the observation and the legal actions go in
as bytes, the few scalar fields are encoded by protobuf itself. What a bot receives is the
message `messages.decision_request` builds, byte for byte (tests/referee/test_wire_bytes.py
compares both on every decision of whole games).

A game's codec describes its observation message with an `ObservationTable`: for every field,
the observation key of the same name and how its value becomes the field's value.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import compress
from operator import itemgetter, ne
from typing import Any, TypeVar

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from referee.core.game import Action, canonical_json
from referee.wire._proto.arena.v1 import bot_pb2, common_pb2

__all__ = [
    "ActionCache",
    "Each",
    "Fields",
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
_R = TypeVar("_R")


def varint(n: int) -> bytes:
    """Protobuf's base-128 varint of a non-negative int."""
    if n < 0x80:
        return bytes((n,))
    if n < 0x4000:  # a length of up to 16 KiB: most message lengths here
        return bytes(((n & 0x7F) | 0x80, n >> 7))
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
class Fields:
    """A message field whose observation value is a dict of the message's own fields
    (`message(**value)`): the cache encodes it field by field, and reuses each part while its
    value is unchanged. `convert` (default `message(**value)`) makes the message otherwise: for
    the whole message, and for a value that is not a dict with exactly the message's field
    names (None, a missing or an unknown key), which is then encoded as a whole, as before."""

    message: type[Message]
    convert: Converter | None = None

    def to_message(self, value: Any) -> Any:
        """The field's value: what protobuf is given for it."""
        return self.message(**value) if self.convert is None else self.convert(value)


@dataclass(frozen=True, slots=True)
class Each:
    """A repeated message field: `convert` turns one element into its message; each element is
    encoded and reused on its own (one player changes, the others' bytes are kept). With a
    `Fields`, an element that changed is encoded again field by field too."""

    convert: Converter | Fields


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


def _none(_value: Any) -> None:
    return None


def scalar_encoder(fd: Any) -> Callable[[Any], bytes | None] | None:
    """A direct encoder of a singular int32/int64/bool/string field: the field's encoding, or
    None for a value it does not take as it is (another type, out of range: protobuf then
    encodes it, or refuses it, as it would in the whole message). None if the field is of
    another kind."""
    return _scalar(fd, _none)


#: how many encodings of distinct values a field's encoder keeps (the values of a game's
#: observation repeat: card ids, rooms, small counts); past this it starts over
VALUES_KEPT = 4096


def _scalar(fd: Any, other: Callable[[Any], _R]) -> Callable[[Any], bytes | _R] | None:
    """`scalar_encoder`, a value it does not take as it is given to `other`. Each value's
    encoding is kept, so that a value seen before costs one dict look-up."""
    if fd.is_repeated or fd.message_type is not None:
        return None
    presence = fd.has_presence
    varint_tag = varint(fd.number << 3)
    kind = fd.type
    if kind in _INT_RANGES:
        low, high = _INT_RANGES[kind]
        ints: dict[int, bytes] = {}

        def encode_int(v: Any) -> bytes | _R:
            if type(v) is int:
                found = ints.get(v)
                if found is not None:
                    return found
                if low <= v < high:
                    encoded = (
                        b"" if v == 0 and not presence else varint_tag + varint(v if v >= 0 else v + 2**64)
                    )
                    if len(ints) >= VALUES_KEPT:
                        ints.clear()
                    ints[v] = encoded
                    return encoded
            return other(v)

        return encode_int
    if kind == FieldDescriptor.TYPE_BOOL:
        true, false = varint_tag + b"\x01", b"" if not presence else varint_tag + b"\x00"

        def encode_bool(v: Any) -> bytes | _R:
            if type(v) is bool:
                return true if v else false
            return other(v)

        return encode_bool
    if kind == FieldDescriptor.TYPE_STRING:
        number = fd.number
        strs: dict[str, bytes] = {}

        def encode_str(v: Any) -> bytes | _R:
            if type(v) is not str:
                return other(v)
            found = strs.get(v)
            if found is None:
                found = b"" if not v and not presence else len_field(number, v.encode())
                if len(strs) >= VALUES_KEPT:
                    strs.clear()
                strs[v] = found
            return found

        return encode_str
    return None


def repeated_encoder(fd: Any) -> Callable[[Any], bytes | None] | None:
    """A direct encoder of a repeated string field or of a packed repeated int32/int64 field,
    given a list: the field's encoding, or None for a value it does not take as it is (as
    `scalar_encoder`). None if the field is of another kind."""
    return _repeated(fd, _none)


def _repeated(fd: Any, other: Callable[[Any], _R]) -> Callable[[Any], bytes | _R] | None:
    """`repeated_encoder`, a value it does not take as it is given to `other`. Each string's
    record is kept (`VALUES_KEPT`)."""
    if not fd.is_repeated or fd.message_type is not None:
        return None
    number = fd.number
    if fd.type == FieldDescriptor.TYPE_STRING:
        records: dict[str, bytes] = {}

        def encode_strs(v: Any) -> bytes | _R:
            if type(v) is not list:
                return other(v)
            try:
                return b"".join(map(records.__getitem__, v))
            except (KeyError, TypeError):  # a string not seen yet (or not a string at all)
                pass
            for s in v:
                if type(s) is not str:
                    return other(v)
                if s not in records:
                    try:
                        data = s.encode()
                    except UnicodeEncodeError:
                        return other(v)
                    if len(records) >= VALUES_KEPT:
                        records.clear()
                    records[s] = len_field(number, data)
            return b"".join(map(records.__getitem__, v))

        return encode_strs
    if fd.type in _INT_RANGES and fd.is_packed:
        low, high = _INT_RANGES[fd.type]
        tag = varint((number << 3) | 2)

        def encode_ints(v: Any) -> bytes | _R:
            if type(v) is not list:
                return other(v)
            if not v:
                return b""
            if not all(type(x) is int and low <= x < high for x in v):
                return other(v)
            packed = b"".join(varint(x if x >= 0 else x + 2**64) for x in v)
            return tag + varint(len(packed)) + packed

        return encode_ints
    return None


def _getter(keys: Sequence[str]) -> Callable[[Mapping[str, Any]], tuple[Any, ...]]:
    """The values of `keys` in a dict, as a tuple (KeyError for a missing one)."""
    if len(keys) == 1:
        key = keys[0]
        return lambda d: (d[key],)
    get: Callable[[Mapping[str, Any]], tuple[Any, ...]] = itemgetter(*keys)
    return get


#: what a `Fields` value's parts were made from: (its values in field-number order, their
#: encodings)
_Parts = tuple[tuple[Any, ...], list[bytes], bytes]


class _FieldsEncoder:
    """The field-by-field encoding of a `Fields` field `number`: each field of the message
    directly (`scalar_encoder`, `repeated_encoder`) or, for the other kinds (maps, messages),
    by protobuf, in a message of that field alone, embedded as the whole message is (`embed`:
    a message -> its bytes as they go in the field; protobuf copies a message given to another
    message's constructor, which may reorder a map's entries)."""

    __slots__ = ("_encoders", "_get", "_indexes", "_n", "_tag")

    def __init__(self, message: type[Message], number: int, embed: Callable[[Message], bytes]) -> None:
        fds: list[Any] = sorted(message.DESCRIPTOR.fields, key=lambda fd: fd.number)
        names = [fd.name for fd in fds]
        self._n = len(names)
        self._get = _getter(names)
        self._encoders = tuple(_part_encoder(message, fd, embed) for fd in fds)
        self._indexes = range(len(fds))
        self._tag = varint((number << 3) | 2)

    def encode(self, value: Any, kept: _Parts | None) -> _Parts | None:
        """The field's values, the encoding of each, and the field's encoding (a record of
        it): `kept` if the values are equal, else with its parts reused where they are; None if
        `value` is not a dict of exactly the message's fields. Only the values are compared,
        not the dict they came from: what is kept stays small (a seat's last values are
        compared a whole round of matches later, out of the CPU's caches)."""
        if type(value) is not dict or len(value) != self._n:
            return None
        try:
            values = self._get(value)
        except KeyError:  # as many keys, not the same ones
            return None
        encoders = self._encoders
        if kept is None:
            parts = [encode(v) for encode, v in zip(encoders, values, strict=True)]
        elif kept[0] == values:
            return kept
        else:
            parts = kept[1].copy()
            for j in compress(self._indexes, map(ne, values, kept[0])):
                parts[j] = encoders[j](values[j])
        payload = b"".join(parts)
        return values, parts, self._tag + varint(len(payload)) + payload


def _part_encoder(
    message: type[Message], fd: Any, embed: Callable[[Message], bytes]
) -> Callable[[Any], bytes]:
    """One field of `message` -> its encoding in it."""
    name = fd.name

    def whole(v: Any) -> bytes:
        return embed(message(**{name: v}))

    return _scalar(fd, whole) or _repeated(fd, whole) or whole


def _unframe(encoded: bytes, tag: bytes) -> bytes:
    """The payload of a length-delimited field's encoding that starts with `tag`."""
    i = len(tag)
    while encoded[i] & 0x80:  # the length's varint
        i += 1
    return encoded[i + 1 :]


def _serialized(message: Message) -> bytes:
    encoded: bytes = message.SerializeToString()
    return encoded


@dataclass(frozen=True, slots=True)
class _Field:
    key: str
    number: int
    convert: Converter | None
    each: bool
    volatile: bool
    #: the observation value -> the field's encoding (b"" for a default value)
    encode: Callable[[Any], bytes]
    #: the field-by-field encoder of a `Fields` field (or of an `Each` field's elements)
    fields: _FieldsEncoder | None = None


def _plain(fd: Any) -> bool:
    """A field whose observation value goes into the message as it is: a scalar, a list of
    scalars or a map from scalars to scalars."""
    entry = fd.message_type
    if entry is None:
        return True
    return bool(entry.GetOptions().map_entry) and entry.fields_by_name["value"].message_type is None


class ObservationTable:
    """How a game's observation dict becomes its typed message (`message`, carried in the
    `Observation` oneof field `oneof`): `fields` gives, for the fields of the message, the
    converter of the observation value with the same key (None: the value as it is; `Each`;
    `Fields`; `Volatile`); a plain field it leaves out is sent as it is. `strict`: an
    observation key the message lacks is a KeyError (the referee then sends JSON) instead of
    being left out."""

    def __init__(
        self,
        message: type[Message],
        oneof: str,
        fields: Mapping[str, Converter | Each | Fields | Volatile | None],
        *,
        strict: bool = False,
    ) -> None:
        descriptor = message.DESCRIPTOR
        names = set(descriptor.fields_by_name)
        # a plain field (scalars, a list or map of them) left out of the table is sent as it is,
        # so a field added to the .proto and the observation needs no line here; a field of
        # message type must be listed (how its dict becomes the message), and a listed field
        # the message lacks is a codec's bug: both caught on import, by every test
        unlisted = sorted(names - set(fields))
        wrong = sorted(set(fields) - names)
        wrong += [n for n in unlisted if not _plain(descriptor.fields_by_name[n])]
        if wrong:
            raise ValueError(f"{descriptor.full_name}: table fields {wrong} do not match")
        fields = {**fields, **dict.fromkeys(unlisted)}
        self.message = message
        self.oneof = oneof
        self.oneof_number: int = bot_pb2.Observation.DESCRIPTOR.fields_by_name[oneof].number
        self.strict = strict
        self.keys = frozenset(names)
        table = []
        for key, spec in fields.items():
            fd = descriptor.fields_by_name[key]
            nested = None
            each: Converter
            convert: Converter | None
            if isinstance(spec, Each):
                if isinstance(spec.convert, Fields):
                    # an element's record is its message's bytes (`element`)
                    nested = _FieldsEncoder(spec.convert.message, fd.number, _serialized)
                    each = spec.convert.to_message
                else:
                    each = spec.convert
                encode = self._repeated_messages(key, each)
                table.append(_Field(key, fd.number, each, True, False, encode, nested))
                continue
            if isinstance(spec, Fields):
                nested = _FieldsEncoder(spec.message, fd.number, self._embedder(key, fd.number))
                convert = spec.to_message
            elif isinstance(spec, Volatile):
                convert = spec.convert
            else:
                convert = spec
            encode = self._encoder(fd, convert)
            table.append(_Field(key, fd.number, convert, False, isinstance(spec, Volatile), encode, nested))
        # encoded in field-number order, as protobuf encodes a whole message
        self.fields: tuple[_Field, ...] = tuple(sorted(table, key=lambda f: f.number))
        #: the fields visited at every decision rather than when their value changed:
        #: `Volatile` ones, `Each` ones (compared element by element there) and `Fields` ones
        #: (compared as their values, not the dict that holds them: `_FieldsEncoder.encode`)
        self.always = tuple(
            j for j, f in enumerate(self.fields) if f.volatile or f.each or f.fields is not None
        )
        #: the other fields: their indexes, and their values in an observation, in that order
        self.compared = tuple(j for j in range(len(self.fields)) if j not in self.always)
        keys = [self.fields[j].key for j in self.compared]
        self.get: Callable[[Mapping[str, Any]], tuple[Any, ...]] = _getter(keys) if keys else lambda _: ()
        self.tag = varint((self.oneof_number << 3) | 2)

    def _encoder(self, fd: Any, convert: Converter | None) -> Callable[[Any], bytes]:
        """The encoder of a singular field (`_Field.encode`): directly (`scalar_encoder`,
        `repeated_encoder`) or by protobuf, in a message of that field alone."""
        message, key = self.message, fd.name

        def whole(converted: Any) -> bytes:
            if converted is None:  # an unset field (a message or an optional scalar)
                return b""
            encoded: bytes = message(**{key: converted}).SerializeToString()
            return encoded

        direct = _scalar(fd, whole) or _repeated(fd, whole) or whole
        if convert is None:
            return direct
        return lambda value: direct(convert(value))

    def _repeated_messages(self, key: str, convert: Converter) -> Callable[[Any], bytes]:
        """The encoder of a whole `Each` field."""
        message = self.message

        def encode(value: Any) -> bytes:
            encoded: bytes = message(**{key: [convert(v) for v in value]}).SerializeToString()
            return encoded

        return encode

    def _embedder(self, key: str, number: int) -> Callable[[Message], bytes]:
        """A message -> its bytes in field `key` (as `encode_field` encodes it)."""
        outer, tag = self.message, varint((number << 3) | 2)

        def embed(inner: Message) -> bytes:
            return _unframe(outer(**{key: inner}).SerializeToString(), tag)

        return embed

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
        return f.encode(value)

    def element(self, f: _Field, value: Any) -> bytes:
        """One element of a repeated message field, encoded as a record of that field."""
        assert f.convert is not None
        return len_field(f.number, f.convert(value).SerializeToString())

    def cache(self) -> ObservationCache:
        """An empty per-seat cache of this game's encoded fields."""
        return ObservationCache(self)


#: what an `Each` field's elements were made from: per element, its value and its record
_Elements = list[tuple[Any, bytes]]
#: the same for an `Each` of `Fields`: per element, its parts (None: encoded by protobuf)
_FieldsElements = list[_Parts | None]


class ObservationCache:
    """One seat's last observation, field by field, with each field's encoding (`Observation`
    bytes out). The values kept are the observation's own (the engine builds a new dict and new
    containers for every observation); a `Volatile` field is encoded every time."""

    __slots__ = ("_kept", "_parts", "_table", "_values")

    def __init__(self, table: ObservationTable) -> None:
        self._table = table
        #: the last observation's values of `table.compared` (None: nothing encoded yet)
        self._values: tuple[Any, ...] | None = None
        #: per field, its encoding, and what was kept to encode it again (`_Parts`,
        #: `_Elements`, `_FieldsElements`)
        self._parts: list[bytes] = [b""] * len(table.fields)
        self._kept: list[Any] = [None] * len(table.fields)

    def encode(self, obs: Mapping[str, Any]) -> bytes:
        """The Observation message's encoding for `obs` (KeyError, ValueError, TypeError as the
        whole-message codec would raise)."""
        table = self._table
        if table.strict:
            table._check(obs)
        values = table.get(obs)
        last = self._values
        # the positions in `values` of the fields to encode again
        changed: Any = (
            range(len(values)) if last is None else compress(range(len(values)), map(ne, values, last))
        )
        fields, compared, parts, kept = table.fields, table.compared, self._parts, self._kept
        # the parts are replaced in place: after an error half way, everything is encoded again
        self._values = None
        for i in changed:
            j = compared[i]
            parts[j] = fields[j].encode(values[i])
        for j in table.always:
            f = fields[j]
            value = obs[f.key]
            if f.each:
                if f.fields is not None:
                    parts[j], kept[j] = self._each_fields(f, f.fields, value, kept[j])
                else:
                    parts[j], kept[j] = self._each(f, value, kept[j])
            elif f.fields is not None:
                found = kept[j] = f.fields.encode(value, kept[j])
                parts[j] = f.encode(value) if found is None else found[2]
            else:
                parts[j] = f.encode(value)
        self._values = values
        payload = b"".join(parts)
        return table.tag + varint(len(payload)) + payload

    def _each(self, f: _Field, value: Any, last: _Elements | None) -> tuple[bytes, _Elements]:
        """An `Each` field's records, the kept ones reused element by element."""
        elements: _Elements = []
        known = len(last) if last is not None else 0
        for j, v in enumerate(value):
            old = last[j] if last is not None and j < known else None
            if old is not None and old[0] == v:
                elements.append(old)
            else:
                elements.append((v, self._table.element(f, v)))
        return b"".join([e[1] for e in elements]), elements

    def _each_fields(
        self, f: _Field, nested: _FieldsEncoder, value: Any, last: _FieldsElements | None
    ) -> tuple[bytes, _FieldsElements]:
        """An `Each` of `Fields` field's records, each element's parts reused where unchanged."""
        records: list[bytes] = []
        elements: _FieldsElements = []
        known = len(last) if last is not None else 0
        for j, v in enumerate(value):
            found = nested.encode(v, last[j] if last is not None and j < known else None)
            records.append(self._table.element(f, v) if found is None else found[2])
            elements.append(found)
        return b"".join(records), elements


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
