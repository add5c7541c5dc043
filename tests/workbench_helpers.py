"""What the workbench tests share: services over a real store in a folder, and notice texts."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from core import Settings
from studio import workbench as wb
from studio._services import Services, build_services

TODAY = dt.date(2025, 10, 12)
GOAL = "Get contaminated shipments from Berlin facilities"


def demo_services(folder: Path) -> Services:
    """The demo tools, the embedded planner and a store file in ``folder``, as the CLI builds them."""
    return build_services(Settings(data_dir=folder / "data", today=TODAY))


def texts(out: wb.Outcome) -> list[str]:
    return [n.text for n in out.notices]
