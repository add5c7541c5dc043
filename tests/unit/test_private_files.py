"""The data folder and everything the studio keeps in it are private to the user: the folder
0700, its files 0600 (the SQLite -wal/-shm files included), also when the folder was made
earlier with looser modes. Each test runs under umask 022, the usual default, which on its own
would leave the files readable by every local user."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Iterator

import pytest

from core import Plan, Settings, Step
from core.storage import PlanStore
from studio.workbench._api_token import TOKEN_FILE, ensure_token
from studio.workbench._services import build_services
from tools.lists import ListStore


@pytest.fixture(autouse=True)
def _usual_umask() -> Iterator[None]:
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def _mode(path: Path) -> str:
    return oct(stat.S_IMODE(path.stat().st_mode))


def _modes(folder: Path) -> dict[str, str]:
    """Every file's mode (the folder's as ``.``), so a failure names the file that is open."""
    return {".": _mode(folder), **{p.name: _mode(p) for p in sorted(folder.iterdir())}}


def _plan() -> Plan:
    return Plan(goal="private", steps=[Step(id="a", tool="echo", params={"text": "x"})])


def _use_everything(data_dir: Path) -> PlanStore:
    """A studio start's worth of files: the store with a write (the WAL), the token, the lists."""
    store = PlanStore(Settings(data_dir=data_dir).store_path)
    store.save_plan(_plan(), message="first")
    ensure_token(data_dir)
    ListStore(data_dir / "lists.sqlite3").names()
    return store


def test_a_fresh_data_folder_and_its_files_are_private(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    store = _use_everything(data_dir)
    try:
        modes = _modes(data_dir)
        # While the store is open, its write-ahead log and shared memory exist and hold data.
        assert {"studio.sqlite3-wal", "studio.sqlite3-shm", TOKEN_FILE, "lists.sqlite3"} <= set(modes)
        assert modes == {".": "0o700", **{name: "0o600" for name in modes if name != "."}}
    finally:
        store.close()


def test_an_existing_folder_with_loose_modes_is_tightened(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    _use_everything(data_dir).close()
    # As an older studio (or a copy) left it: readable by everyone.
    data_dir.chmod(0o755)
    for name in ("studio.sqlite3", "lists.sqlite3", TOKEN_FILE):
        (data_dir / name).chmod(0o644)
    (data_dir / "studio.sqlite3-wal").write_bytes(b"")
    (data_dir / "studio.sqlite3-wal").chmod(0o644)

    build_services(Settings(data_dir=data_dir), registry=None).store.close()

    modes = _modes(data_dir)
    assert modes == {".": "0o700", **{name: "0o600" for name in modes if name != "."}}


def test_a_database_outside_the_data_folder_is_private_and_its_folder_left_alone(tmp_path: Path) -> None:
    shared = tmp_path / "projects"
    shared.mkdir(mode=0o755)
    shared.chmod(0o755)
    store = PlanStore(shared / "plans.sqlite3")
    try:
        store.save_plan(_plan(), message="first")
        modes = _modes(shared)
        assert set(modes) >= {"plans.sqlite3", "plans.sqlite3-wal", "plans.sqlite3-shm"}
        # The user's own folder is theirs to set; the files the studio made in it are private.
        assert modes == {".": "0o755", **{name: "0o600" for name in modes if name != "."}}
    finally:
        store.close()


def test_the_studio_started_on_a_loose_folder_tightens_it_and_writes_privately(tmp_path: Path) -> None:
    import json
    import urllib.request

    from conftest import start_studio

    data_dir = tmp_path / "data"
    _use_everything(data_dir).close()
    data_dir.chmod(0o755)
    for path in data_dir.iterdir():
        path.chmod(0o644)
    studio = start_studio(tmp_path)
    served = next(studio)
    try:
        # Started, before anyone opened a page: already private.
        assert _modes(data_dir) == {".": "0o700", **{name: "0o600" for name in _modes(data_dir) if name != "."}}
        token = (data_dir / TOKEN_FILE).read_text().strip()
        body = json.dumps({"plan": {"goal": "x", "steps": [{"id": "a", "tool": "facilities_list"}]}}).encode()
        request = urllib.request.Request(f"{served.url}/api/reviews", data=body, method="POST",
                                         headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request, timeout=60) as answer:
            assert answer.status == 201
        modes = _modes(data_dir)  # after a write through the running studio: its WAL too
        assert "studio.sqlite3-wal" in modes
        assert modes == {".": "0o700", **{name: "0o600" for name in modes if name != "."}}
    finally:
        studio.close()
