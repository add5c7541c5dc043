"""The Settings page's policy editor through Streamlit's AppTest, on the real app and store: a file
that does not read is named by its line and changes nothing; a good one is replayed over the
recorded decisions first (counts, and the cases where it disagrees with people), and saved only
when "Save this policy" is pressed.
"""

from __future__ import annotations

import datetime as dt
import stat
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core import Plan, Run, Step, StepDecision, StepStatus
from core.storage import PlanStore
from studio import Keys, get_services

APP = Path(__file__).resolve().parents[2] / "studio" / "app.py"
SETTINGS = "../pages/settings.py"

BROKEN = '[[rules]]\nname = "x"\noutcome = = "deny"\n'
NEW_POLICY = """\
[[rules]]
name = "no list deletes"
tool = "deleteList"
outcome = "deny"
reason = "lists are kept"

[[rules]]
name = "lists pass"
group = "lists"
outcome = "allow"
"""


def _decided(store: PlanStore, tool: str, params: dict, approved: bool) -> str:
    """A stored run of one step of ``tool`` that a person approved or rejected."""
    plan = Plan(goal=f"{tool} once", steps=[Step(id="s1", tool=tool, params=params)])
    saved = store.save_plan(plan)
    run = Run.for_plan(plan)
    state = run.steps["s1"]
    state.arguments = params
    state.status = StepStatus.succeeded if approved else StepStatus.rejected
    state.decision = StepDecision(approved=approved, arguments_hash="h", decided_at=dt.datetime.now(dt.timezone.utc),
                                  by="page")
    run.started_at = run.finished_at = dt.datetime.now(dt.timezone.utc)
    store.save_run(run, plan_id=saved.plan_id, version=saved.version)
    return run.id


@pytest.fixture
def at(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PLAN_STUDIO_PLANNER", "PLAN_STUDIO_DB", "PLAN_STUDIO_POLICY"):
        monkeypatch.delenv(name, raising=False)
    data = tmp_path / "data"
    monkeypatch.setenv("PLAN_STUDIO_DATA_DIR", str(data))
    monkeypatch.setenv("PLAN_STUDIO_TODAY", "2025-10-12")
    data.mkdir(mode=0o700)
    with PlanStore(data / "studio.sqlite3") as store:
        _decided(store, "addItem", {"list": "groceries", "item": "milk"}, approved=False)
        _decided(store, "deleteList", {"list": "old"}, approved=True)
        _decided(store, "showList", {"list": "groceries"}, approved=True)
    at = AppTest.from_file(str(APP), default_timeout=60).run()
    at.switch_page(SETTINGS).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _said(at: AppTest) -> str:
    parts = [e.value for kind in ("markdown", "caption", "error", "warning", "success", "info") for e in getattr(at, kind)]
    return "\n".join(str(p) for p in parts).replace("\\", "")


def _replay(at: AppTest, text: str) -> None:
    at.text_area(key=Keys.SETTINGS_POLICY_TEXT).input(text)
    at.button(key="settings.policy.replay").click().run()
    assert not at.exception, [e.value for e in at.exception]


def test_a_file_that_does_not_read_is_named_by_its_line_and_changes_nothing(at: AppTest, tmp_path: Path) -> None:
    assert "otherwise" in _said(at) and "read-only runs; any other step asks 1 approver" in _said(at)
    _replay(at, BROKEN)
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "line 3" in errors[0] and "policy in force is unchanged" in errors[0], errors
    assert not [b for b in at.button if b.key == "settings.policy.save"]  # nothing to save
    assert at.text_area(key=Keys.SETTINGS_POLICY_TEXT).value == BROKEN  # the text is kept to mend
    assert not (tmp_path / "data" / "policy.toml").exists()
    assert get_services().executor.limits.rules.is_default


def test_a_new_policy_is_replayed_and_saved_only_when_confirmed(at: AppTest, tmp_path: Path) -> None:
    _replay(at, NEW_POLICY)
    said = _said(at)
    # addItem (rejected by a person) would now be allowed; deleteList (approved) denied; showList allowed.
    assert "3 recorded steps: 2 allowed, 0 asked, 1 denied" in said, said
    assert "2 disagreements" in said
    assert "would allow what a person (page) rejected (allowed by rule lists pass)" in said
    assert "would deny what a person (page) approved (denied by rule no list deletes: lists are kept)" in said
    path = tmp_path / "data" / "policy.toml"
    assert not path.exists()  # replayed, not saved
    assert get_services().executor.limits.rules.is_default

    at.button(key="settings.policy.save").click().run()
    assert not at.exception
    assert [s.value.replace("\\", "") for s in at.success] == ["Saved: 2 rules in force from now on."]
    assert path.read_text() == NEW_POLICY
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    policy = get_services().executor.limits.rules
    assert [r.name for r in policy.rules] == ["no list deletes", "lists pass"]
    table = _said(at)
    assert table.index("no list deletes") < table.index("lists pass") < table.index("otherwise")


def test_replay_then_an_edit_hides_the_save_of_the_old_text(at: AppTest) -> None:
    _replay(at, NEW_POLICY)
    assert [b for b in at.button if b.key == "settings.policy.save"]
    at.text_area(key=Keys.SETTINGS_POLICY_TEXT).input(NEW_POLICY + "\n# changed\n").run()
    assert not [b for b in at.button if b.key == "settings.policy.save"]  # what was replayed is no longer there
