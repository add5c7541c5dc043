"""Saving over a version someone else replaced: ``save_plan(expected_version=N)`` on a real
SQLite file refuses with ``VersionConflict`` instead of silently stacking on the newer version."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from core import Plan, Step, StorageError, VersionConflict
from core.storage import PlanStore


def _plan(city: str) -> Plan:
    return Plan(goal="Shipments from facilities", steps=[
        Step(id="a", tool="facilities_list", params={"location": city})])


@pytest.fixture
def path(store_location: str | Path) -> str | Path:
    """The store on a SQLite file and on PostgreSQL: two writers must not both pass a check."""
    return store_location


def test_a_save_from_the_latest_version_is_accepted(path: Path) -> None:
    with PlanStore(path) as store:
        first = store.save_plan(_plan("Berlin"))
        second = store.save_plan(_plan("Munich"), plan_id=first.plan_id, expected_version=1)
        assert second.version == 2


def test_a_save_from_an_older_version_is_refused_and_names_the_newer_one(path: Path) -> None:
    with PlanStore(path) as store:
        first = store.save_plan(_plan("Berlin"))
        munich = _plan("Munich")  # kept: a second plan could differ in created_at
        store.save_plan(munich, plan_id=first.plan_id, message="other tab")
        with pytest.raises(VersionConflict) as caught:
            store.save_plan(_plan("Hamburg"), plan_id=first.plan_id, expected_version=1)
        conflict = caught.value
        assert isinstance(conflict, StorageError)
        assert (conflict.plan_id, conflict.expected, conflict.latest) == (first.plan_id, 1, 2)
        assert conflict.message == "other tab"
        assert conflict.saved_at == store.versions(first.plan_id)[1].created_at
        assert "newer version 2" in str(conflict)
        assert [v.version for v in store.versions(first.plan_id)] == [1, 2]  # nothing written
        assert store.load_plan(first.plan_id) == munich


def test_saving_exactly_what_the_newer_version_holds_is_no_conflict(path: Path) -> None:
    # Nothing would be lost: the plan is already stored as the latest version.
    with PlanStore(path) as store:
        first = store.save_plan(_plan("Berlin"))
        munich = _plan("Munich")  # one object: two built a second apart differ in created_at
        store.save_plan(munich, plan_id=first.plan_id)
        again = store.save_plan(munich, plan_id=first.plan_id, expected_version=1)
        assert again.version == 2


def test_two_racing_saves_from_the_same_version_never_both_pass(path: Path) -> None:
    # Two stores on one file, like two studio processes; each round both save from the
    # latest version at the same moment: exactly one is stored, the other told of it.
    PlanStore(path).close()
    stores = [PlanStore(path), PlanStore(path)]
    plan_id = stores[0].save_plan(_plan("start")).plan_id
    rounds = 20
    start = threading.Barrier(2)
    outcomes: list[list[object]] = [[], []]

    def work(worker: int) -> None:
        for n in range(rounds):
            start.wait()
            expected = max(v.version for v in stores[worker].versions(plan_id))
            start.wait()  # both read the same latest version before either saves
            try:
                saved = stores[worker].save_plan(_plan(f"worker {worker} round {n}"), plan_id=plan_id,
                                                 expected_version=expected)
                outcomes[worker].append(saved.version)
            except VersionConflict as conflict:
                outcomes[worker].append(conflict)
            except BaseException as exc:  # collected: a thread's failure must fail the test
                outcomes[worker].append(exc)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for store in stores:
        store.close()

    for n, (one, two) in enumerate(zip(*outcomes)):
        assert not isinstance(one, Exception) or isinstance(one, VersionConflict), one
        assert not isinstance(two, Exception) or isinstance(two, VersionConflict), two
        [won] = [o for o in (one, two) if isinstance(o, int)]
        [lost] = [o for o in (one, two) if isinstance(o, VersionConflict)]
        assert won == n + 2 and lost.latest == won and lost.expected == n + 1
    with PlanStore(path) as store:
        assert [v.version for v in store.versions(plan_id)] == list(range(1, rounds + 2))
