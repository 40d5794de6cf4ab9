"""A real PostgreSQL for the tests: one server per test session (per xdist worker), started from
Debian's binaries in a temporary folder, reached through a unix socket in that folder only, and a
fresh database for each test that asks for one (`postgres_url`). The session's server runs with
`fsync=off` (nothing it writes needs to outlive a crash of the machine, and the tests run faster);
`durable_postgres_server` is one with `fsync=on`, as a real server runs, for the tests that kill
processes and the server itself and count what was lost.

`initdb` refuses root, so as root the server runs as the `postgres` user (`runuser`), in a folder
that user owns; as anyone else, as that user. Without PostgreSQL the tests that need it skip with
the reason, except under CI=true, where they fail: CI must have it (`.ci/run` installs it).
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

START_TIMEOUT = 60  # seconds, for initdb and for the server to accept connections
SUPERUSER = "postgres"


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server can be started here (the sentence says why)."""


def missing(reason: str) -> None:
    """Skip for want of PostgreSQL; under CI=true, fail."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"PostgreSQL tests need PostgreSQL under CI: {reason}")
    pytest.skip(reason)


def find_bindir() -> Path | None:
    """Where `initdb` and `pg_ctl` are: Debian's versioned folders (newest first), else the PATH."""
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: _version(p.parent.name),
                        reverse=True)
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
            return folder
    found = shutil.which("initdb")
    return Path(found).parent if found and shutil.which("pg_ctl") else None


def _version(name: str) -> tuple[int, ...]:
    return tuple(int(part) for part in name.split(".") if part.isdigit())


def database_of(url: str) -> str:
    """The database's name in a URL made by `PostgresServer.url`."""
    return url.split("?", 1)[0].rsplit("/", 1)[1]


@dataclass
class PostgresServer:
    """A running server whose data, log and socket are all in `folder`."""

    folder: Path
    bindir: Path
    as_user: list[str]  # the command prefix that runs a tool as the server's owner
    fsync: bool = False

    @property
    def data(self) -> Path:
        return self.folder / "data"

    def url(self, database: str) -> str:
        return f"postgresql://{SUPERUSER}@/{database}?host={self.folder}"

    def create_database(self, template: str | None = None) -> str:
        """A new database, empty or a copy of the database `template`; its URL."""
        name = "t_" + uuid.uuid4().hex[:16]
        # FILE_COPY: copying the files is quicker here than logging every block (nothing is fsynced)
        self._admin(f'CREATE DATABASE "{name}" TEMPLATE "{template or "template1"}" STRATEGY FILE_COPY')
        return self.url(name)

    def drop_database(self, url: str) -> None:
        name = database_of(url)
        self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def _admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(sql.encode())

    def start_command(self) -> list[str]:
        options = f"-k {self.folder} -c listen_addresses='' -c fsync={'on' if self.fsync else 'off'}"
        return [str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l", str(self.folder / "server.log"), "-w",
                "-t", str(START_TIMEOUT), "-o", options, "start"]

    def crash_and_restart(self) -> None:
        """Stop the server as a crash would (immediate: no checkpoint, every client cut off) and start
        it again: it recovers from its write-ahead log."""
        for step in ([str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"],
                     self.start_command()):
            done = subprocess.run([*self.as_user, *step], capture_output=True, text=True,
                                  timeout=START_TIMEOUT + 10, check=False)
            if done.returncode != 0:
                raise PostgresUnavailable(f"{Path(step[0]).name} failed: {(done.stderr or done.stdout).strip()}")

    def stop(self) -> None:
        subprocess.run([*self.as_user, str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate",
                        "-w", "stop"], capture_output=True, timeout=START_TIMEOUT, check=False)
        shutil.rmtree(self.folder, ignore_errors=True)


def start_server(*, fsync: bool = False) -> PostgresServer:
    """Initialise and start a server in a new temporary folder (`fsync`: as a real server runs, each
    commit on disk before it is acknowledged); PostgresUnavailable with the reason."""
    bindir = find_bindir()
    if bindir is None:
        raise PostgresUnavailable("PostgreSQL's initdb and pg_ctl were not found (install Debian's `postgresql`)")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        raise PostgresUnavailable("psycopg is not installed (pip install -e '.[test]')") from None
    as_user: list[str] = []
    folder = Path(tempfile.mkdtemp(prefix="seqdesk-pg-"))
    if os.geteuid() == 0:
        try:
            owner = pwd.getpwnam(SUPERUSER)
        except KeyError:
            shutil.rmtree(folder, ignore_errors=True)
            raise PostgresUnavailable("initdb refuses root and there is no `postgres` user to run it") from None
        os.chown(folder, owner.pw_uid, owner.pw_gid)
        as_user = ["runuser", "-u", SUPERUSER, "--"]
    server = PostgresServer(folder, bindir, as_user, fsync)
    steps = [
        [str(bindir / "initdb"), "-D", str(server.data), "-U", SUPERUSER, "--auth=trust", "-E", "UTF8",
         "--locale=C.UTF-8", *([] if fsync else ["--no-sync"])],
        server.start_command(),
    ]
    for step in steps:
        done = subprocess.run([*as_user, *step], capture_output=True, text=True, timeout=START_TIMEOUT + 10,
                              check=False)
        if done.returncode != 0:
            log = folder / "server.log"
            detail = (done.stderr or done.stdout).strip() + (f"\n{log.read_text()}" if log.exists() else "")
            server.stop()
            raise PostgresUnavailable(f"{Path(step[0]).name} failed ({done.returncode}): {detail[-2000:]}")
    return server


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One PostgreSQL server for the session, stopped (and its folder removed) at the end."""
    try:
        server = start_server()
    except PostgresUnavailable as exc:
        missing(str(exc))
        raise  # unreachable: missing() skips or fails
    yield server
    server.stop()


@pytest.fixture(scope="module")
def durable_postgres_server() -> Iterator[PostgresServer]:
    """A server of its own with `fsync=on` (for the module that asks for it), stopped at its end."""
    try:
        server = start_server(fsync=True)
    except PostgresUnavailable as exc:
        missing(str(exc))
        raise
    yield server
    server.stop()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """The URL of a fresh, empty database, dropped after the test."""
    url = postgres_server.create_database()
    yield url
    postgres_server.drop_database(url)


@pytest.fixture(scope="session")
def seqdesk_template(postgres_server: PostgresServer) -> str:
    """The name of a database with SeqDesk's schema, made once (copied for each test: faster than
    migrating every new database)."""
    from gui.pgstore.schema import migrate

    url = postgres_server.create_database()
    migrate(url)
    return database_of(url)


@pytest.fixture
def seqdesk_database_url(postgres_server: PostgresServer, seqdesk_template: str) -> Iterator[str]:
    """The URL of a fresh database with SeqDesk's schema and nothing in it, dropped after the test."""
    url = postgres_server.create_database(template=seqdesk_template)
    yield url
    postgres_server.drop_database(url)
