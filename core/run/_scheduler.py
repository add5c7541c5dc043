"""Which steps of a run may start now: a count of unfinished dependencies per step.

Built once per pass over a run, from the steps' statuses then: a step is ready when every
step it depends on has finished (succeeded, failed or skipped; the executor skips a ready step
whose dependency did not succeed). Each finished step lowers the counts of the steps that
depend on it, so a whole pass costs one look at every step and every dependency (the
executor used to look at every unfinished step after each step: the square of a long chain).
Of the steps ready at once the one earliest in the plan comes first, so with one step at a
time a run goes in the order ``run_order`` gives.

A step waiting on a step that is ``running`` under another live worker never becomes ready in
this pass: the pass ends with it unfinished ("held"), and a later pass looks again.
"""

from __future__ import annotations

import heapq

from ._model import Run
from ._status import FINISHED, RUNNABLE

__all__ = ["ReadySteps"]


class ReadySteps:
    """The ready steps of ``run``, released as the steps they need finish."""

    def __init__(self, run: Run) -> None:
        plan = run.plan
        self.positions = {s.id: n for n, s in enumerate(plan.steps)}
        self.dependencies: dict[str, list[str]] = {}
        self._dependants: dict[str, list[str]] = {s.id: [] for s in plan.steps}
        self._unfinished: dict[str, int] = {}
        self._ready: list[tuple[int, str]] = []
        states = run.steps
        for step in plan.steps:
            needs = [d for d in plan._dependencies(step, self.positions) if d in self._dependants]
            self.dependencies[step.id] = needs
            count = 0
            for need in needs:
                self._dependants[need].append(step.id)
                if states[need].status not in FINISHED:
                    count += 1
            self._unfinished[step.id] = count
            if count == 0 and states[step.id].status in RUNNABLE:
                self._ready.append((self.positions[step.id], step.id))
        heapq.heapify(self._ready)

    def __bool__(self) -> bool:
        return bool(self._ready)

    def pop(self) -> str:
        """The ready step earliest in the plan (``IndexError`` when none is)."""
        return heapq.heappop(self._ready)[1]

    def finished(self, step_id: str, run: Run) -> None:
        """``step_id`` finished: the steps that needed only it more become ready."""
        for dependant in self._dependants[step_id]:
            self._unfinished[dependant] -= 1
            if self._unfinished[dependant] == 0 and run.steps[dependant].status in RUNNABLE:
                heapq.heappush(self._ready, (self.positions[dependant], dependant))
