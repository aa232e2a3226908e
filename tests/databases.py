"""A fresh PostgreSQL database for a test session, shared by the ladder and worker suites.

PostgreSQL is required, never skipped: the database ``arena_test_<random>`` is created on the
server named by ``$ARENA_TEST_POSTGRES`` (default ``postgresql://postgres@127.0.0.1:5432/postgres``;
`make test` starts a local one if none runs) and dropped at the end of the session. If the server
cannot be reached the tests fail with a message saying so.

:class:`PrivatePostgres` is a server of a test's own (initdb/pg_ctl from
``/usr/lib/postgresql/<version>/bin``, a temporary folder, a free port), for tests that stop the
database; if the binaries are missing those tests fail, they are not skipped.
"""

from __future__ import annotations

import glob
import json
import os
import pwd
import re
import secrets
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import sqlalchemy as sa
from psycopg import sql
from sqlalchemy.engine import make_url

from ladder.db import create_engine, normalize_url, upgrade
from ladder.schema import metadata

DEFAULT_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"


def _admin_connect(admin_url: str) -> psycopg.Connection:
    try:
        return psycopg.connect(admin_url, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.fail(
            f"PostgreSQL is not reachable at {admin_url} ({exc}). These tests need a real "
            "PostgreSQL: start it (make services), or point $ARENA_TEST_POSTGRES at one.",
            pytrace=False,
        )


def fresh_postgres_database() -> Iterator[str]:
    """Create a database at migration head, yield its URL, drop it afterwards."""
    admin_url = os.environ.get("ARENA_TEST_POSTGRES", DEFAULT_ADMIN_URL)
    name = f"arena_test_{secrets.token_hex(6)}"
    with _admin_connect(admin_url) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    url = make_url(normalize_url(admin_url)).set(database=name).render_as_string(hide_password=False)
    try:
        upgrade(url)
        yield url
    finally:
        with _admin_connect(admin_url) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def empty_postgres(url: str) -> None:
    """Remove every row (and reset ids) of the ladder tables."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            names = ", ".join(t.name for t in metadata.sorted_tables)
            conn.execute(sa.text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
    finally:
        engine.dispose()


# --- a private PostgreSQL server, for outage tests ---------------------------------------------


def postgres_bin_dir() -> Path:
    """The newest ``/usr/lib/postgresql/<version>/bin`` with initdb and pg_ctl.

    Fails the test (never skips) with a clear message if there is none.
    """
    found = [
        d for d in glob.glob("/usr/lib/postgresql/*/bin")
        if os.access(os.path.join(d, "initdb"), os.X_OK) and os.access(os.path.join(d, "pg_ctl"), os.X_OK)
    ]
    if not found:
        pytest.fail(
            "the PostgreSQL server binaries (initdb, pg_ctl in /usr/lib/postgresql/<version>/bin) are "
            "missing: the database outage tests start and stop a private PostgreSQL server of their "
            "own. Install the server package (apt-get install postgresql).",
            pytrace=False,
        )
    return Path(max(found, key=lambda d: int(re.sub(r"\D", "", Path(d).parent.name) or 0)))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class PrivatePostgres:
    """A PostgreSQL server of its own (initdb in a temporary folder, a free port) that a test
    may stop and start again; the shared server is never touched.

    As root the server runs as the ``postgres`` user (PostgreSQL refuses to run as root).
    """

    def __init__(self) -> None:
        self.bin = postgres_bin_dir()
        self.root = Path(tempfile.mkdtemp(prefix="arena-private-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = _free_port()
        self._as: list[str] = []
        if os.geteuid() == 0:
            pw = pwd.getpwnam("postgres")
            os.chown(self.root, pw.pw_uid, pw.pw_gid)
            self._as = ["runuser", "-u", "postgres", "--"]
        self.admin_url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        self.url = normalize_url(f"postgresql://postgres@127.0.0.1:{self.port}/arena")

    def _run(self, *args: str, timeout: float = 60.0) -> None:
        done = subprocess.run(
            [*self._as, *args], capture_output=True, text=True, timeout=timeout, cwd=self.root
        )
        if done.returncode != 0:
            log = self.log.read_text(errors="replace") if self.log.exists() else ""
            pytest.fail(f"{' '.join(args)} failed: {done.stdout}{done.stderr}\n{log}", pytrace=False)

    def create(self) -> str:
        """initdb, start, create the database ``arena`` at migration head; its URL."""
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust",
                  "--no-sync", "-E", "UTF8")
        self.start()
        with psycopg.connect(self.admin_url, autocommit=True, connect_timeout=5) as admin:
            admin.execute("CREATE DATABASE arena")
        upgrade(self.url)
        return self.url

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.root} "
            "-c fsync=off -c full_page_writes=off -c synchronous_commit=off"
        )
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log),
                  "-o", options, "-w", "-t", "30", "start")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``fast``: disconnect the clients, like a restart; ``immediate``: a crash)."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "-t", "30", "stop")

    def destroy(self) -> None:
        """Stop the server if it runs and delete its files."""
        if (self.data / "postmaster.pid").exists():
            subprocess.run(
                [*self._as, str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w",
                 "stop"],
                capture_output=True, timeout=60, cwd=self.root,
            )
        shutil.rmtree(self.root, ignore_errors=True)


def qualification_of(engine: sa.Engine, version_id: int) -> tuple[str, dict[str, Any]]:
    """A bot version's qualification state and its detail (parsed JSON; {} when none)."""
    from ladder.schema import bot_versions

    with engine.connect() as conn:
        row = conn.execute(
            sa.select(bot_versions.c.qualification, bot_versions.c.qualification_detail).where(
                bot_versions.c.id == version_id
            )
        ).one()
    detail: dict[str, Any] = json.loads(row.qualification_detail or "{}")
    return row.qualification, detail
