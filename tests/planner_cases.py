"""What the embedded planner's tests share: today, reference strings, tool names, and plans
written and compared the way the acceptance cases are (seed steps, ``limit: 100`` as absent)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from core import Plan
from core.formats import plan_to_seed

__all__ = ["C", "F", "I", "REF0", "REF1", "S", "T", "seed_steps", "step"]

T = dt.date(2025, 10, 12)
REF0, REF1 = "${step[0].data.*.id}", "${step[1].data.*.id}"
F, S, C, I = "facilities_list", "shipments_list", "contaminants_list", "inspections_list"


def step(tool: str, params: dict[str, Any] | None = None, deps: tuple[int, ...] = (),
         parallel: bool = False) -> dict[str, Any]:
    return {"tool": tool, "params": params or {}, "depends_on": list(deps), "parallel": parallel}


def seed_steps(plan: Plan) -> list[dict[str, Any]]:
    """Seed steps as the acceptance test compares them: ``limit: 100`` counts as absent."""
    return [{"tool": s["tool"],
             "params": {k: v for k, v in s["params"].items() if not (k == "limit" and v == 100)},
             "depends_on": sorted(s["depends_on"]), "parallel": s["parallel"]}
            for s in plan_to_seed(plan)["steps"]]


def seed_params(plan: Plan, n: int) -> dict[str, Any]:
    """Step ``n``'s params as the seed form writes them: references by position."""
    return plan_to_seed(plan)["steps"][n]["params"]
