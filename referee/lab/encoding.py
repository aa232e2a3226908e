"""A seat's observation (the engine's own ``observe(seat)``) as a fixed-shape numpy vector.

The encoding is the same for every game (README.md "Observation layout"): each leaf of the
observation JSON is hashed (CRC-32, stable on every machine) with its path into one of
`OBS_SIZE` slots. A number or bool adds its value at hash(path); a string adds 1.0 at
hash(path + "=" + text); null adds nothing. Collisions add up: the vector is a lossy but
deterministic view, and the raw dict stays available in the agent's ``info["observation"]``.

How it is computed (the layout above is the contract; this is only speed): a path's CRC-32 is
carried down the walk instead of the path's text, since ``crc32(path + tail) ==
crc32(tail, crc32(path))``; so a leaf costs one CRC of its own short tail (``/key``, ``/3`` or
``=text``, whose bytes are cached), the slots are summed in a Python list (float64: every slot
is a sum of small numbers, exact in float32 too) and turned into the array once. Order does not
matter to a sum, so dict keys are not sorted.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np
import numpy.typing as npt

#: length of every game's observation vector
OBS_SIZE = 512
#: every slot is clipped to [-OBS_BOUND, OBS_BOUND] (the observation space's bounds); the largest
#: slot seen in 3 random games of every game and player count was 1301
OBS_BOUND = 1e6

#: the bytes of each path tail met so far: "/key" for a dict key, "=text" for a string leaf;
#: bounded, so that observations with ever-new strings cannot grow it without end
_TAILS: dict[str, bytes] = {}
_EQUALS: dict[str, bytes] = {}
_CACHE_LIMIT = 1 << 16
#: "/0", "/1", ...: the tails of list positions
_INDEXES = [f"/{i}".encode() for i in range(256)]

_crc32 = zlib.crc32


def _tail(key: Any) -> bytes:
    tail = _TAILS.get(key)
    if tail is None:
        tail = f"/{key}".encode()
        if len(_TAILS) < _CACHE_LIMIT:
            _TAILS[key] = tail
    return tail


def _equals(text: str) -> bytes:
    tail = _EQUALS.get(text)
    if tail is None:
        tail = f"={text}".encode()
        if len(_EQUALS) < _CACHE_LIMIT:
            _EQUALS[text] = tail
    return tail


def _index(i: int) -> bytes:
    return _INDEXES[i] if i < len(_INDEXES) else f"/{i}".encode()


def _walk(value: Any, crc: int, out: list[float]) -> None:
    """Add `value`, found at the path whose CRC-32 is `crc`, into `out`."""
    kind = type(value)
    if kind is dict:
        children: Any = ((_TAILS.get(key) or _tail(key), item) for key, item in value.items())
    elif kind is list or kind is tuple:
        children = ((_INDEXES[i] if i < 256 else _index(i), item) for i, item in enumerate(value))
    elif kind is int or kind is float or kind is bool:
        out[crc % OBS_SIZE] += value
        return
    elif kind is str:
        out[_crc32(_EQUALS.get(value) or _equals(value), crc) % OBS_SIZE] += 1.0
        return
    else:
        if value is not None:
            _walk_subclass(value, crc, out)
        return
    # the leaves are most of the nodes: handled here, without a call each
    for tail, item in children:
        kind = type(item)
        if kind is int or kind is bool or kind is float:
            out[_crc32(tail, crc) % OBS_SIZE] += item
        elif kind is str:
            out[_crc32(_EQUALS.get(item) or _equals(item), _crc32(tail, crc)) % OBS_SIZE] += 1.0
        elif item is not None:
            _walk(item, _crc32(tail, crc), out)


def _walk_subclass(value: Any, crc: int, out: list[float]) -> None:
    """The rare leaf or container of a subclass type (an IntEnum, an OrderedDict, ...)."""
    if isinstance(value, dict):
        _walk(dict(value), crc, out)
    elif isinstance(value, list | tuple):
        _walk(list(value), crc, out)
    elif isinstance(value, bool | int | float):
        out[crc % OBS_SIZE] += float(value)
    elif isinstance(value, str):
        _walk(str(value), crc, out)


def encode_observation(observation: dict[str, Any]) -> npt.NDArray[np.float32]:
    """The `OBS_SIZE` float32 vector of one seat's observation dict."""
    out = [0.0] * OBS_SIZE
    _walk(observation, 0, out)
    vector = np.array(out, dtype=np.float32)
    if max(out) > OBS_BOUND or min(out) < -OBS_BOUND:  # rare: two Python passes beat np.clip's call
        np.clip(vector, -OBS_BOUND, OBS_BOUND, out=vector)
    return vector
