"""What drawing the Reviews page costs with 1,000 pending reviews (issue 27: "drawn in ≤ 1 s").

    .venv/bin/python benchmarks/reviews_page.py [--reviews 1000] [--repeat 7]

A fresh studio (its own data folder) gets ``--reviews`` pending reviews from four agents; then
the Reviews page is drawn through Streamlit's AppTest (the whole script run: sign-in,
navigation, the tally, the agents, one page of 50 cards and the pager) ``--repeat`` times, and
once more paged to the last page. Prints medians of this process's CPU time and of wall time.
Figures, not assertions: compare them across commits on the same machine.
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

# This folder holds a studio.py of its own, which would shadow the studio package.
_ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(_ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from core import load_plan  # noqa: E402

APP = _ROOT / "studio" / "app.py"
REVIEWS = "../pages/reviews.py"
PLAN = {"goal": "g", "steps": [{"id": "fac", "tool": "facilities_list", "params": {"location": "Berlin"}}]}


def _draws(at: AppTest, repeat: int) -> tuple[list[float], list[float]]:
    cpu, wall = [], []
    for _ in range(repeat):
        began_cpu, began = time.process_time(), time.perf_counter()
        at.run()
        cpu.append((time.process_time() - began_cpu) * 1000)
        wall.append((time.perf_counter() - began) * 1000)
        if at.exception:
            raise SystemExit(f"the page failed: {[e.value for e in at.exception]}")
    return cpu, wall


def _print(label: str, cpu: list[float], wall: list[float]) -> None:
    print(f"{label:<38} CPU median {statistics.median(cpu):7.1f} ms (min {min(cpu):7.1f})   "
          f"wall median {statistics.median(wall):7.1f} ms   n={len(cpu)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reviews", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        os.environ["PLAN_STUDIO_DATA_DIR"] = str(Path(folder) / "data")
        os.environ["PLAN_STUDIO_TODAY"] = "2025-10-12"
        for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PLAN_STUDIO_PLANNER", "PLAN_STUDIO_DB"):
            os.environ.pop(name, None)
        at = AppTest.from_file(str(APP), default_timeout=120).run()
        from studio import get_services  # the services the app just made, in this process

        store, plan = get_services().store, load_plan(json.dumps(PLAN))
        for n in range(args.reviews):
            store.submit_review(plan.model_copy(update={"goal": f"goal {n:04d}"}), agent=f"bot-{n % 4}",
                                fmt="native", original_text="{}")
        print(f"{store.count_reviews('pending'):,} pending reviews")
        at.switch_page(REVIEWS).run()
        _print("Reviews page, first page", *_draws(at, args.repeat))
        at.button(key="reviews.page.last").click().run()
        _print("Reviews page, last page", *_draws(at, args.repeat))


if __name__ == "__main__":
    main()
