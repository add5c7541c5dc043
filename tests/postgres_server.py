"""A throwaway PostgreSQL for the tests: Debian's ``postgresql`` binaries, ``initdb`` and
``pg_ctl`` into a temp folder, on a free port of 127.0.0.1, stopped and deleted afterwards.

PostgreSQL refuses to run as root; as root (a container) the folder is handed to the
``postgres`` user and the binaries run through ``runuser`` (see /work/shared/verified-setup.md).
Each test gets a database of its own (``new_database``), made in a few tens of milliseconds.
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

__all__ = ["PostgresServer", "find_binaries"]

_USER = "plan"


def find_binaries() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``, newest version first; None when missing."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0)
    return Path(found[-1]).parent if found else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PostgresServer:
    """One server in its own temp folder; ``start`` then ``stop``."""

    def __init__(self) -> None:
        binaries = find_binaries()
        if binaries is None:
            raise RuntimeError("PostgreSQL is not installed: /usr/lib/postgresql/*/bin/initdb is missing "
                               "(the README's test command installs Debian's postgresql)")
        self.binaries = binaries
        self.folder = Path(tempfile.mkdtemp(prefix="plan-studio-pg-"))
        self.port = _free_port()
        self._names = itertools.count(1)

    def _as_owner(self, *command: str) -> list[str]:
        if os.geteuid() == 0:
            return ["runuser", "-u", "postgres", "--", *command]
        return list(command)

    def start(self) -> "PostgresServer":
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres")
        data = self.folder / "data"
        subprocess.run(self._as_owner(str(self.binaries / "initdb"), "-D", str(data), "-A", "trust",
                                      "-U", _USER, "--no-sync", "-E", "UTF8", "--locale", "C"),
                       check=True, capture_output=True)
        self.start_again()
        return self

    def start_again(self) -> None:
        """Start the server (again, after ``halt``) on the same folder and port."""
        options = (f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
        subprocess.run(self._as_owner(str(self.binaries / "pg_ctl"), "-D", str(self.folder / "data"), "-o", options,
                                      "-l", str(self.folder / "log"), "-w", "start"),
                       check=True, capture_output=True)

    def halt(self) -> None:
        """Stop the server as an outage does: clients lose their connections at once, and the
        server is gone until ``start_again``. (``fast``, not ``immediate``: this server does not
        wait for its log to reach the disk at commit, so a crash would lose the last commits.)"""
        subprocess.run(self.halt_command(), check=True, capture_output=True)

    def halt_command(self) -> list[str]:
        """``halt`` as a command line, for another process to run."""
        return self._as_owner(str(self.binaries / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "fast", "-w", "stop")

    def stop(self) -> None:
        subprocess.run(self._as_owner(str(self.binaries / "pg_ctl"), "-D", str(self.folder / "data"),
                                      "-m", "immediate", "stop"), capture_output=True)
        shutil.rmtree(self.folder, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://{_USER}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A new empty database; its URL."""
        import psycopg

        name = f"t{os.getpid()}_{next(self._names)}"
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user={_USER} dbname=postgres",
                             autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)
