"""Where a hosted bot's uploaded files are unpacked for its sandbox.

An uploaded version's files are stored as a normalized tar.gz (`ladder.archives`) in
``bot_versions.archive``. A worker unpacks each archive once, into
``$ARENA_BOT_FILES_DIR/<sha256>/`` (default ``bots/`` in the sandbox's staging folder,
`workers/sandbox/staging.py`), and the sandbox shows that folder read-only at ``/bot``. The
folder is named by the archive's digest, so it never changes once written: it is unpacked into
a sibling and renamed into place, so two workers racing on the same archive both end with the
same complete folder.

The root folder is 0700, so no other local user reaches any bot's files: only the worker's
user, and each bot's own uid through the mount the sandbox makes as root in the bot's own mount
namespace (the bot's uid never walks the path). Inside it, folders are 0755 and files 0644 (0755
if executable), so the bot's uid reads its own files once they are mounted.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Final

import sqlalchemy as sa
from sqlalchemy import Connection

from ladder.archives import extract_archive
from ladder.schema import bot_versions
from referee import settings
from workers.sandbox.staging import stage_root

__all__ = ["ENV_BOT_FILES_DIR", "bot_files_root", "files_dir_for"]

ENV_BOT_FILES_DIR: Final = "ARENA_BOT_FILES_DIR"


def bot_files_root() -> Path:
    """The folder holding every unpacked archive (created 0700: only the worker's user)."""
    configured = settings.current().bot_files_dir
    root = Path(configured) if configured else stage_root() / "bots"
    root.mkdir(parents=True, exist_ok=True)
    root.chmod(0o700)
    return root


def files_dir_for(conn: Connection, version_id: int, archive_sha256: str | None) -> str | None:
    """The unpacked files of a version (None for a version without an upload)."""
    if not archive_sha256:
        return None
    if len(archive_sha256) != 64 or not all(c in "0123456789abcdef" for c in archive_sha256):
        raise ValueError(f"bot version {version_id}: malformed archive digest {archive_sha256!r}")
    root = bot_files_root()
    target = root / archive_sha256
    if target.is_dir():
        return str(target)
    data = conn.execute(
        sa.select(bot_versions.c.archive).where(bot_versions.c.id == version_id)
    ).scalar_one_or_none()
    if data is None:
        raise LookupError(f"bot version {version_id} has a digest but no archive")
    staging = Path(tempfile.mkdtemp(prefix=f".{archive_sha256[:12]}-", dir=root))
    try:
        extract_archive(bytes(data), staging)
        for folder, dirs, files in os.walk(staging):
            os.chmod(folder, 0o755)
            for name in files:
                path = Path(folder) / name
                path.chmod(0o755 if path.stat().st_mode & 0o100 else 0o644)
            del dirs
        try:
            staging.rename(target)
        except OSError:
            if not target.is_dir():  # not a lost race: a real failure
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return str(target)
