"""What a just-started studio's first page would pay for, paid before its address is printed.

The first script run of a fresh process imports every page's modules (the graph's pyvis among
them), builds the services (the tools read from their docstrings, the demo's data, the store),
works out the example goals and loads pandas (Streamlit's check for data frames in a
component's data imports it on the first graph). Done once at start, in the server's process,
it no longer lands on the first person to open the page: with the address printed after it,
"started" means ready.
"""

from __future__ import annotations

import importlib
import sys

__all__ = ["warm_up"]

# Each page's code, by the studio's public names (``studio.__init__`` says where each lives).
_PAGES = ("plan_page", "library_page", "reviews_page", "tools_page", "lab_page", "audit_page", "settings_page",
          "decide_page")


def warm_up() -> None:
    """Import the pages, build the default services and their example goals, load pandas.

    Nothing here may stop the studio: what fails is said on stderr, and the page that needs it
    says it again, with what to do."""
    try:
        studio = importlib.import_module("studio")
        for name in _PAGES:
            getattr(studio, name)
        importlib.import_module("pandas")
        from ..workbench import example_goals
        from ._session import get_services

        example_goals(get_services())
    except Exception as exc:  # noqa: BLE001 - the page says it again when it needs what failed
        print(f"Plan Studio: note: warming up: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
