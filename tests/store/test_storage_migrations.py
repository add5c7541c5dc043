"""The store's schema comes from Alembic revisions: a new file is made at the newest one, and a
file from before migrations (``tests/data/store-main-68be543.sqlite3``, written by main at
68be543 with ``tests/data/make_store_main.py``) is brought to it in place, its data whole."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from core import Plan, Run, StorageError
from core.storage import PlanStore
from core.storage._migrate import script_directory
from core.storage.migrations import HEAD

DATA = Path(__file__).parent.parent / "data"
MAIN = DATA / "store-main-68be543.sqlite3"
EXPECTED = json.loads((DATA / "store-main-68be543.json").read_text())
# Step fields added since that file was written, each at its default when read back from it.
_NEWER_STEP_FIELDS = {"ask_first"}


def _as_main_wrote(plan) -> dict:
    return plan.model_dump(mode="json", exclude={"steps": {"__all__": _NEWER_STEP_FIELDS}})


def _revision(path: Path) -> list[tuple[str]]:
    with sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True) as db:
        return db.execute("SELECT version_num FROM alembic_version").fetchall()


def _schema(path: Path) -> set[tuple[str, str, str | None]]:
    # Read-only: a missing file is an error here, not an empty database made on the spot.
    with sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True) as db:
        # Main's schema and what later revisions add beside it (0003: the Lab's tables, tested in test_lab_store;
        # 0010: the audit and the claims on runs, tested in test_audit_store).
        return set(db.execute("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE '%alembic_version%' "
                              "AND name NOT LIKE '%lab\\_%' ESCAPE '\\' AND name NOT LIKE '%audit\\_event%' ESCAPE '\\' "
                              "AND name NOT LIKE '%run\\_claim%' ESCAPE '\\'"))


def _main_schema(folder: Path) -> set[tuple[str, str, str | None]]:
    """The schema main made, read from a copy: opening the file itself in WAL mode, even to
    read, would leave -wal and -shm files beside the committed fixture."""
    copy = folder / "main-schema.sqlite3"
    shutil.copyfile(MAIN, copy)
    return _schema(copy)


@pytest.fixture
def main_file(tmp_path: Path) -> Path:
    path = tmp_path / "from-main.sqlite3"
    shutil.copyfile(MAIN, path)
    return path


def test_head_is_the_newest_revision() -> None:
    assert script_directory().get_current_head() == HEAD


def _upgraded(schema: set[tuple[str, str, str | None]]) -> set[tuple[str, str, str | None]]:
    """Main's schema with what the revisions after 0001 add: the run's lineage (0004), the
    steps' decisions (0005), the calls retried (0006), people and agents' tokens (0007), every
    approver's record, the run's submitter and the grants (0008), what the policy asks (0009), the signed links used (0011), the agent's callback on a review (0012), what marks a rehearsal (0013)."""
    before = "plan_json VARCHAR NOT NULL, \n"
    after = ("plan_json VARCHAR NOT NULL, parent_id VARCHAR, rerun_from VARCHAR, submitted_by VARCHAR, "
             "rehearsal_json VARCHAR, \n")
    worker = ("table", "run_worker", "CREATE TABLE run_worker (\n\tid VARCHAR NOT NULL, \n\tseen_at DATETIME NOT NULL, "
              "\n\ttaken_over_by VARCHAR, \n\tPRIMARY KEY (id)\n)")
    decided = ("duration_ms FLOAT, \n",  # 0005, 0006, 0008, 0009
               "duration_ms FLOAT, decision_json VARCHAR, retried_json VARCHAR, approvals_json VARCHAR, "
               "ask_json VARCHAR, \n")
    submitted = ("version INTEGER, \n",  # 0007: submitted_by; 0012: the agent's callback
                 "version INTEGER, submitted_by VARCHAR, callback_url VARCHAR, callback_secret VARCHAR, \n")
    people = {  # 0007
        ("table", "person", "CREATE TABLE person (\n\tid VARCHAR NOT NULL, \n\tname VARCHAR NOT NULL, \n\temail VARCHAR "
         "NOT NULL, \n\trole VARCHAR NOT NULL, \n\tgroups_json VARCHAR NOT NULL, \n\tcreated DATETIME NOT NULL, "
         "\n\tPRIMARY KEY (id)\n)"),
        ("index", "sqlite_autoindex_person_1", None),
        ("table", "agent_token", "CREATE TABLE agent_token (\n\tname VARCHAR NOT NULL, \n\tagent_id VARCHAR NOT NULL, "
         "\n\trole VARCHAR NOT NULL, \n\ttoken_hash VARCHAR NOT NULL, \n\tcreated DATETIME NOT NULL, \n\tlast_used "
         "DATETIME, \n\trevoked_at DATETIME, \n\tPRIMARY KEY (name)\n)"),
        ("index", "sqlite_autoindex_agent_token_1", None),
        ("index", "ix_agent_token_token_hash", "CREATE UNIQUE INDEX ix_agent_token_token_hash ON agent_token (token_hash)"),
    }
    grants = ("table", "approval_grant", "CREATE TABLE approval_grant (\n\tid VARCHAR NOT NULL, \n\ttool VARCHAR NOT NULL, "
              "\n\tscope VARCHAR NOT NULL, \n\trun_id VARCHAR, \n\targuments_hash VARCHAR, \n\tcreated_at DATETIME NOT NULL, "
              "\n\texpires_at DATETIME, \n\trevoked_at DATETIME, \n\tcontent VARCHAR NOT NULL, \n\tPRIMARY KEY (id)\n)")
    return {(kind, name, sql.replace(before, after) if name == "run" else
             sql.replace(*decided) if name == "step_run" else
             sql.replace(*submitted) if name == "review" else sql) for kind, name, sql in schema} | {
        worker, ("index", "sqlite_autoindex_run_worker_1", None), grants,
        ("index", "ix_approval_grant_tool", "CREATE INDEX ix_approval_grant_tool ON approval_grant (tool)"),
        ("index", "sqlite_autoindex_approval_grant_1", None)} | people | {
        ("table", "link_use", "CREATE TABLE link_use (\n\tnonce VARCHAR NOT NULL, \n\tkind VARCHAR NOT NULL, "
         "\n\tsubject VARCHAR NOT NULL, \n\tstep_id VARCHAR NOT NULL, \n\tused_at DATETIME NOT NULL, "
         "\n\tused_by VARCHAR NOT NULL, \n\tPRIMARY KEY (nonce)\n)"),  # 0011: signed links used
        ("index", "sqlite_autoindex_link_use_1", None)}


def test_a_new_file_is_made_at_head_with_the_schema_main_made_and_upgraded(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite3"
    PlanStore(path).close()
    assert _revision(path) == [(HEAD,)]
    assert _schema(path) == _upgraded(_main_schema(tmp_path))
    with sqlite3.connect(path) as db:
        assert {"parent_id", "rerun_from"} <= {row[1] for row in db.execute("PRAGMA table_info(run)")}


def test_a_file_from_main_is_stamped_and_reads_back_whole(main_file: Path, tmp_path: Path) -> None:
    with sqlite3.connect(main_file) as db:
        assert "alembic_version" not in {n for (n,) in db.execute("SELECT name FROM sqlite_master")}
    with PlanStore(main_file) as store:
        plan_id = EXPECTED["plan_id"]
        assert [_as_main_wrote(store.load_plan(plan_id, v)) for v in (1, 2)] == EXPECTED["versions"]
        assert [v.message for v in store.versions(plan_id)] == ["first", "second"]
        assert store.load_run(EXPECTED["run_id"]) == Run.model_validate(EXPECTED["run"])
        assert store.latest_run_id(plan_id) == EXPECTED["run_id"]
        assert store.load_draft("tab1").content == EXPECTED["draft"]["content"]
        review_plan = Plan.model_validate(EXPECTED["review_plan"])
        pending = store.get_review(EXPECTED["pending_review"])
        assert (pending.status, pending.original_text, pending.plan) == ("pending", "AS SENT", review_plan)
        approved = store.get_review(EXPECTED["approved_review"])
        assert (approved.status, approved.comment, approved.plan_id) == ("approved", "fine", EXPECTED["approved_plan_id"])
        assert [s.id for s in store.list_plans("strasse")] == [plan_id]  # the search index came along
        store.save_draft("tab2", "new work")  # and it takes new records
    assert _revision(main_file) == [(HEAD,)]
    assert _schema(main_file) == _upgraded(_main_schema(tmp_path))


def test_opening_again_changes_nothing(main_file: Path) -> None:
    PlanStore(main_file).close()
    before = (_schema(main_file), _revision(main_file), main_file.stat().st_mode)
    with PlanStore(main_file) as store:
        assert store.load_draft("tab1").content == EXPECTED["draft"]["content"]
    assert (_schema(main_file), _revision(main_file), main_file.stat().st_mode) == before


def test_a_file_from_main_without_drafts_gets_the_table(main_file: Path) -> None:
    with sqlite3.connect(main_file) as db:
        db.execute("DROP TABLE draft")
    with PlanStore(main_file) as store:
        store.save_draft("tab1", "again")
        assert store.load_draft("tab1").content == "again"
        assert _as_main_wrote(store.load_plan(EXPECTED["plan_id"])) == EXPECTED["versions"][1]
    assert _revision(main_file) == [(HEAD,)]


def test_a_foreign_database_is_refused_and_left_unstamped(tmp_path: Path) -> None:
    path = tmp_path / "other-app.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE plan (name TEXT)")
    with pytest.raises(StorageError, match=f"{path} is not a Plan Studio store: table 'plan' lacks column"):
        PlanStore(path)
    with sqlite3.connect(path) as db:
        assert {n for (n,) in db.execute("SELECT name FROM sqlite_master")} == {"plan"}


def _stored_plans(path: Path) -> list[str]:
    with sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True) as db:
        return [text for table in ("plan_version", "run", "review")
                for (text,) in db.execute(f"SELECT plan_json FROM {table}")]


def test_references_stored_by_position_are_stored_and_read_by_id(main_file: Path) -> None:
    # main wrote the review's "${step[0].text}": step 0 is the step with id "a"
    assert any("${step[0].text}" in text for text in _stored_plans(main_file))
    with PlanStore(main_file) as store:
        pending = store.get_review(EXPECTED["pending_review"])
        assert pending.plan.step("b").params == {"to": "ops@example.com", "body": "${steps.a.text}"}
        assert pending.plan.dependencies_of("b") == ["a"]
        approved_id = EXPECTED["approved_plan_id"]
        saved = store.load_plan(approved_id, 1)
        assert saved.step("b").params["body"] == "${steps.a.text}"
        # the stored text is what a save writes now, so saving it unchanged makes no new version
        assert store.save_plan(saved, plan_id=approved_id).version == 1
    assert not any("${step[" in text for text in _stored_plans(main_file))
    assert sum("${steps.a.text}" in text for text in _stored_plans(main_file)) == 3  # two reviews, one version
