"""A run driven on a thread of its own, while the caller waits: ``Executor.drive``, the one driver
of every run somebody asks for (``execute``, the CLI, a page, a worker, a DBOS workflow; ADR 0004).

Driving the run on a thread of its own lets that thread call a lone step's sync tool itself,
with its time limit kept all the same: a call that overruns (or is running when the run is
cancelled) is given up by the watchdog (``_watchdog``), its thread left in the tool, and the
run carried on from a new thread (``RunPass.carry_on``). A run driven by its consumer
(``run_all``, whose events are yielded to the caller's thread) cannot do that, as a thread left
in a tool would take its consumer with it: there a tool with a time limit is called on a pool
thread, and its outcome handed back.

Events go to ``on_event``, called on the driving thread between steps, as a consumer of
``run_all`` sees them. The caller waits in bounded sleeps, so that Ctrl-C on the main thread
cancels the run (its running steps become ``cancelled``) and is raised once the run has
stopped. An error on the driving thread (a recorder that failed, ``on_event`` raising) is
raised to the caller, the steps running then marked ``interrupted``, as ``run_all`` does.
"""

from __future__ import annotations

import threading
from typing import Callable, Generator

from ._events import Event
from ._signals import CTRL_C_WAIT, leave_ctrl_c_to_the_main_thread
from ._step_call import submit
from ._watchdog import HandedOver

__all__ = ["DrivenRun"]

Events = Generator[Event, None, None]


class DrivenRun:
    """One run driven on pool threads: ``drive`` starts it and waits for its end."""

    def __init__(self, on_event: Callable[[Event], object] | None = None) -> None:
        self._on_event = on_event
        self._ended = threading.Event()
        self._error: BaseException | None = None
        self._carry_on: Callable[[], Events] | None = None

    def drive(self, events: Events, *, carry_on: Callable[[], Events], cancel: Callable[[], object]) -> None:
        """Consume ``events`` on a pool thread until the run stops; ``carry_on()``: the rest of
        the run's events after a hand-over; ``cancel()``: cancel the run (from any thread)."""
        self._carry_on = carry_on
        submit(lambda: self._consume(events))
        try:
            while not self._ended.wait(CTRL_C_WAIT):
                pass
        except KeyboardInterrupt:
            cancel()
            self._ended.wait()
            raise
        if self._error is not None:
            raise self._error

    def hand_over(self) -> None:
        """The driving thread was left in a call given up (from the watchdog's thread, or a
        canceller's): a new thread carries the run on."""
        assert self._carry_on is not None
        events = self._carry_on()
        submit(lambda: self._consume(events))

    def _consume(self, events: Events) -> None:
        leave_ctrl_c_to_the_main_thread()
        try:
            for event in events:
                if self._on_event is not None:
                    self._on_event(event)
        except HandedOver:
            return  # another thread has the run; the one that ends it says so
        except BaseException as exc:  # told to the caller, which raises it
            self._error = exc
            try:
                events.close()  # raised by on_event: the steps running are interrupted
            except BaseException:  # noqa: BLE001 - already on the way out with the error told
                pass
        self._ended.set()
