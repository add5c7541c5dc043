"""Bringing a store file to the newest schema revision with Alembic.

The revisions live in ``migrations/versions`` inside the package and run on the connection the
store opened (its pragmas, its write lock, its private file), in that connection's transaction:
no ``env.py``, no second engine. A file from before migrations has tables but no
``alembic_version``; it runs the first revision like a new file does, which makes only what
the file lacks, so it ends stamped at ``0001`` with its data untouched.

Alembic is imported here, and this module only when a file is not at ``HEAD``, so opening a
store that is already current costs one query, not Alembic's import.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from alembic.config import Config
from alembic.runtime.environment import EnvironmentContext
from alembic.script import ScriptDirectory

__all__ = ["FOLDER", "script_directory", "upgrade"]

FOLDER = Path(__file__).with_name("migrations")


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(FOLDER))
    return config


@functools.lru_cache(maxsize=1)
def script_directory() -> ScriptDirectory:
    """The revisions, read from their files once per process."""
    return ScriptDirectory.from_config(_config())


def upgrade(connection: Any) -> None:
    """Run every revision ``connection``'s file lacks, in its open transaction."""
    script = script_directory()

    def steps(current: Any, _context: Any) -> Any:
        return script._upgrade_revs("head", current)

    with EnvironmentContext(_config(), script, fn=steps, destination_rev="head") as environment:
        environment.configure(connection=connection)
        environment.run_migrations()
