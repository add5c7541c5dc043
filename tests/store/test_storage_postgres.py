"""The store on PostgreSQL: chosen by ``PLAN_STUDIO_DB``, the same records as on SQLite (the
record tests run on both through ``store_location``), and what only a server brings."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from core import Plan, Settings, Step, StorageError
from core.storage import PlanStore


def _plan(goal: str) -> Plan:
    return Plan(goal=goal, steps=[Step(id="s1", tool="bins_list", params={"city": "Berlin"})])


def test_plan_studio_db_names_a_postgresql_database_and_the_store_keeps_its_records_there(
        postgres, monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    url = postgres.new_database()
    monkeypatch.setenv("PLAN_STUDIO_DB", url)
    monkeypatch.setenv("PLAN_STUDIO_DATA_DIR", str(tmp_path))
    settings = Settings()
    assert settings.store_path == url  # a URL, not a path with its "//" folded
    assert Settings.model_validate_json(settings.model_dump_json()).store_path == url
    with PlanStore(settings.store_path) as store:
        saved = store.save_plan(_plan("Empty the bins in Berlin"))
        store.save_draft("tab", "{}")
    assert not list(tmp_path.iterdir())  # nothing written beside: it is all on the server
    with PlanStore(url) as again:
        assert [p.id for p in again.list_plans("BERLIN")] == [saved.plan_id]
        with again._database.engine.connect() as connection:
            assert connection.execute(text("SELECT count(*) FROM draft")).scalar() == 1


def test_goals_are_searched_through_a_trigram_index(postgres) -> None:
    with PlanStore(postgres.new_database()) as store:
        assert store._database.indexed
        store.save_plan(_plan("Straße 50% a_b"))
        store.save_plan(_plan("other"))
        assert [len(store.list_plans(s)) for s in ("STRASSE", "50%", "a_b", "0%a", "ab")] == [1, 1, 1, 0, 0]


def test_a_server_that_does_not_answer_is_a_storage_error_naming_it_without_the_password(postgres) -> None:
    url = f"postgresql+psycopg://plan:secret-pw@127.0.0.1:{postgres.port + 1}/nowhere"
    with pytest.raises(StorageError) as caught:
        PlanStore(url)
    assert "127.0.0.1" in str(caught.value) and "secret-pw" not in str(caught.value)


def test_another_database_kind_is_refused_by_name() -> None:
    with pytest.raises(StorageError, match="postgresql\\+psycopg://, not postgresql\\+asyncpg"):
        PlanStore("postgresql+asyncpg://plan@127.0.0.1/x")
