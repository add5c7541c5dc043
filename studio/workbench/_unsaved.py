"""Whether the editor holds work that is not saved anywhere (but a tab's draft)."""

from __future__ import annotations

from ._bench import Workbench
from ._editing import fingerprint

__all__ = ["not_saved"]


def not_saved(bench: Workbench) -> str | None:
    """Why the editor's work differs from what it came from or was saved as, or None."""
    if bench.json_pending:
        return "an edit you made during the run waits in the Plan JSON"
    if bench.json_error is not None:
        return "the Plan JSON holds text that does not parse yet"
    plan = bench.plan
    if plan is None:
        return None
    if bench.saved is not None:
        return None if bench.saved.fingerprint == fingerprint(plan) else \
            f"the plan was edited since version {bench.saved.version} was saved"
    if bench.baseline == fingerprint(plan):
        return None
    return "the plan was edited and is not saved"
