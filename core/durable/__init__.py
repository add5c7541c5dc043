"""Durable runs: every run in the store from its first step, each step recorded as it happens,
carried on after a kill without running a finished step again; DBOS underneath (``_runtime``),
behind ``DurableRuns`` (``_durable_runs``)."""

from .._errors import RunStillGoing, StepsInDoubt
from ._durable_runs import DurableRuns, executor_alive
from ._effects import may_repeat, may_repeat_named
from ._rerun import WRITES_AGAIN, RerunChoice, named_step, rerun_choice, step_line
from ._worker import serve_queue
from ._workflow import IN_DOUBT, cut_off_steps

__all__ = ["IN_DOUBT", "WRITES_AGAIN", "cut_off_steps", "DurableRuns", "RerunChoice", "named_step", "rerun_choice",
           "step_line", "serve_queue", "RunStillGoing", "StepsInDoubt", "executor_alive", "may_repeat",
           "may_repeat_named"]
