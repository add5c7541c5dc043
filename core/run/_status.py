"""A step's status in a run, and one table of what each status means.

Every rule that asks "is this step done?", "may it run?", "does it stop the steps after it?"
reads the table here, so adding a status (or changing what one means) is one row, not a hunt
through the executor, the store, the CLI and the pages.
"""

from __future__ import annotations

import enum
from typing import NamedTuple

__all__ = ["BLOCKING", "CUT_OFF", "EXPLAINED", "FINISHED", "GOING", "RAN", "RESUMABLE", "REPORT_ORDER", "RUNNABLE",
           "STATUS_TABLE", "StatusTraits", "StepStatus"]


class StepStatus(str, enum.Enum):
    pending = "pending"
    running = "running"
    succeeded = "succeeded"
    failed = "failed"
    skipped = "skipped"
    interrupted = "interrupted"  # its run stopped while it ran; it runs again on the next run
    cancelled = "cancelled"  # the run was cancelled while it ran; its result, if any, was not kept
    waiting = "waiting"  # waits for a person to approve or reject it (``core.run._approval``)
    rejected = "rejected"  # a person said no before it ran; the steps after it are skipped


class StatusTraits(NamedTuple):
    """What a status says about its step."""

    finished: bool  # will not change again in this run: counts as done in "3 of 8 steps done"
    runnable: bool  # runs (again) once the steps it depends on have succeeded
    blocking: bool  # the steps that depend on it are skipped
    ran: bool  # its tool was called and answered: a result (or the tool's error) is recorded
    explained: bool  # its error says why it did not succeed
    cut_off: bool  # the run stopped while the step was (or is still marked) running
    going: bool  # the run is not over while a step has it: it runs, or waits for a person


# The order is the one reports list statuses in: outcomes first, then what is left to do.
STATUS_TABLE: dict[StepStatus, StatusTraits] = {
    #                                   finished runnable blocking ran    explained cut_off going
    StepStatus.succeeded: StatusTraits(True,    False,   False,   True,  False,    False,   False),
    StepStatus.failed: StatusTraits(True,       False,   True,    True,  True,     False,   False),
    StepStatus.skipped: StatusTraits(True,      False,   True,    False, True,     False,   False),
    StepStatus.rejected: StatusTraits(True,     False,   True,    False, True,     False,   False),
    StepStatus.interrupted: StatusTraits(False, True,    False,   False, True,     True,    False),
    StepStatus.cancelled: StatusTraits(False,   True,    False,   False, True,     True,    False),
    StepStatus.running: StatusTraits(False,     False,   False,   False, False,    True,    True),
    # Runnable: each pass looks again, runs it if approved for the arguments it has now, else
    # leaves it waiting; only the steps that depend on it wait with it.
    StepStatus.waiting: StatusTraits(False,     True,    False,   False, True,     False,   True),
    StepStatus.pending: StatusTraits(False,     True,    False,   False, False,    False,   False),
}


def _having(trait: str) -> frozenset[StepStatus]:
    return frozenset(s for s, traits in STATUS_TABLE.items() if getattr(traits, trait))


# Sets of statuses, for ``in`` tests. A str enum hashes and compares as its value, so the
# counts a run or the store keep by status name can be tested against them too.
FINISHED = _having("finished")
RUNNABLE = _having("runnable")
BLOCKING = _having("blocking")
RAN = _having("ran")
EXPLAINED = _having("explained")
CUT_OFF = _having("cut_off")
GOING = _having("going")
# A run stopped short with nothing going on (``Run.status`` is named after its steps'): it was
# cut off (``interrupted``) or cancelled, and Resume carries it on.
RESUMABLE = frozenset(s for s, traits in STATUS_TABLE.items() if traits.cut_off and traits.runnable)
REPORT_ORDER: tuple[StepStatus, ...] = tuple(STATUS_TABLE)
