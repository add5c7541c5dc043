"""The one registry of the runs this process drives, owned by the services (``Services.runs``).

Whatever asks "does this studio carry run X out now?", "which handle carries it?", "which
runs wait for a person's decision?" or "which run did this tab leave going?" asks it: the Plan
page's runs (``_running``), Resume (``_resuming``), the review API's resume, cancel and
decisions (``_run_control``, ``_deciding``), reruns by id (``_rerunning``), the Library's
"running" (``listed_status``), a reloaded tab (``studio.ui._drafts``). Nothing else in the
studio keeps a list of live runs; the durable engine knows the workflows it drives in this
process (``DurableRuns.being_run_here``), and is asked where that matters.

A handle is registered when it starts carrying out a part of a run (``carry``) and leaves
when that part ends (``ended``); a run that ends its part with steps waiting for a person is
then held by id for a decision (``hold_if_waiting``) until it is driven again (``let_go``).
Every method is safe from any thread; ``lock`` (re-entrant) lets a caller check and change
in one step (a decision taken from two places at once is taken once).
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Callable, Protocol

from core import Run, waiting_steps

if TYPE_CHECKING:  # pragma: no cover
    from ._run_handle import RunHandle

__all__ = ["Carrier", "RunsHere"]

log = logging.getLogger("studio.runs")

# Runs kept for a decision; the oldest leave first past this many (each tab holds one run).
MAX_HELD = 256


class Carrier(Protocol):
    """Whatever carries a run out: a page's run handle (``RunHandle``), the caller's own thread
    (``_carrying``). The registry only waits for it."""

    def join(self, timeout: float | None = None) -> bool: ...


class RunsHere:
    """The runs this process carries out now, those held for a person's decision, and the run
    each tab left going (for the tab, reloaded, to pick up)."""

    def __init__(self, max_held: int = MAX_HELD) -> None:
        self.lock = threading.RLock()
        self._going: dict[str, Carrier] = {}  # run id -> the handle carrying it out now
        self._held: OrderedDict[str, Run] = OrderedDict()  # run id -> the run, waiting for a person
        self._tabs: dict[str, RunHandle] = {}  # a tab's draft id -> the handle of the run it started
        self._max_held = max_held
        # Told (outside the lock, on the thread whose part ended) of a run that stopped with steps
        # waiting: the webhook's notifier (``_webhooks``). Never breaks the run if it raises.
        self.on_held: Callable[[Run], None] | None = None

    # -- carried out here ------------------------------------------------------------------------
    def carry(self, run_id: str, handle: Carrier) -> bool:
        """Register ``handle`` as carrying out ``run_id`` from now; False (nothing registered)
        when another handle carries it out already. No decision on it from elsewhere meanwhile."""
        with self.lock:
            if run_id in self._going:
                return False
            self._going[run_id] = handle
            self._held.pop(run_id, None)
            return True

    def ended(self, run: Run, handle: Carrier | None = None) -> None:
        """``handle``'s part of ``run`` ended: ``run`` (as it left it) is held if steps wait."""
        with self.lock:
            self.hold_if_waiting(run)
            self.left(run.id, handle)
            held = run.id in self._held
        tell = self.on_held
        if held and tell is not None:
            try:
                tell(run)
            except Exception:  # a notification never breaks the run it is about
                log.exception("telling of run %s waiting for a person failed", run.id)

    def left(self, run_id: str, handle: Carrier | None = None) -> None:
        """``handle`` carries ``run_id`` out no more (cut short: nothing to hold)."""
        with self.lock:
            if handle is None or self._going.get(run_id) is handle:
                self._going.pop(run_id, None)

    def going(self, run_id: str) -> bool:
        """Whether a handle of this process carries ``run_id`` out now."""
        with self.lock:
            return run_id in self._going

    def handle(self, run_id: str) -> Carrier | None:
        with self.lock:
            return self._going.get(run_id)

    def join(self, run_id: str, timeout: float | None = None) -> bool:
        """Wait (at most ``timeout`` seconds) until ``run_id``'s handle here ended; True when it
        has, or none carries it out."""
        handle = self.handle(run_id)
        return handle is None or handle.join(timeout)

    # -- waiting for a person --------------------------------------------------------------------
    def hold_if_waiting(self, run: Run) -> None:
        """Keep ``run`` for a decision while it has waiting steps; else forget it."""
        with self.lock:
            if waiting_steps(run):
                self._held[run.id] = run
                self._held.move_to_end(run.id)
                while len(self._held) > self._max_held:
                    self._held.popitem(last=False)
            else:
                self._held.pop(run.id, None)

    def let_go(self, run_id: str) -> None:
        """``run_id`` is driven again (or replaced, or decided): no decision on it from elsewhere."""
        with self.lock:
            self._held.pop(run_id, None)

    def held(self, run_id: str) -> Run | None:
        with self.lock:
            return self._held.get(run_id)

    def forget_held(self) -> None:
        """Hold nothing (what a restart of the studio leaves: the runs are in the store)."""
        with self.lock:
            self._held.clear()

    # -- tabs --------------------------------------------------------------------------------------
    def tab_left(self, draft_id: str, handle: RunHandle | None) -> None:
        """The tab of ``draft_id`` holds ``handle`` (a run it started, going on) or none now."""
        with self.lock:
            if handle is None:
                self._tabs.pop(draft_id, None)
            else:
                self._tabs[draft_id] = handle

    def take_tab_run(self, draft_id: str) -> RunHandle | None:
        """The handle the tab of ``draft_id`` left (a reload), for the new session to show."""
        with self.lock:
            return self._tabs.pop(draft_id, None)
