"""DBOS, the durable-execution engine under Plan Studio's runs: one per process, on the store's
own database (its tables beside the project's: one SQLite file, or one PostgreSQL database).

- SQLite: DBOS gets an engine made here, in write-ahead-log mode with ``synchronous=NORMAL``:
  DBOS's own SQLite set-up cost 1.6-2.1x the CPU (verified-setup.md).
- The application version is pinned to Plan Studio's release: DBOS recovers only workflows
  written by the same version, which would otherwise be a hash of the workflow code.
- Every process has its own executor id (host, pid, a random part), so launching one never
  takes over the runs of another process that is still alive; a dead process's runs are taken
  over on purpose (``_runs``: resume, a worker's take-over).
"""

from __future__ import annotations

import importlib.metadata
import logging
import os
import socket
import sqlite3
import sys
import threading
import uuid
from pathlib import Path
from typing import Any, Sequence

__all__ = ["APP_NAME", "RUN_QUEUE", "application_version", "executor_id", "launch", "launched_on", "shutdown"]

APP_NAME = "plan-studio"
RUN_QUEUE = "plan-studio-runs"  # the queue workers take runs from
_POLL_SECONDS = 0.1  # how often a queue is looked at for work

_lock = threading.Lock()
_state: dict[str, Any] = {"location": None, "queues": None, "executor": None}


def application_version() -> str:
    try:
        return f"plan-studio {importlib.metadata.version('plan-studio')}"
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - run from a bare checkout
        return "plan-studio dev"


def executor_id() -> str:
    """This process's executor id: ``host:pid:random``, made when DBOS is launched (a process
    forked from another must not take its parent's: launching would take over its runs)."""
    return _state["executor"] or ""


def launched_on() -> str | None:
    return _state["location"]


def _sqlite_engine(path: Path) -> Any:
    from sqlalchemy import create_engine, event

    from ..storage import _sqlite
    from .._errors import HeldByAnotherWriter

    timeout = _sqlite._BUSY_TIMEOUT_SECONDS  # the store's: one wait for another writer's lock
    engine = create_engine(f"sqlite:///{path}", connect_args={"check_same_thread": False, "timeout": timeout})

    @event.listens_for(engine, "handle_error")
    def _locked_too_long(context: Any) -> None:
        # DBOS retries "database is locked" without end: a run would wait forever behind
        # another program's lock. After the busy timeout it is an outage (``_outage``).
        if "database is locked" in str(context.original_exception):
            raise HeldByAnotherWriter(f"its write lock held elsewhere for over {timeout:g} s")

    @event.listens_for(engine, "connect")
    def _configure(connection: sqlite3.Connection, _record: object) -> None:
        cursor = connection.cursor()
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
        finally:
            cursor.close()

    return engine


class _CurrentStderr(logging.StreamHandler):  # type: ignore[type-arg]
    """DBOS's console handler keeps the ``sys.stderr`` of its first launch; a process that
    swaps standard error (tests, a command that redirects it) gets "closed file" errors."""

    @property  # type: ignore[override]
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, _value: Any) -> None:
        pass


def _not_an_outage(record: logging.LogRecord) -> bool:
    """While the database is away, DBOS's threads say so at every poll, each with a traceback;
    the run that stopped says it once (``_outage``), so these are left out."""
    from ._outage import database_trouble

    if record.exc_info and record.exc_info[1] is not None and database_trouble(record.exc_info[1]) is not None:
        return False
    text = record.getMessage()
    return not any(sign in text for sign in _OUTAGE_SIGNS)


_OUTAGE_SIGNS = ("OperationalError", "connection failed", "database is locked", "write lock held elsewhere",
                 "server closed the connection", "consuming input failed", "AdminShutdown",
                 "terminating connection", "the database system is", "Notifier flush error",
                 "Notification listener error")


def _log_to_current_stderr() -> None:
    from dbos._logger import dbos_logger

    for handler in list(dbos_logger.handlers):
        if type(handler) is logging.StreamHandler:
            replacement = _CurrentStderr()
            replacement.addFilter(_not_an_outage)
            replacement.setFormatter(handler.formatter)
            replacement.setLevel(handler.level)
            dbos_logger.removeHandler(handler)
            dbos_logger.addHandler(replacement)


def launch(database: Any, *, queues: Sequence[str] = (), worker_concurrency: int | None = None) -> None:
    """DBOS on ``database`` (a store's ``Database``), launched once per process and database;
    ``queues``: the queues this process takes runs from (none but a worker's)."""
    from dbos import DBOS

    location = str(database.path)
    with _lock:
        if _state["location"] == location and _state["queues"] == tuple(queues):
            return
        if _state["location"] is not None:
            DBOS.destroy(workflow_completion_timeout_sec=0)
        _state["executor"] = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        config: dict[str, Any] = {"name": APP_NAME, "application_version": application_version(),
                                  "executor_id": _state["executor"], "log_level": "WARNING"}
        if database.dialect.__name__.endswith("_sqlite"):
            config["system_database_url"] = f"sqlite:///{database.path}"
            config["system_database_engine"] = _sqlite_engine(Path(database.path))
        else:
            config["system_database_url"] = database.url.render_as_string(hide_password=False)
        logging.getLogger("dbos").setLevel(logging.WARNING)
        dbos = DBOS(config=config)  # type: ignore[arg-type]
        _log_to_current_stderr()
        # A resumed run is handed to this process through DBOS's internal queue, polled once a
        # second by default: the first step after a restart would wait up to that long.
        dbos._registry.get_internal_queue()._polling_interval_sec = _POLL_SECONDS
        DBOS.listen_queues(list(queues))
        DBOS.launch()
        # A lost connection is retried by DBOS until it comes back, so a run would wait without
        # a word while the database is down: it stops instead, and is resumed (``_outage``).
        dbos._sys_db._retry_connection_errors = False
        if queues:
            DBOS.register_queue(RUN_QUEUE, on_conflict="always_update", polling_interval_sec=_POLL_SECONDS,
                                worker_concurrency=worker_concurrency)
        _state["location"], _state["queues"] = location, tuple(queues)


def _forget_in_child() -> None:
    """A forked child has DBOS's objects but none of its threads: it starts afresh (its own
    executor id, its own launch) instead of stopping threads it does not have."""
    _state.update(location=None, queues=None, executor=None)
    try:
        import dbos._dbos as dbos_module
    except ImportError:  # pragma: no cover
        return
    dbos_module._dbos_global_instance = None


os.register_at_fork(after_in_child=_forget_in_child)


def shutdown() -> None:
    """Stop DBOS in this process (tests; a worker that ends)."""
    from dbos import DBOS

    with _lock:
        if _state["location"] is not None:
            DBOS.destroy(workflow_completion_timeout_sec=0)
            _state["location"], _state["queues"] = None, None
