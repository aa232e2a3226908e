"""Uploaded bot archives: checked as hostile input, stored in one normalized form.

:func:`validate_archive` takes the bytes a user uploaded (a zip, a tar, or a gzip-compressed tar)
and returns a :class:`NormalizedArchive`: a tar.gz holding only directories and regular files,
sorted by path, with fixed owners, modes (0644, or 0755 for executables) and modification times,
so the same files always give the same bytes and the same SHA-256. :func:`extract_archive` writes
a normalized archive into a directory (the lead's worker unpacks a version there for the sandbox).

Both stream: each file is unpacked a 64 KiB chunk at a time into its own file in a scratch
folder (``tempfile``'s, removed at the end), and the normalized tar.gz is compressed as it is
written from those files. No whole file and no unpacked copy of the archive is ever in memory:
a check takes the normalized tar.gz (at most :data:`MAX_NORMALIZED_BYTES`) and a few buffers,
however much the archive unpacks to (up to :data:`MAX_UNPACKED_BYTES` on disk for a moment).

Refused, each with an :class:`~ladder.errors.InvalidInput` naming the entry and the reason
(:class:`~ladder.errors.TooLarge`, HTTP 413, for every size limit):

* anything over the limits below. Sizes are counted while decompressing, a chunk at a time, and
  the work stops at the limit: the sizes an archive's headers claim are never trusted (a zip bomb
  states small sizes; a tar's header can claim any size, and a pax header of 1 GB would otherwise
  be read into memory whole by ``tarfile``);
* absolute paths, ``..`` components, backslashes, and names with control characters (NUL
  included: ``zipfile`` silently cuts a name at a NUL, so the raw name is checked);
* a symbolic or hard link whose target is outside the archive (an absolute target, or one that
  climbs out with ``..``) or is not in it. A link is the classic way out of the extraction
  directory (a link to ``/`` or ``..``, then a file written through it; a hard link to a host
  file). A link that stays inside is accepted but never stored as a link: a link to a file
  becomes a copy of that file (``node_modules/.bin/*`` of an ``npm ci``), a link to a directory
  is dropped (a copy could nest without end). The normalized archive holds no link at all, so
  extraction never meets one; a copy counts against the size limits like any file;
* devices, FIFOs, sparse files and any other entry type than a directory or a regular file;
* encrypted zip entries, duplicate names, and a name that is both a file and a directory.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import shutil
import stat
import tarfile
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final, Protocol

from ladder.errors import InvalidInput, TooLarge

__all__ = [
    "MAX_COMPRESSED_BYTES",
    "MAX_DEPTH",
    "MAX_ENTRIES",
    "MAX_FILE_BYTES",
    "MAX_NORMALIZED_BYTES",
    "MAX_UNPACKED_BYTES",
    "NormalizedArchive",
    "extract_archive",
    "validate_archive",
]

#: the uploaded archive itself (also the HTTP upload endpoint's body limit)
MAX_COMPRESSED_BYTES: Final = 10 * 1024 * 1024
#: files and directories in the archive
MAX_ENTRIES: Final = 2_000
#: the sum of the unpacked files' sizes
MAX_UNPACKED_BYTES: Final = 64 * 1024 * 1024
#: one unpacked file
MAX_FILE_BYTES: Final = 32 * 1024 * 1024
#: the normalized tar.gz an upload is stored as (a zip's LZMA or bzip2 entries can pack
#: tighter than gzip does)
MAX_NORMALIZED_BYTES: Final = 2 * MAX_COMPRESSED_BYTES
#: path components of one entry (``a/b/c.py`` is 3)
MAX_DEPTH: Final = 32
#: one path component, and a whole path (common file system limits)
MAX_NAME_BYTES: Final = 255
MAX_PATH_BYTES: Final = 1024

#: the modification time of every normalized entry (2000-01-01T00:00:00Z)
NORMALIZED_MTIME: Final = 946_684_800
#: a tar stream also holds headers and padding: this much beyond the unpacked limit is allowed
_TAR_OVERHEAD: Final = (MAX_ENTRIES + 16) * 3 * 512 + 1024 * 1024
_CHUNK: Final = 64 * 1024


@dataclass(frozen=True, slots=True)
class NormalizedArchive:
    """An upload in normal form: the tar.gz bytes, their SHA-256, the file count, unpacked bytes."""

    tar_gz: bytes
    sha256: str
    files: int
    bytes: int


@dataclass(frozen=True, slots=True)
class _Entry:
    path: str  # normalized, relative, '/'-separated, no trailing '/'
    is_dir: bool
    executable: bool
    size: int
    #: the file in the scratch folder holding a regular file's bytes (None for a directory)
    spool: Path | None
    #: a link's target as the archive states it (None: not a link); `hard`: a hard link's
    #: target is relative to the archive's root, a symbolic link's to the link's folder
    link: str | None = None
    hard: bool = False


class _Budget:
    """Counts entries and unpacked bytes against the limits, and spools each file's bytes to
    its own file in `scratch`, so that no file (nor the whole archive) is ever held in memory."""

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        self.total = 0
        self.entries = 0

    def count_entry(self) -> None:
        self.entries += 1
        if self.entries > MAX_ENTRIES:
            raise TooLarge(f"archive: more than {MAX_ENTRIES} entries")

    def spool_file(self, name: str, source: _Readable) -> tuple[Path, int]:
        """Copy `source` to a new scratch file a chunk at a time, stopping as soon as a limit is
        passed; the file's path and size."""
        target = self.scratch / str(self.entries)
        size = 0
        with open(target, "xb") as out:
            while True:
                chunk = source.read(_CHUNK)
                if not chunk:
                    break
                size += len(chunk)
                self.total += len(chunk)
                if size > MAX_FILE_BYTES:
                    raise TooLarge(f"archive: {name!r} unpacks to more than {MAX_FILE_BYTES} bytes")
                if self.total > MAX_UNPACKED_BYTES:
                    raise TooLarge(f"archive: the files unpack to more than {MAX_UNPACKED_BYTES} bytes")
                out.write(chunk)
        return target, size


class _Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


class _StreamTooLarge(Exception):
    """Raised inside ``tarfile``'s reads; not a ValueError, so ``tarfile`` cannot mistake it for a
    bad header and go on."""


class _CountingReader(io.RawIOBase):
    """A read-only stream over `source` that fails once more than `limit` bytes were read.

    It sits between the gzip decompressor and ``tarfile``, so no header, however large the size
    it claims, can make ``tarfile`` inflate or buffer more than `limit` bytes.
    """

    def __init__(self, source: _Readable, limit: int) -> None:
        self._source = source
        self._limit = limit
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        want = min(len(buffer), self._limit - self.count + 1)
        data = self._source.read(want) if want > 0 else b""
        self.count += len(data)
        if self.count > self._limit:
            raise _StreamTooLarge()
        buffer[: len(data)] = data
        return len(data)


def _has_control(name: str) -> bool:
    return any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in name)


def _normal_path(raw: str) -> str:
    """`raw` as a safe relative path, or InvalidInput saying why it is not one."""
    if _has_control(raw):
        raise InvalidInput(f"archive: entry name {raw!r} contains a control character")
    if "\\" in raw:
        raise InvalidInput(f"archive: entry name {raw!r} contains a backslash (use '/')")
    if raw.startswith("/"):
        raise InvalidInput(f"archive: entry {raw!r} has an absolute path")
    parts = [p for p in raw.split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts):
        raise InvalidInput(f"archive: entry {raw!r} has a '..' component")
    if not parts:
        raise InvalidInput(f"archive: entry {raw!r} has an empty path")
    if len(parts) > MAX_DEPTH:
        raise InvalidInput(f"archive: entry {raw!r} is nested deeper than {MAX_DEPTH} levels")
    path = "/".join(parts)
    if len(path.encode()) > MAX_PATH_BYTES or any(len(p.encode()) > MAX_NAME_BYTES for p in parts):
        raise InvalidInput(f"archive: entry {raw[:80]!r}... has too long a name")
    return path


def _tar_entries(fileobj: IO[bytes], budget: _Budget) -> Iterator[_Entry]:
    try:
        with tarfile.open(fileobj=fileobj, mode="r|") as tar:
            for member in tar:
                budget.count_entry()
                path = _normal_path(member.name)
                if member.issym() or member.islnk():
                    # resolved once every entry is known (_resolve_links)
                    yield _Entry(path, False, False, 0, None, link=member.linkname, hard=member.islnk())
                    continue
                if member.isdir():
                    yield _Entry(path, True, False, 0, None)
                    continue
                if member.issparse() or not member.isreg():
                    raise InvalidInput(
                        f"archive: {member.name!r} is not a regular file or directory "
                        "(devices, FIFOs and sparse files are not allowed)"
                    )
                source = tar.extractfile(member)
                if source is None:  # pragma: no cover - a regular member always has a reader
                    raise InvalidInput(f"archive: {member.name!r} cannot be read")
                spool, size = budget.spool_file(member.name, source)
                yield _Entry(path, False, bool(member.mode & 0o111), size, spool)
    except (tarfile.TarError, EOFError, OSError, UnicodeError) as exc:
        raise InvalidInput(f"archive: not a readable tar archive ({exc})") from exc


def _zip_entries(source: IO[bytes], budget: _Budget) -> Iterator[_Entry]:
    try:
        with zipfile.ZipFile(source) as zf:
            infos = zf.infolist()
            if len(infos) > MAX_ENTRIES:
                raise TooLarge(f"archive: more than {MAX_ENTRIES} entries")
            for info in infos:
                budget.count_entry()
                # zipfile cuts a name at a NUL byte; the original name shows it
                if _has_control(info.orig_filename):
                    raise InvalidInput(
                        f"archive: entry name {info.orig_filename!r} contains a control character"
                    )
                path = _normal_path(info.filename)
                mode = info.external_attr >> 16 if info.create_system == 3 else 0
                file_type = stat.S_IFMT(mode)
                if stat.S_ISLNK(mode):  # the target is the entry's data
                    with zf.open(info) as member:
                        target = member.read(MAX_PATH_BYTES + 1)
                    if len(target) > MAX_PATH_BYTES:
                        raise InvalidInput(f"archive: {info.filename!r} is a link with too long a target")
                    yield _Entry(path, False, False, 0, None, link=target.decode(errors="replace"))
                    continue
                if info.flag_bits & 0x1:
                    raise InvalidInput(f"archive: {info.filename!r} is encrypted")
                if info.is_dir():
                    if file_type not in (0, stat.S_IFDIR):
                        raise InvalidInput(f"archive: {info.filename!r} is not a directory")
                    yield _Entry(path, True, False, 0, None)
                    continue
                if file_type not in (0, stat.S_IFREG):
                    raise InvalidInput(
                        f"archive: {info.filename!r} is not a regular file or directory "
                        "(devices and FIFOs are not allowed)"
                    )
                with zf.open(info) as member:
                    spool, size = budget.spool_file(info.filename, member)
                yield _Entry(path, False, bool(mode & 0o111), size, spool)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, NotImplementedError,
            RuntimeError, UnicodeError) as exc:
        raise InvalidInput(f"archive: not a readable zip archive ({exc})") from exc


def _entries(source: IO[bytes], scratch: Path) -> list[_Entry]:
    """Every entry of the archive in the seekable `source`, checked, in archive order; the
    files' bytes are spooled into `scratch`."""
    size = source.seek(0, io.SEEK_END)
    if size > MAX_COMPRESSED_BYTES:
        raise TooLarge(f"archive: larger than {MAX_COMPRESSED_BYTES} bytes")
    source.seek(0)
    head = source.read(262)
    source.seek(0)
    budget = _Budget(scratch)
    if head[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return _resolve_links(list(_zip_entries(source, budget)), budget)
    limit = MAX_UNPACKED_BYTES + _TAR_OVERHEAD
    if head[:2] == b"\x1f\x8b":
        gz = gzip.GzipFile(fileobj=source, mode="rb")
        stream: IO[bytes] = io.BufferedReader(_CountingReader(gz, limit), _CHUNK)
        try:
            return _resolve_links(list(_tar_entries(stream, budget)), budget)
        except _StreamTooLarge:
            raise TooLarge(f"archive: the tar stream unpacks to more than {limit} bytes") from None
    if head[257:262] == b"ustar":
        return _resolve_links(list(_tar_entries(source, budget)), budget)
    raise InvalidInput("archive: not a zip, tar or tar.gz archive")


#: links followed from one link before it is called a loop
_MAX_LINK_HOPS: Final = 32


def _resolve_links(entries: list[_Entry], budget: _Budget) -> list[_Entry]:
    """The entries with every link replaced: a link to a file by a copy of it (counted against
    the size limit), a link to a directory dropped. InvalidInput for a link whose target is
    outside the archive or not in it, and for a loop of links."""
    links = {e.path: e for e in entries if e.link is not None}
    if not links:
        return entries
    kept = [e for e in entries if e.link is None]
    files = {e.path: e for e in kept if not e.is_dir}
    dirs = {e.path for e in kept if e.is_dir}
    for e in kept:
        parts = e.path.split("/")
        dirs.update("/".join(parts[:i]) for i in range(1, len(parts)))
    dirs.add("")

    def follow(link: _Entry, top: _Entry, hops: int) -> list[str]:
        """Where `link` leads, as path parts, each component taken in order as the kernel
        would (a ``..`` after a link climbs from the link's target, not from its name)."""
        assert link.link is not None
        raw = link.link
        if raw.startswith("/") or _has_control(raw):
            raise escape(top)
        parts = [] if link.hard else link.path.split("/")[:-1]
        for part in raw.split("/"):
            if part in ("", "."):
                continue
            if part == "..":
                if not parts:
                    raise escape(top)
                parts.pop()
                continue
            parts.append(part)
            inner = links.get("/".join(parts))
            if inner is not None:
                if hops >= _MAX_LINK_HOPS:
                    raise InvalidInput(f"archive: {top.path!r} is part of a loop of links")
                parts = follow(inner, top, hops + 1)
        return parts

    def escape(top: _Entry) -> InvalidInput:
        kind = "hard" if top.hard else "symbolic"
        return InvalidInput(f"archive: {top.path!r} is a {kind} link out of the archive ({top.link!r})")

    for path, link in sorted(links.items()):
        target = "/".join(follow(link, link, 1))
        if target in files:
            source = files[target]
            budget.total += source.size
            if budget.total > MAX_UNPACKED_BYTES:
                raise TooLarge(f"archive: the files unpack to more than {MAX_UNPACKED_BYTES} bytes")
            kept.append(_Entry(path, False, source.executable, source.size, source.spool))
        elif target not in dirs:
            raise InvalidInput(f"archive: {path!r} is a link to {link.link!r}, which is not in the archive")
    return kept


def _check_tree(entries: list[_Entry]) -> tuple[list[str], dict[str, _Entry]]:
    """The directories (explicit and implied) and the files; InvalidInput on any clash."""
    files: dict[str, _Entry] = {}
    dirs: set[str] = set()
    explicit_dirs: set[str] = set()
    for entry in entries:
        if entry.is_dir:
            if entry.path in explicit_dirs:
                raise InvalidInput(f"archive: duplicate entry {entry.path!r}")
            explicit_dirs.add(entry.path)
            dirs.add(entry.path)
        else:
            if entry.path in files:
                raise InvalidInput(f"archive: duplicate entry {entry.path!r}")
            files[entry.path] = entry
        parts = entry.path.split("/")
        dirs.update("/".join(parts[:i]) for i in range(1, len(parts)))
    clash = dirs & files.keys()
    if clash:
        raise InvalidInput(f"archive: {sorted(clash)[0]!r} is both a file and a directory")
    return sorted(dirs), files


class _CappedWriter(io.RawIOBase):
    """A write-only stream into `out` that fails once more than `limit` bytes were written."""

    def __init__(self, out: IO[bytes], limit: int) -> None:
        self._out = out
        self._limit = limit
        self.count = 0

    def writable(self) -> bool:
        return True

    def write(self, data: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
        self.count += len(data)
        if self.count > self._limit:
            raise TooLarge(f"archive: its normalized tar.gz is larger than {self._limit} bytes")
        return self._out.write(data)


def _normalized_tar_gz(dirs: list[str], files: dict[str, _Entry]) -> bytes:
    out = io.BytesIO()
    # no file name and a fixed mtime in the gzip header: same files, same bytes. The tar is
    # compressed as it is written, each file copied from its spool a chunk at a time (deflate's
    # output does not depend on how its input is cut into writes)
    capped = _CappedWriter(out, MAX_NORMALIZED_BYTES)
    with (
        gzip.GzipFile(filename="", mode="wb", fileobj=capped, mtime=0, compresslevel=6) as gz,
        tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for path in sorted([*dirs, *files]):
            info = tarfile.TarInfo(path)
            info.mtime = NORMALIZED_MTIME
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            entry = files.get(path)
            if entry is None:
                info.type = tarfile.DIRTYPE
                info.mode = 0o755
                tar.addfile(info)
            else:
                assert entry.spool is not None
                info.mode = 0o755 if entry.executable else 0o644
                info.size = entry.size
                with open(entry.spool, "rb") as data:
                    tar.addfile(info, data)
    return out.getvalue()


def _source(data: bytes | IO[bytes]) -> IO[bytes]:
    return io.BytesIO(data) if isinstance(data, bytes | bytearray | memoryview) else data


def validate_archive(data: bytes | IO[bytes]) -> NormalizedArchive:
    """Check an uploaded zip, tar or tar.gz (see the module doc) and return it normalized.

    `data` is the archive's bytes or a seekable binary file holding them. Each file is unpacked
    to a scratch folder (removed before returning), never into memory: what this takes in memory
    is the normalized tar.gz and a few chunk buffers, whatever the archive unpacks to.
    Raises InvalidInput (TooLarge for a size limit) saying which entry is refused and why.
    """
    with tempfile.TemporaryDirectory(prefix="arena-upload-") as scratch:
        dirs, files = _check_tree(_entries(_source(data), Path(scratch)))
        if not files:
            raise InvalidInput("archive: holds no files")
        tar_gz = _normalized_tar_gz(dirs, files)
    return NormalizedArchive(
        tar_gz=tar_gz,
        sha256=hashlib.sha256(tar_gz).hexdigest(),
        files=len(files),
        bytes=sum(e.size for e in files.values()),
    )


def extract_archive(tar_gz: bytes, dest: Path) -> None:
    """Unpack a (normalized) archive into `dest`, creating it if needed.

    The archive is checked again exactly as an upload is (into a scratch folder, before `dest`
    is touched), so a tampered database row cannot write outside `dest`; files are created with
    ``O_EXCL | O_NOFOLLOW`` (never through a link, never over an existing file).
    """
    with tempfile.TemporaryDirectory(prefix="arena-extract-") as scratch:
        dirs, files = _check_tree(_entries(io.BytesIO(tar_gz), Path(scratch)))
        dest.mkdir(parents=True, exist_ok=True)
        root = dest.resolve()
        for path in dirs:
            (root / path).mkdir(mode=0o755, exist_ok=True)
        for path, entry in sorted(files.items()):
            assert entry.spool is not None
            target = root / path
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                         0o755 if entry.executable else 0o644)
            with os.fdopen(fd, "wb") as out, open(entry.spool, "rb") as data:
                shutil.copyfileobj(data, out, _CHUNK)
