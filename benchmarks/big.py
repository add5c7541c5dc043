"""Prints how the server copes with big plans and big libraries (issue 8, item 6).

    .venv/bin/python benchmarks/big.py [--repeat N] [--skip-app] [--search-plans N] [--only PART]
    .venv/bin/python benchmarks/big.py --against PATH   # before and after, side by side

With ``--against PATH`` (a checkout of older code, e.g. ``git worktree add /tmp/before
b0452cb``) each part runs twice, in child processes, once on the code at PATH and once on this
checkout's, one right after the other so both see the same load on the machine; the table
gives each figure's two medians and their ratio. The same benchmark code (this file) drives
both; only what it imports (``core``, ``tools``, ``studio``, the app) differs.

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
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

# This folder holds a studio.py of its own, which would shadow the studio package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from core import Executor, Plan, Settings
from core.storage import PlanStore
from tools import build_registry

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]  # the code under test; a child run with --root measures another checkout
APP = ROOT / "studio" / "app.py"
# Every figure as it is reported: (label, samples, unit); a child prints them as JSON.
RESULTS: list[tuple[str, list[float], str]] = []
QUIET = False
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


def report(label: str, samples: list[float], unit: str = "ms") -> None:
    RESULTS.append((label, samples, unit))
    if QUIET:
        return
    if unit != "ms":
        print(f"{label:<46} {statistics.median(samples):9.1f} {unit}", flush=True)
        return
    print(f"{label:<46} median {statistics.median(samples):9.2f} ms   "
          f"min {min(samples):9.2f} ms   n={len(samples)}", flush=True)


def note(text: str) -> None:
    if not QUIET:
        print(text, flush=True)


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
    # What the studio writes when a tab's state changed (studio/ui/_drafts.py): plan and run as JSON.
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
    note(f"{'(filling 1,000 plans took)':<46} {time.perf_counter() - began:9.2f} s")
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
    note(f"{'(filling ' + format(count, ',') + ' plans took)':<46} {time.perf_counter() - began:9.2f} s")
    page = getattr(store, "count_plans", None) is not None
    # Three letters and more go through the trigram index; shorter ones ("mu") cannot.
    for needle in ("munich", "STRASSE", "straße", "50%", "number 9999", "nothing like this", "mu", "9"):
        hits = len(store.list_plans(needle))
        timed(f"search {needle!r}: all {hits} hits", lambda: store.list_plans(needle), repeat)
        # What the Library asks for: how many match and the first page of them (code without
        # pages listed every match).
        if page:
            timed(f"search {needle!r}: Library (count + first 50)",
                  lambda: (store.count_plans(needle),  # type: ignore[attr-defined]
                           store.list_plans(needle, limit=50)), repeat)  # type: ignore[call-arg]
        else:
            timed(f"search {needle!r}: Library (count + first 50)", lambda: store.list_plans(needle), repeat)
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
            # Older code ran the plan inside the click; newer code runs it in a worker.
            worker = _held(at, Keys, "worker")
            if worker is not None:
                assert worker.join(600), "the run did not finish"
                at.run()

        figures["Run all (click to collected)"].append(cpu(run_all))
        at.button(key="plan.save").click()
        figures["Save (plan + run)"].append(cpu(at.run))
        figures["rerun with nothing changed"].append(cpu(at.run))
        sizes.append(page_bytes(at))
        assert not at.exception, [e.value for e in at.exception]
        assert len(_held(at, Keys, "plan").steps) == 200
        assert _held(at, Keys, "run_saved") is not None, "the run was not saved"
    for label, samples in figures.items():
        report(f"Plan page: {label}", samples)
    report("Plan page: elements sent per rerun after the run", [size / 1024 for size in sizes], "KB")


def _held(at: Any, keys: Any, name: str) -> Any:
    """What the Plan page holds as ``name``: a field of the session's workbench (``Keys.BENCH``),
    or, in older code (``--against``), a session-state key of its own."""
    if hasattr(keys, "BENCH"):
        return getattr(at.session_state[keys.BENCH], name)
    key = getattr(keys, name.upper(), None)
    return None if key is None else at.session_state[key]


PARTS = ["store", "library", "search", "page"]


def _child(root: Path, part: str, args: argparse.Namespace) -> tuple[str, list[tuple[str, list[float], str]]]:
    """Run ``part`` of this benchmark on the code in ``root``; its code folder and figures."""
    command = [sys.executable, str(HERE), "--root", str(root), "--json", "--only", part,
               "--repeat", str(args.repeat), "--search-plans", str(args.search_plans)]
    if args.skip_app:
        command.append("--skip-app")
    # The checkout goes first on the path: ahead of this environment's own (editable) install.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(command, env=env, cwd=root, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the benchmark failed on {root}:\n{done.stderr[-4000:]}")
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    return answer["code"], [tuple(r) for r in answer["results"]]  # type: ignore[misc]


def compare(before: Path, args: argparse.Namespace) -> None:
    """Each part on the code at ``before``, then on this checkout's; the figures side by side."""
    after = ROOT
    print(f"before: {before} ({_commit(before)})\nafter:  {after} ({_commit(after)})\n"
          f"CPU time (time.process_time, all threads of the process), medians of --repeat {args.repeat} "
          f"(search: of {max(args.repeat, 20)}); each part runs before, then after, back to back.", flush=True)
    print(f"\n{'figure':<58} {'before':>12} {'after':>12} {'after/before':>13}", flush=True)
    for part in (p for p in PARTS if p in set(args.only or PARTS)):
        if part == "page" and args.skip_app:
            continue
        code_before, old = _child(before, part, args)
        code_after, new = _child(after, part, args)
        assert code_before.startswith(str(before)) and code_after.startswith(str(after)), (code_before, code_after)
        old_by_label = {label: (samples, unit) for label, samples, unit in old}
        for label, samples, unit in new:
            then = old_by_label.get(label)
            now = statistics.median(samples)
            if then is None:
                print(f"{label:<58} {'-':>12} {now:9.2f} {unit:<2} {'':>13}", flush=True)
                continue
            was = statistics.median(then[0])
            ratio = f"{now / was:12.3f}x" if was else ""
            print(f"{label:<58} {was:9.2f} {unit:<2} {now:9.2f} {unit:<2} {ratio:>13}", flush=True)
        for label, samples, unit in old:
            if label not in {n[0] for n in new}:
                print(f"{label:<58} {statistics.median(samples):9.2f} {unit:<2} {'-':>12}", flush=True)


def _commit(root: Path) -> str:
    done = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%h %s"], capture_output=True, text=True)
    return done.stdout.strip()[:70] or "not a git checkout"


def main() -> None:
    global QUIET, ROOT, APP
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--skip-app", action="store_true", help="store figures only, no AppTest")
    parser.add_argument("--search-plans", type=int, default=10_000)
    parser.add_argument("--only", choices=PARTS, action="append",
                        help="run only these parts (repeatable)")
    parser.add_argument("--against", type=Path, metavar="PATH",
                        help="also measure the code checked out at PATH and print both side by side")
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)  # a child: the code it measures
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # a child: figures as JSON
    args = parser.parse_args()
    if args.against is not None:
        compare(args.against.resolve(), args)
        return
    QUIET = args.json
    if args.root is not None:
        ROOT = args.root.resolve()
        APP = ROOT / "studio" / "app.py"
    parts = set(args.only or PARTS)
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
            plan_page_figures(tmp, args.repeat)
    if args.json:
        import core

        print(json.dumps({"code": str(Path(core.__file__).resolve().parent), "results": RESULTS}))


if __name__ == "__main__":
    main()
