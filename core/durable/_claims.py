"""One process carries a stored run on at a time: a claim on the run in the store, taken before
any part of it runs here (``DurableRuns``: execute, resume, carry on, go on) and given up after.

DBOS alone does not keep two processes apart here: ``DBOS.resume_workflow`` puts a workflow back
on a queue even while another process runs it (its ownership check only notices afterwards,
"the workflow is no longer owned by this execution", once the step ran twice). So two
``plan-studio resume`` of one run at once both went on. The claim is a compare-and-set in the
store (``core.storage.RunClaims``): of two takers one wins, the other gets ``RunStillGoing``
naming the holder. A holder's claim lapses when its process is gone (same host: its pid) or its
lease runs out (renewed here every ``RENEW_SECONDS`` while it is held), so a killed process never
keeps a run from being resumed.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import socket
import threading
from contextlib import contextmanager
from typing import Any, Iterator

from .._errors import RunStillGoing
from . import _runtime

__all__ = ["LEASE", "RENEW_SECONDS", "RunClaimer", "executor_alive"]

LEASE = dt.timedelta(seconds=60)
RENEW_SECONDS = 15.0
log = logging.getLogger("core.durable.claims")


def executor_alive(executor: str | None) -> bool:
    """Whether the process with DBOS executor id ``executor`` (``host:pid:random``) may still be
    running; one on another host is taken to be alive (a worker's heartbeat decides there)."""
    if not executor or executor.count(":") < 2:
        return False
    host, pid_text, _random = executor.rsplit(":", 2)
    if host != socket.gethostname():
        return True
    if executor == _runtime.executor_id():
        return True
    try:
        os.kill(int(pid_text), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


class _Nested(threading.local):
    held: set[str] | None = None


class RunClaimer:
    """The claims this process holds on the runs of ``store``, renewed while held."""

    def __init__(self, store: Any) -> None:
        self._claims = store.claims
        self._nested = _Nested()
        self._held: dict[str, str] = {}  # run id -> token, renewed by the keeper thread
        self._lock = threading.Lock()
        self._keeper: threading.Thread | None = None

    @contextmanager
    def claimed(self, run_id: str) -> Iterator[None]:
        """Hold the claim on ``run_id`` while the block runs; ``RunStillGoing`` (naming the
        holder) when another process, or another thread here, holds it. A call inside a block
        of the same thread on the same run (resume carrying on through go_on) holds it already."""
        held = self._nested.held if self._nested.held is not None else set()
        self._nested.held = held
        if run_id in held:
            yield
            return
        me = _runtime.executor_id()
        with self._lock:
            mine_held = run_id in self._held

        def gone(holder: str) -> bool:
            # This process's own claim that no block here holds: left behind when its release
            # failed (the database away at the time), so nobody carries the run on.
            return (holder == me and not mine_held) or not executor_alive(holder)

        claim = self._claims.take(run_id, holder=me, lease=LEASE, gone=gone)
        if claim.token is None:
            raise RunStillGoing(f"run {run_id!r} is being carried on by {claim.holder} "
                                f"(since {claim.claimed_at:%Y-%m-%d %H:%M:%S} UTC); it is not run here")
        held.add(run_id)
        with self._lock:
            self._held[run_id] = claim.token
            self._start_keeper()
        try:
            yield
        finally:
            held.discard(run_id)
            with self._lock:
                self._held.pop(run_id, None)
            try:
                self._claims.release(run_id, claim.token)
            except Exception as exc:  # the database away: the claim lapses with its lease
                log.warning("could not release the claim on run %s: %s", run_id, exc)

    def _start_keeper(self) -> None:
        if self._keeper is None or not self._keeper.is_alive():
            self._keeper = threading.Thread(target=self._keep, name="plan-run-claims", daemon=True)
            self._keeper.start()

    def _keep(self) -> None:
        stop = threading.Event()
        while not stop.wait(RENEW_SECONDS):
            with self._lock:
                held = dict(self._held)
                if not held:
                    self._keeper = None
                    return
            for run_id, token in held.items():
                try:
                    self._claims.renew(run_id, token, LEASE)
                except Exception as exc:  # the database away for a moment: the next round tries again
                    log.warning("could not renew the claim on run %s: %s", run_id, exc)
