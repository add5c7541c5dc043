"""Prints how the server copes with big plans and big libraries (issue 8, item 6).

    .venv/bin/python benchmarks/big.py [--repeat N] [--skip-app] [--search-plans N]

Figures are CPU time (``time.process_time``, every thread of this process: the store, and for
the app figures Streamlit's script thread and the run's background worker), medians over
``--repeat`` tries. Figures, not assertions: compare them across commits on the same machine.

(a) the store with a 200-step plan and its finished run; (b) the Library's data and page with
1,000 saved plans; (c) search over 10,000 plans; (d) the Plan page: a 200-step plan committed
from the JSON panel, approved, Run all, Save; and how much the page sends per rerun.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

# This folder holds a studio.py of its own, which would shadow the studio package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from core import Executor, Plan, Settings
from core.storage import PlanStore
from tools import build_registry

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "studio" / "app.py"
LIBRARY = "../pages/library.py"
TODAY = "2025-10-12"
WORDS = ["contaminated", "shipments", "Berlin", "facilities", "failed", "inspections", "landfills",
         "Munich", "pending", "Leipzig", "GreenLine", "Straße", "50%", "a_b", 'quoted "text"']


def big_plan(steps: int) -> dict:
    """A chain of ``steps`` demo tool calls, each depending on the one before."""
    return {"goal": f"A plan of {steps} steps",
            "steps": [{"id": f"s{n}", "tool": "facilities_list", "params": {},
                       "depends_on": [f"s{n - 1}"] if n else []} for n in range(steps)]}


def goal(n: int) -> str:
    return f"Plan {n}: get {WORDS[n % len(WORDS)]} from {WORDS[(n * 7) % len(WORDS)]} number {n}"


def cpu(fn: Callable[[], object]) -> float:
    began = time.process_time()
    fn()
    return (time.process_time() - began) * 1000


def report(label: str, samples: list[float]) -> None:
    print(f"{label:<46} median {statistics.median(samples):9.2f} ms   "
          f"min {min(samples):9.2f} ms   n={len(samples)}", flush=True)


def timed(label: str, fn: Callable[[], object], repeat: int) -> None:
    report(label, [cpu(fn) for _ in range(repeat)])


# -- (a) the store and a 200-step plan ---------------------------------------------------------
def store_figures(tmp: Path, repeat: int) -> None:
    settings = Settings(data_dir=tmp, today=None)
    registry = build_registry(settings)
    plan = Plan.model_validate(big_plan(200))
    run = Executor(registry).execute(plan)
    store = PlanStore(tmp / "a.sqlite3")
    counter = iter(range(10**9))
    timed("save_plan (200 steps, new plan)", lambda: store.save_plan(plan), repeat)
    saved = store.save_plan(plan)
    timed("save_plan (200 steps, next version)", lambda: store.save_plan(
        plan.model_copy(update={"goal": f"v{next(counter)}"}), plan_id=saved.plan_id), repeat)
    timed("save_run (200 steps, finished)", lambda: store.save_run(run, plan_id=saved.plan_id,
                                                                    version=1), repeat)
    timed("load_plan (200 steps)", lambda: store.load_plan(saved.plan_id), repeat)
    timed("load_run (200 steps)", lambda: store.load_run(run.id), repeat)
    # What the studio writes when a tab's state changed (studio/_drafts.py): plan and run as JSON.
    timed("draft: dump + save_draft (200 steps + run)", lambda: store.save_draft("0" * 16, json.dumps(
        {"plan": plan.model_dump(mode="json"), "run": run.model_dump(mode="json")}, separators=(",", ":"))), repeat)
    store.close()


# -- (b) and (c) a big library -----------------------------------------------------------------
def fill(store: PlanStore, count: int, registry: object) -> None:
    """``count`` small plans; every 3rd has a second version, every 5th a finished run."""
    small = Plan.model_validate(big_plan(4))
    run = Executor(registry).execute(small)  # type: ignore[arg-type]
    for n in range(count):
        plan = small.model_copy(update={"goal": goal(n)})
        saved = store.save_plan(plan, message=f"save {n}")
        if n % 3 == 0:
            plan = plan.model_copy(update={"steps": plan.steps[:3]})
            saved = store.save_plan(plan, plan_id=saved.plan_id, message="shorter")
        if n % 5 == 0:
            store.save_run(run.model_copy(update={"id": f"run{n}", "plan": plan}), plan_id=saved.plan_id,
                           version=saved.version)


def library_data(store: PlanStore) -> None:
    """Every card's data the Library page asks the store for, whichever API the store has."""
    histories = getattr(store, "histories", None)
    if histories is not None:
        histories([summary.id for summary in store.list_plans("")])
        return
    for summary in store.list_plans(""):
        store.versions(summary.id)
        store.list_runs(summary.id)


def library_figures(tmp: Path, repeat: int, app: bool) -> None:
    data = tmp / "library"
    settings = Settings(data_dir=data, today=None)
    registry = build_registry(settings)
    store = PlanStore(settings.store_path)
    began = time.perf_counter()
    fill(store, 1000, registry)
    print(f"{'(filling 1,000 plans took)':<46} {time.perf_counter() - began:9.2f} s", flush=True)
    timed("list_plans (1,000 plans)", lambda: store.list_plans(""), repeat)
    timed("Library data (1,000 plans)", lambda: library_data(store), repeat)
    store.close()
    if app:
        from streamlit.testing.v1 import AppTest

        os.environ["PLAN_STUDIO_DATA_DIR"] = str(data)
        at = AppTest.from_file(str(APP), default_timeout=600).run()
        at.switch_page(LIBRARY)
        samples = [cpu(at.run) for _ in range(repeat)]
        assert not at.exception, [e.value for e in at.exception]
        report("Library page at.run() (1,000 plans)", samples)


def search_figures(tmp: Path, repeat: int, count: int) -> None:
    settings = Settings(data_dir=tmp / "search", today=None)
    store = PlanStore(settings.store_path)
    small = Plan.model_validate(big_plan(2))
    began = time.perf_counter()
    for n in range(count):
        store.save_plan(small.model_copy(update={"goal": goal(n)}))
    print(f"{'(filling ' + format(count, ',') + ' plans took)':<46} {time.perf_counter() - began:9.2f} s",
          flush=True)
    page = getattr(store, "count_plans", None) is not None
    for needle in ("munich", "STRASSE", "straße", "50%", "number 9999", "nothing like this"):
        hits = len(store.list_plans(needle))
        timed(f"search {needle!r} ({hits} hits / {count:,})", lambda: store.list_plans(needle), repeat)
        if page:  # what the Library asks for: how many match, and the first page of them
            timed("  count + first 50", lambda: (store.count_plans(needle),  # type: ignore[attr-defined]
                                                 store.list_plans(needle, limit=50)), repeat)  # type: ignore[call-arg]
    store.close()


# -- (d) the Plan page ---------------------------------------------------------------------------
def page_bytes(at: object) -> int:
    """The size of what the last run drew, as Streamlit would send it (its elements' protobufs)."""
    total = 0
    stack = [at._tree]  # type: ignore[attr-defined]
    while stack:
        node = stack.pop()
        proto = getattr(node, "proto", None)
        if proto is not None and hasattr(proto, "ByteSize"):
            total += proto.ByteSize()
        children = getattr(node, "children", None)
        if isinstance(children, dict):
            stack.extend(children.values())
    return total


def plan_page_figures(tmp: Path, repeat: int) -> None:
    from streamlit.testing.v1 import AppTest

    from studio import Keys

    text = json.dumps(big_plan(200), indent=2)
    figures: dict[str, list[float]] = {k: [] for k in (
        "commit 200-step plan from JSON panel", "Approve", "Run all (click to collected)",
        "Save (plan + run)", "rerun with nothing changed")}
    sizes: list[int] = []
    for n in range(repeat):
        os.environ["PLAN_STUDIO_DATA_DIR"] = str(tmp / f"page{n}")
        at = AppTest.from_file(str(APP), default_timeout=600).run()
        at.text_area(key=Keys.GOAL).input("Get contaminated shipments from Berlin facilities")
        at.button(key="plan.make").click().run()  # the JSON panel shows once there is a plan
        at.text_area(key=Keys.JSON).input(text)
        figures["commit 200-step plan from JSON panel"].append(cpu(at.run))
        at.button(key="plan.approve").click()
        figures["Approve"].append(cpu(at.run))

        def run_all() -> None:
            at.button(key="plan.run_all").click().run()
            worker = at.session_state[Keys.WORKER]
            if worker is not None:
                assert worker.join(600), "the run did not finish"
                at.run()

        figures["Run all (click to collected)"].append(cpu(run_all))
        at.button(key="plan.save").click()
        figures["Save (plan + run)"].append(cpu(at.run))
        figures["rerun with nothing changed"].append(cpu(at.run))
        sizes.append(page_bytes(at))
        assert not at.exception, [e.value for e in at.exception]
        assert len(at.session_state[Keys.PLAN].steps) == 200
        assert at.session_state[Keys.RUN_SAVED] is not None, "the run was not saved"
    for label, samples in figures.items():
        report(f"Plan page: {label}", samples)
    print(f"{'Plan page: elements sent after the run':<46} {statistics.median(sizes) / 1024:9.1f} KB", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--skip-app", action="store_true", help="store figures only, no AppTest")
    parser.add_argument("--search-plans", type=int, default=10_000)
    parser.add_argument("--only", choices=["store", "library", "search", "page"], action="append",
                        help="run only these parts (repeatable)")
    args = parser.parse_args()
    parts = set(args.only or ["store", "library", "search", "page"])
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PLAN_STUDIO_PLANNER", "PLAN_STUDIO_DB"):
        os.environ.pop(name, None)
    os.environ["PLAN_STUDIO_TODAY"] = TODAY
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        if "store" in parts:
            store_figures(tmp, args.repeat)
        if "library" in parts:
            library_figures(tmp, args.repeat, not args.skip_app)
        if "search" in parts:
            search_figures(tmp, max(args.repeat, 20), args.search_plans)
        if "page" in parts and not args.skip_app:
            plan_page_figures(tmp, max(1, args.repeat // 2))


if __name__ == "__main__":
    main()
