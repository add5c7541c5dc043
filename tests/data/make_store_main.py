"""Writes ``store-main-68be543.sqlite3`` and what it holds (``store-main-68be543.json``) with
the store code of main at 68be543, the last schema made without migrations.

Run from a checkout of that commit (``git worktree add /tmp/m 68be543``):
``python tests/data/make_store_main.py``. The file is committed: the migration tests open it
with today's code and expect every record below back.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path.cwd()))

from core import Executor, Plan, ToolRegistry  # noqa: E402
from core.storage import PlanStore  # noqa: E402

HERE = Path(__file__).parent
NAME = "store-main-68be543"


def _registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.register
    def count_words(text: str) -> int:
        """Count the words of a text.

        Args:
            text: The text.
        """
        return len(text.split())

    return registry


def main() -> None:
    path = HERE / f"{NAME}.sqlite3"
    for leftover in HERE.glob(f"{NAME}.sqlite3*"):
        leftover.unlink()
    plan = Plan.model_validate({"goal": "Count the words of Straße notes", "steps": [
        {"id": "count", "tool": "count_words", "params": {"text": "one two three"}}]})
    edited = plan.model_copy(update={"goal": "Count the words of the STRASSE notes"})
    review_plan = Plan.model_validate({"goal": "mail the report", "steps": [
        {"id": "a", "tool": "make_report", "params": {"days": 7}},
        {"id": "b", "tool": "send_mail", "params": {"to": "ops@example.com", "body": "${step[0].text}"},
         "depends_on": ["a"]}]})
    with PlanStore(path) as store:
        first = store.save_plan(plan, message="first")
        second = store.save_plan(edited, plan_id=first.plan_id, message="second")
        run = Executor(_registry()).execute(edited)
        store.save_run(run, plan_id=first.plan_id, version=second.version)
        store.save_draft("tab1", '{"text": "unsaved work"}')
        pending = store.submit_review(review_plan, agent="bot", fmt="native", original_text="AS SENT")
        decided = store.submit_review(review_plan, agent="bot", fmt="native", original_text="AS SENT 2")
        approved = store.decide_review(decided.id, approve=True, plan=review_plan, comment="fine")
    expected = {
        "plan_id": first.plan_id, "versions": [plan.model_dump(mode="json"), edited.model_dump(mode="json")],
        "run_id": run.id, "run": run.model_dump(mode="json"),
        "draft": {"id": "tab1", "content": '{"text": "unsaved work"}'},
        "pending_review": pending.id, "approved_review": approved.id,
        "approved_plan_id": approved.plan_id, "review_plan": review_plan.model_dump(mode="json"),
    }
    (HERE / f"{NAME}.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
