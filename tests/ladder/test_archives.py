"""Uploaded archives: each attack an archive can carry is refused; good ones are normalized."""

from __future__ import annotations

import gzip
import io
import random
import stat
import tarfile
import time
import zipfile
from pathlib import Path

import pytest

from ladder import archives
from ladder.archives import extract_archive, validate_archive
from ladder.errors import InvalidInput, TooLarge


def _tar(members: list[tuple[tarfile.TarInfo, bytes | None]], gz: bool = True) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return gzip.compress(raw.getvalue()) if gz else raw.getvalue()


def _file(name: str, data: bytes = b"x", mode: int = 0o644) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = mode
    return info, data


def _special(name: str, kind: bytes, linkname: str = "") -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info, None


def _zip(files: dict[str, bytes], attrs: dict[str, int] | None = None) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            if attrs and name in attrs:
                info.create_system = 3
                info.external_attr = attrs[name] << 16
            zf.writestr(info, data)
    return out.getvalue()


def _refused(data: bytes, words: str, cls: type[Exception] = InvalidInput) -> None:
    with pytest.raises(cls) as caught:
        validate_archive(data)
    assert words in str(caught.value), str(caught.value)


def test_a_good_archive_is_normalized_and_extracts(tmp_path: Path) -> None:
    data = _tar([_file("./bot/main.py", b"print('hi')\n"), _file("bot/run.sh", b"#!/bin/sh\n", 0o775),
                 _file("README", b"readme")])
    normal = validate_archive(data)
    assert (normal.files, normal.bytes) == (3, 12 + 10 + 6)
    with tarfile.open(fileobj=io.BytesIO(normal.tar_gz), mode="r:gz") as tar:
        listed = [(m.name, m.type, m.mode, m.mtime, m.uid) for m in tar.getmembers()]
    assert listed == [
        ("README", tarfile.REGTYPE, 0o644, archives.NORMALIZED_MTIME, 0),
        ("bot", tarfile.DIRTYPE, 0o755, archives.NORMALIZED_MTIME, 0),
        ("bot/main.py", tarfile.REGTYPE, 0o644, archives.NORMALIZED_MTIME, 0),
        ("bot/run.sh", tarfile.REGTYPE, 0o755, archives.NORMALIZED_MTIME, 0),
    ]
    # the same files, in another order and format, with other times: the same bytes
    time.sleep(0.01)
    again = _zip({"bot/run.sh": b"#!/bin/sh\n", "README": b"readme", "bot/main.py": b"print('hi')\n"},
                 attrs={"bot/run.sh": stat.S_IFREG | 0o700, "README": stat.S_IFREG | 0o600})
    assert validate_archive(again).sha256 == normal.sha256
    assert validate_archive(again).tar_gz == normal.tar_gz

    extract_archive(normal.tar_gz, tmp_path / "out")
    assert (tmp_path / "out/bot/main.py").read_bytes() == b"print('hi')\n"
    assert (tmp_path / "out/bot/run.sh").stat().st_mode & 0o777 == 0o755
    assert (tmp_path / "out/README").stat().st_mode & 0o777 == 0o644
    # an uncompressed tar is accepted too
    assert validate_archive(_tar([_file("a.py")], gz=False)).files == 1


def test_zip_slip_is_refused() -> None:
    _refused(_zip({"../../evil.py": b"x"}), "'..'")
    _refused(_zip({"ok/../../../etc/cron.d/x": b"x"}), "'..'")
    _refused(_zip({"..\\..\\evil.py": b"x"}), "backslash")


def test_absolute_paths_are_refused() -> None:
    _refused(_tar([_file("/etc/passwd")]), "absolute path")
    _refused(_zip({"/tmp/evil": b"x"}), "absolute path")


def test_tar_symlink_out_then_write_through_it_is_refused() -> None:
    attack = _tar([_special("escape", tarfile.SYMTYPE, "/etc"), _file("escape/cron.d/job", b"pwned")])
    _refused(attack, "symbolic link out of the archive")
    _refused(_tar([_file("a.py"), _special("up", tarfile.SYMTYPE, "../../etc")]), "out of the archive")
    # a chain that climbs out only at its second link
    chain = _tar(
        [_file("a.py"), _special("d/up", tarfile.SYMTYPE, ".."), _special("b", tarfile.SYMTYPE, "d/up/..")]
    )
    _refused(chain, "out of the archive")


def test_zip_symlink_out_is_refused() -> None:
    _refused(_zip({"link": b"/etc/passwd"}, attrs={"link": stat.S_IFLNK | 0o777}), "symbolic link out")


def test_hard_links_out_are_refused() -> None:
    _refused(_tar([_special("passwd", tarfile.LNKTYPE, "/etc/passwd")]), "hard link out of the archive")
    _refused(_tar([_file("a.py"), _special("b.py", tarfile.LNKTYPE, "../a.py")]), "hard link out")


def test_links_inside_the_archive_become_copies_and_extract_as_files(tmp_path: Path) -> None:
    """What `npm ci` leaves: node_modules/.bin/* links to scripts of the packages beside them."""
    script = b"#!/usr/bin/env node\nconsole.log(1)\n"
    upload = _tar([
        _file("main.js", b"require('pkg')"),
        _file("node_modules/pkg/bin/cli.js", script, mode=0o755),
        _special("node_modules/.bin/cli", tarfile.SYMTYPE, "../pkg/bin/cli.js"),
        _special("node_modules/.bin/cli2", tarfile.SYMTYPE, "cli"),  # a link to a link
        _special("node_modules/alias", tarfile.SYMTYPE, "pkg"),  # a link to a folder: dropped
        _special("copy.js", tarfile.LNKTYPE, "main.js"),  # a hard link: relative to the root
    ])  # fmt: skip
    zipped = _zip({"main.js": b"m", "link.js": b"main.js"}, attrs={"link.js": stat.S_IFLNK | 0o777})
    normalized = validate_archive(upload)
    assert normalized.files == 5
    out = tmp_path / "out"
    extract_archive(normalized.tar_gz, out)
    for name in ("node_modules/.bin/cli", "node_modules/.bin/cli2"):
        path = out / name
        assert not path.is_symlink() and path.read_bytes() == script and path.stat().st_mode & 0o111
    copy = out / "copy.js"
    assert copy.read_bytes() == b"require('pkg')" and not copy.stat().st_mode & 0o111
    assert not (out / "node_modules/alias").exists()
    assert not any(p.is_symlink() for p in out.rglob("*"))
    extract_archive(validate_archive(zipped).tar_gz, tmp_path / "zip")
    assert (tmp_path / "zip" / "link.js").read_bytes() == b"m"
    # a link to nothing, and a loop, are refused
    _refused(_tar([_file("a.py"), _special("b", tarfile.SYMTYPE, "missing.py")]), "not in the archive")
    loop = [_special("a", tarfile.SYMTYPE, "b"), _special("b", tarfile.SYMTYPE, "a")]
    _refused(_tar(loop), "loop of links")


def test_link_copies_count_against_the_size_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archives, "MAX_UNPACKED_BYTES", 3000)
    links = [_special(f"l{i}", tarfile.SYMTYPE, "big") for i in range(3)]
    _refused(_tar([_file("big", b"x" * 1000), *links]), "unpack to more than 3000 bytes", TooLarge)


def test_devices_and_fifos_are_refused() -> None:
    for kind in (tarfile.CHRTYPE, tarfile.BLKTYPE, tarfile.FIFOTYPE):
        _refused(_tar([_special("dev", kind)]), "not a regular file")
    _refused(_zip({"fifo": b""}, attrs={"fifo": stat.S_IFIFO | 0o644}), "not a regular file")


def test_nul_and_control_characters_in_names_are_refused() -> None:
    # zipfile itself cuts the name at the NUL ("main.py"): the raw name is what counts
    crafted = _zip({"main.pyX.txt": b"x"}).replace(b"main.pyX.txt", b"main.py\x00.txt")
    _refused(crafted, "control character")
    # a pax header can carry any path (a ustar name field would end at the NUL)
    info, data = _file("placeholder.py")
    info.pax_headers = {"path": "a\x00b.py"}
    _refused(_tar([(info, data)]), "control character")
    _refused(_tar([_file("evil\x1b[2J.py")]), "control character")


def test_duplicates_and_file_directory_clashes_are_refused() -> None:
    _refused(_tar([_file("a.py", b"1"), _file("a.py", b"2")]), "duplicate")
    _refused(_tar([_file("a.py", b"1"), _file("./a.py", b"2")]), "duplicate")
    _refused(_tar([_file("a"), _file("a/b.py")]), "both a file and a directory")


def test_a_gzip_bomb_of_1_gb_zeros_is_stopped_by_counting() -> None:
    """A tar entry claiming (and holding) 1 GiB of zeros, about 1 MB once compressed."""
    size = 1024**3
    header = tarfile.TarInfo("zeros.bin")
    header.size = size
    # gzip members may be concatenated: one member of 1 MiB of zeros, repeated
    zeros = gzip.compress(bytes(1024 * 1024), compresslevel=9)
    bomb = gzip.compress(header.tobuf(format=tarfile.PAX_FORMAT)) + zeros * (size // (1024 * 1024))
    assert len(bomb) < archives.MAX_COMPRESSED_BYTES
    _refused(bomb, "unpacks to more than", TooLarge)


def test_a_pax_header_claiming_a_huge_size_is_not_read_into_memory() -> None:
    """tarfile reads a pax header's data whole: the stream counter stops it first."""
    info = tarfile.TarInfo("././@PaxHeader")
    info.type = tarfile.XHDTYPE
    info.size = 2 * 1024**3
    zeros = gzip.compress(bytes(1024 * 1024), compresslevel=9)
    bomb = gzip.compress(info.tobuf(format=tarfile.USTAR_FORMAT)) + zeros * 100
    _refused(bomb, "more than", TooLarge)


def test_a_zip_lying_about_its_sizes_is_stopped_by_counting() -> None:
    """A zip entry whose headers say 10 bytes but whose data inflates to 100 MB."""
    honest = _zip({"big.bin": bytes(100 * 1024 * 1024)})
    assert len(honest) < archives.MAX_COMPRESSED_BYTES
    _refused(honest, "unpacks to more than", TooLarge)
    lying = bytearray(honest)
    real = (100 * 1024 * 1024).to_bytes(4, "little")
    fake = (10).to_bytes(4, "little")
    assert lying.count(real) == 2  # the local header and the central directory
    lying[:] = lying.replace(real, fake)
    # zipfile stops at the stated size and the CRC check fails: refused either way, never inflated
    _refused(bytes(lying), "archive:")


def test_100k_entries_are_refused_at_the_entry_limit() -> None:
    # 100,000 empty files (one header repeated: the count stops the read long before names matter)
    raw = tarfile.TarInfo("f").tobuf(format=tarfile.USTAR_FORMAT) * 100_000 + bytes(1024)
    bomb = gzip.compress(raw)
    assert len(bomb) < archives.MAX_COMPRESSED_BYTES
    _refused(bomb, f"more than {archives.MAX_ENTRIES} entries", TooLarge)
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w") as zf:
        for i in range(archives.MAX_ENTRIES + 1):
            zf.writestr(f"{i}", b"")
    _refused(zipped.getvalue(), f"more than {archives.MAX_ENTRIES} entries", TooLarge)


def test_size_and_depth_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    _refused(b"\x1f\x8b" + bytes(archives.MAX_COMPRESSED_BYTES), "larger than", TooLarge)
    monkeypatch.setattr(archives, "MAX_FILE_BYTES", 1000)
    _refused(_tar([_file("big.bin", bytes(1001))]), "'big.bin' unpacks to more than 1000", TooLarge)
    monkeypatch.setattr(archives, "MAX_UNPACKED_BYTES", 1500)
    _refused(_tar([_file("a", bytes(800)), _file("b", bytes(800))]), "unpack to more than 1500", TooLarge)
    _refused(_tar([_file("/".join(["d"] * 33))]), "nested deeper than 32")


def test_garbage_and_empty_archives_are_refused() -> None:
    _refused(b"hello, not an archive", "not a zip, tar or tar.gz")
    _refused(gzip.compress(b"not a tar at all" * 100), "not a readable tar")
    _refused(b"PK\x03\x04garbage", "not a readable zip")
    _refused(_tar([]), "holds no files")


def test_extract_refuses_a_tampered_archive(tmp_path: Path) -> None:
    """The stored archive is checked again on extraction: a row edited in the database to hold
    a link cannot write outside the destination."""
    with pytest.raises(InvalidInput):
        extract_archive(_tar([_special("x", tarfile.SYMTYPE, "/")]), tmp_path / "dest")
    assert not (tmp_path / "dest").exists()


def _zeros_archive(size: int) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        tar.addfile(_file("main.py", b"print('hi')\n")[0], io.BytesIO(b"print('hi')\n"))
        for i in range(2):
            info, _ = _file(f"data/{i}.bin", b"")
            info.size = size // 2
            tar.addfile(info, io.BytesIO(bytes(size // 2)))
    return gzip.compress(raw.getvalue(), compresslevel=9)


def test_the_check_streams_an_archive_that_unpacks_to_62_mib(tmp_path: Path) -> None:
    """63 KB unpacking to 62 MiB: the check's peak Python allocation stays a few MiB (it was the
    whole unpacked copy, twice over), and extraction likewise."""
    import tracemalloc

    data = _zeros_archive(62 * 1024 * 1024)
    assert len(data) < 100_000
    tracemalloc.start()
    try:
        normal = validate_archive(io.BytesIO(data))
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        extract_archive(normal.tar_gz, tmp_path / "out")
        _, extract_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert normal.bytes == 62 * 1024 * 1024 + 12
    assert (tmp_path / "out/data/1.bin").stat().st_size == 31 * 1024 * 1024
    assert peak < 8 * 1024 * 1024, peak
    assert extract_peak < 8 * 1024 * 1024, extract_peak
    assert validate_archive(data).sha256 == normal.sha256  # bytes or a file: the same result


def test_a_normalized_archive_over_its_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archives, "MAX_NORMALIZED_BYTES", 1000)
    _refused(_tar([_file("noise.bin", random.Random(1).randbytes(5000))]),
             "normalized tar.gz is larger than 1000", TooLarge)
