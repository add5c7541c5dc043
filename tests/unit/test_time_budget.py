"""A check's time budget counts what the check itself costs, not the time the machine spent on
other work meanwhile (core.schema._time_budget)."""

from __future__ import annotations

import threading
import time

from core.schema._time_budget import budget_spent, seconds_left, time_budget


def test_waiting_while_other_work_runs_does_not_spend_the_budget() -> None:
    with time_budget(0.05):
        time.sleep(0.2)  # the thread is off the CPU: a busy machine, another thread, a GC pause elsewhere
        assert not budget_spent() and seconds_left() > 0.0


def test_the_checks_own_work_spends_it() -> None:
    with time_budget(0.05):
        end = time.thread_time() + 0.06
        while time.thread_time() < end:
            pass
        assert budget_spent() and seconds_left() == 0.0


def test_another_threads_work_is_not_this_checks() -> None:
    def busy() -> None:
        end = time.thread_time() + 0.1
        while time.thread_time() < end:
            pass

    with time_budget(0.05):
        other = threading.Thread(target=busy)
        other.start()
        other.join()
        assert not budget_spent()
