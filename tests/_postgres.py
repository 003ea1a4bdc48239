"""A real PostgreSQL server for the test session (Debian's ``postgresql`` package).

``pg_ctl`` refuses to run as root, so the data folder belongs to the ``postgres`` user and
the server runs as that user (``runuser``) when the tests run as root. It listens on a free
loopback port; each test gets a database of its own (``fresh_database``). Without the
binaries the tests skip, except in CI (``CI`` set), where they fail.
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

import pytest

PG_BINS: Final = tuple(Path(f"/usr/lib/postgresql/{v}/bin") for v in (17, 16, 15))


def _bin_dir() -> Path | None:
    found = next((d for d in PG_BINS if (d / "pg_ctl").is_file()), None)
    if found is None and shutil.which("pg_ctl"):
        found = Path(str(shutil.which("pg_ctl"))).parent
    return found


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _as_owner(command: list[str], owner: str | None) -> list[str]:
    return ["runuser", "-u", owner, "--", *command] if owner else command


@contextmanager
def postgres_server() -> Iterator[str]:
    """Start a throwaway server; yields the DSN of its ``postgres`` database."""
    bins = _bin_dir()
    if bins is None:
        message = "PostgreSQL's binaries are missing (apt-get install postgresql)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    owner = "postgres" if os.geteuid() == 0 else None
    folder = Path(tempfile.mkdtemp(prefix="mediagen-pg-"))
    if owner:
        user = pwd.getpwnam(owner)
        os.chown(folder, user.pw_uid, user.pw_gid)
    data = folder / "pg"
    port = _free_port()
    initdb = [str(bins / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"]
    subprocess.run(_as_owner(initdb, owner), check=True, capture_output=True, timeout=120)
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
    ctl = [str(bins / "pg_ctl"), "-D", str(data), "-w", "-l", str(folder / "log")]
    start = _as_owner([*ctl, "-o", options, "start"], owner)
    subprocess.run(start, check=True, capture_output=True, timeout=120)
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            _as_owner([*ctl, "-m", "immediate", "stop"], owner), capture_output=True, check=False
        )
        shutil.rmtree(folder, ignore_errors=True)


def fresh_database(server_dsn: str) -> str:
    """A new empty database on the server; its DSN."""
    import psycopg

    name = "class_" + secrets.token_hex(4)
    with psycopg.connect(server_dsn, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return server_dsn.rsplit("/", 1)[0] + "/" + name
