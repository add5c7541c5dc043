"""Issue 27, item 3 (Settings, AppTest): the grants in force are listed with what they let pass,
who granted them and when they end; Revoke ends one (it lets nothing pass from then on)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core import Grant
from core.storage import PlanStore

APP = Path(__file__).resolve().parents[2] / "studio" / "app.py"
SETTINGS = "../pages/settings.py"


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PLAN_STUDIO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PLAN_STUDIO_TODAY", "2025-10-12")
    return tmp_path / "data"


def test_grants_are_listed_and_revoked_on_settings(data_dir: Path) -> None:
    at = AppTest.from_file(str(APP), default_timeout=60).run()
    at.switch_page(SETTINGS).run()
    assert any("No grants in force" in c.value for c in at.caption)
    from studio import get_services
    store: PlanStore = get_services().store
    now = dt.datetime.now(dt.timezone.utc)
    grant = store.grants.add(Grant(tool="refund", scope="always", arguments_hash="h" * 64,
                                   arguments={"order": "o1", "amount": "<b>5</b>"}, granted_by="user:ann",
                                   granted_by_name="Ann", channel="page", created_at=now,
                                   expires_at=now + dt.timedelta(days=30)))
    at.run()
    [line] = [m.value for m in at.markdown if "granted by Ann" in m.value]
    assert "refund with exactly" in line and "\\(page\\)" in line and "<b>" not in line  # escaped
    at.button(key=f"settings.grants.{grant.id}.revoke").click().run()
    assert not at.exception
    assert store.grants.listed() == [] and store.grants.get(grant.id).revoked_at is not None
    assert any("Revoked the grant" in s.value for s in at.success)
    assert any("No grants in force" in c.value for c in at.caption)
