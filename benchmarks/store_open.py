"""CPU time of ``PlanStore(path)`` on a file already at the newest schema, and on a new file.

Each open runs in a fresh process (so import costs count as a user's start does); the median
of 20. Usage: ``python benchmarks/store_open.py [CHECKOUT]`` (another checkout's code, e.g. an
export of main made with ``git archive``, to compare).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else Path(__file__).resolve().parents[1]
_OPEN = """
import sys, time
sys.path.insert(0, {root!r})
import core.storage
start = time.process_time()
core.storage.PlanStore({path!r}).close()
print(time.process_time() - start)
"""


def _open_ms(path: Path) -> float:
    out = subprocess.run([sys.executable, "-c", _OPEN.format(root=str(ROOT), path=str(path))],
                         check=True, capture_output=True, text=True).stdout
    return float(out) * 1000


def main(repeat: int = 20) -> None:
    with tempfile.TemporaryDirectory() as folder:
        existing = Path(folder) / "existing.sqlite3"
        _open_ms(existing)
        current = [_open_ms(existing) for _ in range(repeat)]
        new = [_open_ms(Path(folder) / f"new{n}.sqlite3") for n in range(repeat)]
    print(f"PlanStore(path), CPU ms, median of {repeat}: existing file {statistics.median(current):.1f}, "
          f"new file {statistics.median(new):.1f}")


if __name__ == "__main__":
    main()
