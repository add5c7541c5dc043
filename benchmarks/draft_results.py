"""What a tab's draft write costs when its run holds a big result (issue 15, item 13b).

    .venv/bin/python benchmarks/draft_results.py [--mb 50] [--edits 5]

Drives the studio's Plan page in AppTest, in this process: a plan whose one step returns a
result of about ``--mb`` megabytes (a list of small records, as a big query answer is) runs
all; then the goal is edited ``--edits`` times, each edit one change of the tab's state and so
one draft write. For the write that follows the run and for each edit after it, prints the
bytes handed to the store (``PlanStore.save_draft``, every row written) and the time the write
took (``studio.ui._drafts.keep_draft``: building the content and writing it; wall and CPU time).
Figures, not assertions: compare them across commits on the same machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# This folder holds a studio.py of its own, which would shadow the studio package.
_ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(_ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from core.storage import PlanStore  # noqa: E402


def _report_tool(megabytes: float):
    records = int(megabytes * 1_000_000 / 100)  # each record dumps to about 100 bytes

    def big_report(size: str = "big") -> dict:
        """A report as big as a large query answer.

        Args:
            size: A label.
        """
        return {"size": size, "records": [{"id": n, "name": f"record {n:09d}", "value": n * 0.5,
                                           "note": "x" * 40} for n in range(records)]}

    return big_report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=50)
    parser.add_argument("--edits", type=int, default=5)
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="draft-results-"))
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PLAN_STUDIO_PLANNER", "PLAN_STUDIO_DB"):
        os.environ.pop(name, None)
    os.environ["PLAN_STUDIO_DATA_DIR"] = str(folder / "data")
    os.environ["PLAN_STUDIO_TODAY"] = "2025-10-12"

    import studio.ui._drafts as drafts
    from studio import Keys, get_services

    written: list[int] = []
    real_save = PlanStore.save_draft

    def counting_save(self: PlanStore, draft_id: str, content: str) -> Any:
        written.append(len(content.encode("utf-8")))
        return real_save(self, draft_id, content)

    PlanStore.save_draft = counting_save  # type: ignore[method-assign]
    timings: list[tuple[float, float, int]] = []  # wall, cpu, bytes for each keep_draft that wrote
    real_keep = drafts.keep_draft

    def timed_keep() -> None:
        before = len(written)
        wall, cpu = time.perf_counter(), time.process_time()
        real_keep()
        if len(written) > before:
            timings.append((time.perf_counter() - wall, time.process_time() - cpu, sum(written[before:])))

    drafts.keep_draft = timed_keep  # the entry script imports it afresh on every run

    app = AppTest.from_file(str(_ROOT / "studio" / "app.py"), default_timeout=600).run()
    get_services().registry.register(_report_tool(args.mb))
    app.text_area(key=Keys.GOAL).input("Get facilities in Berlin")
    app.button(key="plan.make").click().run()
    app.text_area(key=Keys.JSON).input('{"goal": "A big report", "steps": [{"id": "a", "tool": "big_report", '
                                       '"params": {"size": "big"}}]}').run()
    app.button(key="plan.approve").click().run()
    app.button(key="plan.run_all").click().run()
    worker = app.session_state[Keys.WORKER]
    assert worker is not None and worker.join(600), "the run did not finish"
    timings.clear()
    app.run()  # collects the run: the draft now holds it
    assert app.session_state[Keys.RUN].status == "succeeded", app.exception
    after_run = list(timings)
    timings.clear()
    for n in range(args.edits):
        app.text_area(key=Keys.GOAL).input(f"A big report, take {n}").run()
    assert not app.exception, [e.value for e in app.exception]

    def line(label: str, figures: list[tuple[float, float, int]]) -> str:
        if not figures:
            return f"{label:<34} no draft write"
        wall = sorted(f[0] for f in figures)[len(figures) // 2]
        cpu = sorted(f[1] for f in figures)[len(figures) // 2]
        size = sorted(f[2] for f in figures)[len(figures) // 2]
        return (f"{label:<38} {len(figures):>3} write(s) · median {size:>12,} bytes · {wall * 1000:8.1f} ms wall"
                f" · {cpu * 1000:8.1f} ms CPU")

    print(f"result of about {args.mb:g} MB; each line: draft writes, bytes handed to the store, time of keep_draft")
    print(line("the write after the run", after_run))
    print(line(f"each of {args.edits} goal edits after it", timings))


if __name__ == "__main__":
    main()
