"""Lab experiments in the store (revision 0003): saved and reopened whole, a version counter that
refuses a second tab's stale save without losing either, and the tools' last seen fingerprints."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from core import StorageError
from core.storage import ExperimentConflict, PlanStore
from core.storage.migrations import HEAD

MAIN = Path(__file__).parent.parent / "data" / "store-main-68be543.sqlite3"


def content(name: str, goals: list[str]) -> str:
    return json.dumps({"name": name, "goals": [{"goal": g} for g in goals]})


def test_an_experiment_is_saved_reopened_and_listed(tmp_path: Path) -> None:
    with PlanStore(tmp_path / "s.sqlite3") as store:
        first = store.lab.save("No city", content("No city", ["a"]))
        assert first.version == 1
        second = store.lab.save("No city, two goals", content("No city", ["a", "b"]),
                                experiment_id=first.id, expected_version=1)
        assert (second.id, second.version) == (first.id, 2)
        again = store.lab.load(first.id)
        assert (again.name, again.version, json.loads(again.content)["goals"][1]["goal"]) == ("No city, two goals", 2, "b")
        other = store.lab.save("Other", content("Other", []))
        assert [s.id for s in store.lab.list()] == [other.id, first.id]
        store.lab.delete(other.id)
        assert [s.id for s in store.lab.list()] == [first.id]


def test_a_second_tab_saving_an_older_version_is_refused_and_nothing_is_lost(tmp_path: Path) -> None:
    with PlanStore(tmp_path / "s.sqlite3") as store:
        saved = store.lab.save("E", content("E", ["a"]))
        store.lab.save("E", content("E", ["tab one"]), experiment_id=saved.id, expected_version=1)
        with pytest.raises(ExperimentConflict) as refused:
            store.lab.save("E", content("E", ["tab two"]), experiment_id=saved.id, expected_version=1)
        assert refused.value.latest == 2 and refused.value.expected == 1
        assert "version 2" in str(refused.value) and "E" in str(refused.value)
        assert json.loads(store.lab.load(saved.id).content)["goals"][0]["goal"] == "tab one"


def test_an_experiment_that_cannot_be_stored_is_refused(tmp_path: Path) -> None:
    with PlanStore(tmp_path / "s.sqlite3") as store:
        with pytest.raises(StorageError, match="experiment"):
            store.lab.save("bad \ud800", "{}")
        with pytest.raises(StorageError, match="no experiment"):
            store.lab.load("nope")


def test_the_tools_last_seen_fingerprints_are_remembered(tmp_path: Path) -> None:
    with PlanStore(tmp_path / "s.sqlite3") as store:
        assert store.lab.seen_tools() == {}
        store.lab.remember_tools({"a": "1", "b": "2"})
        store.lab.remember_tools({"a": "3"})
        assert store.lab.seen_tools() == {"a": "3"}


def test_a_file_from_before_the_lab_gets_its_tables_and_keeps_its_plans(tmp_path: Path) -> None:
    path = tmp_path / "main.sqlite3"
    shutil.copyfile(MAIN, path)
    with PlanStore(path) as store:
        assert store.list_plans()
        saved = store.lab.save("E", content("E", ["a"]))
        assert store.lab.load(saved.id).version == 1
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [(HEAD,)]
