"""Calls made on the thread that drives a run, given up when they overrun or the run is cancelled.

A run driven on a thread of its own (``_driven_run``) calls a lone step's sync tool right there,
rather than handing it to a pool thread and back: on a two-core VM that round trip costs about
as much CPU as the rest of a short step. Nothing can stop a sync call from outside, so a call
that overruns its time limit (or is running when the run is cancelled) is *given up*: the thread
stays in the tool, and ``InlineCall.give_up`` tells the run to carry on from a new thread. When
the tool returns at last, ``finish()`` says the call was given up, and its thread leaves without
touching the run (``HandedOver``), as a pool thread left in an abandoned call drops its outcome.

One daemon thread, the watchdog, keeps every time limit. Watching a call must cost next to
nothing, as it happens for every step, and waking a thread is what costs (about 17 µs of CPU on
an idle core of a VM): the watchdog is woken only when a call's deadline comes before the time
it sleeps until. It sleeps until the earliest deadline it knows, whether or not that call has
returned since (it finds out when it wakes), and with nothing to watch it looks again every
second, for a minute, so a call held to a limit of a second or more does not wake it; after
that minute it sleeps until woken.
"""

from __future__ import annotations

import math
import os
import threading
import time
from typing import Callable

from .._errors import HandedOver
from ._signals import leave_ctrl_c_to_the_main_thread

__all__ = ["HandedOver", "InlineCall", "watchdog"]

_IDLE_LOOK = 1.0  # seconds between looks with nothing to watch
_IDLE_LOOKS = 60  # looks with nothing to watch before it sleeps until woken


_RUNNING, _RETURNED, _GIVEN_UP = "running", "returned", "given up"


class InlineCall:
    """A call in progress on a run's driving thread; ``hand_over`` carries the run on elsewhere."""

    __slots__ = ("_hand_over", "_lock", "_state")

    def __init__(self, hand_over: Callable[[], None]) -> None:
        self._hand_over = hand_over
        self._lock = threading.Lock()
        self._state = _RUNNING

    def finish(self) -> bool:
        """Called by the calling thread when the call returns: False if it was given up since."""
        with self._lock:
            if self._state == _GIVEN_UP:
                return False
            self._state = _RETURNED
            return True

    def give_up(self) -> bool:
        """Give the call up if it is still running (from any thread): the run carries on from a
        new thread. False if it had returned: its own thread goes on with the run."""
        with self._lock:
            if self._state != _RUNNING:
                return False
            self._state = _GIVEN_UP
        self._hand_over()
        return True


class _Watchdog:
    def __init__(self) -> None:
        self._wake = threading.Condition(threading.Lock())
        self._deadlines: dict[InlineCall, float] = {}  # monotonic
        self._sleeps_until = math.inf  # the deadline the watchdog sleeps until, maybe stale
        self._thread: threading.Thread | None = None

    def watch(self, call: InlineCall, deadline: float) -> None:
        """Give ``call`` up at ``deadline`` (``time.monotonic``) unless ``forget`` comes first."""
        with self._wake:
            self._deadlines[call] = deadline
            if self._thread is None:
                self._thread = threading.Thread(target=self._keep, name="plan-watchdog", daemon=True)
                self._thread.start()
            elif deadline < self._sleeps_until:
                self._wake.notify()

    def forget(self, call: InlineCall) -> None:
        with self._wake:  # not woken: it finds the call gone when it wakes at the deadline
            self._deadlines.pop(call, None)

    def _keep(self) -> None:
        leave_ctrl_c_to_the_main_thread()
        idle = 0
        while True:
            with self._wake:
                clock = time.monotonic()
                overdue = [call for call, deadline in self._deadlines.items() if deadline <= clock]
                for call in overdue:
                    del self._deadlines[call]
                if not overdue:
                    idle = 0 if self._deadlines else idle + 1
                    self._sleeps_until = (min(self._deadlines.values()) if self._deadlines
                                          else clock + _IDLE_LOOK if idle <= _IDLE_LOOKS else math.inf)
                    self._wake.wait(None if self._sleeps_until == math.inf else self._sleeps_until - clock)
                    continue
            for call in overdue:  # outside the lock: a hand-over starts a thread
                call.give_up()


watchdog = _Watchdog()


# A forked child has the watchdog's state but not its thread; reset in place, as modules hold it.
os.register_at_fork(after_in_child=watchdog.__init__)
