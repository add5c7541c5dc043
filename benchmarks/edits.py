"""Prints how long each plan edit takes in core, on a 50-step and a 300-step plan: the server
side of the editor's round trip (click → graph updated) before anything is drawn.

    .venv/bin/python benchmarks/edits.py [--repeat N]

Figures, not assertions: compare them across commits on the same machine.
"""

from __future__ import annotations

import argparse
import datetime as dt
import tempfile
from pathlib import Path
from typing import Callable

from core import (Plan, EditHistory, Settings, Step, Validator, add_dependency, add_step, check_param, delete_step,
                  diff_plans, duplicate_step, move_step, output_paths, param_schema, preview_reference,
                  remove_dependency, set_param, set_reference)
from tools import build_registry

from _timing import timed as _timed


def timed(label: str, fn: Callable[[], object], repeat: int) -> None:
    _timed(label, fn, repeat, width=44, slowest=True)


def chain(size: int) -> Plan:
    """Facilities, then shipments of those, then contaminants of those, over and over."""
    steps = []
    for n in range(size):
        if n % 3 == 0:
            steps.append(Step(id=f"s{n}", tool="facilities_list", params={"location": "Berlin"}))
        elif n % 3 == 1:
            steps.append(Step(id=f"s{n}", tool="shipments_list", params={"facility_id": f"${{step[{n - 1}].data.*.id}}"}))
        else:
            steps.append(Step(id=f"s{n}", tool="contaminants_list",
                              params={"shipment_ids": f"${{step[{n - 1}].data.*.id}}"}))
    return Plan(goal="benchmark", steps=steps)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=30)
    repeat = parser.parse_args().repeat
    with tempfile.TemporaryDirectory() as tmp:
        registry = build_registry(Settings(data_dir=Path(tmp), today=dt.date(2025, 10, 12)), groups=["waste"])
        for size in (50, 300):
            plan = chain(size)
            mid = f"s{size // 2 - (size // 2) % 3}"  # a facilities_list step
            user = f"s{int(mid[1:]) + 1}"
            print(f"-- {size} steps")
            timed("add step (after the first)", lambda: add_step(plan, "inspections_list", after="s0"), repeat)
            timed("delete step (unlink its dependents)", lambda: delete_step(plan, mid, dependents="unlink"), repeat)
            timed("delete step (and its dependents)", lambda: delete_step(plan, mid, dependents="delete"), repeat)
            timed("duplicate step", lambda: duplicate_step(plan, mid), repeat)
            timed("move step to the front", lambda: move_step(plan, mid, 0), repeat)
            timed("add dependency (cycle check)", lambda: add_dependency(plan, "s0", mid), repeat)
            timed("remove dependency", lambda: remove_dependency(plan, mid, user), repeat)
            timed("set param", lambda: set_param(plan, mid, "location", "Munich"), repeat)
            timed("check param (checks the step)", lambda: check_param(registry, plan, mid, "limit", "10"), repeat)
            timed("set reference (schema and fit)", lambda: set_reference(plan, user, "facility_id", mid, "data.*.id",
                                                                         registry=registry), repeat)
            timed("output paths that fit a param", lambda: output_paths(
                registry, "facilities_list", param_schema(registry, "shipments_list", "facility_id")), repeat)
            timed("preview reference (no run)", lambda: preview_reference(plan, None, user, "facility_id",
                                                                         registry=registry), repeat)
            edited = set_param(move_step(plan, mid, 0), user, "limit", 5)
            timed("diff with the approved version", lambda: diff_plans(plan, edited), repeat)
            history = EditHistory(plan)
            timed("history push + undo + redo", lambda: (history.push(edited, "e"), history.undo(), history.redo()),
                  repeat)
            timed("validate (for comparison)", lambda: Validator(registry).validate(plan), repeat)


if __name__ == "__main__":
    main()
