"""The studio's pages: which script, title and URL each has.

Paths are built from this file's location, because Streamlit resolves page paths against the
entry script's folder, not the working directory.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import streamlit as st

__all__ = ["AUDIT_PAGE", "DECIDE_PAGE", "LAB_PAGE", "LIBRARY_PAGE", "NAVIGATION", "PAGES_DIR", "PLAN_PAGE", "REVIEWS_PAGE", "SETTINGS_PAGE", "TOOLS_PAGE",
           "PageSpec", "page"]

PAGES_DIR = Path(__file__).resolve().parents[2] / "pages"


@dataclass(frozen=True)
class PageSpec:
    script: str  # file name in pages/
    title: str
    icon: str
    url_path: str
    default: bool = False
    hidden: bool = False  # reached by its URL only, not listed in the navigation


PLAN_PAGE = PageSpec("plan.py", "Plan", ":material/account_tree:", "plan", default=True)
LIBRARY_PAGE = PageSpec("library.py", "Library", ":material/folder_open:", "library")
TOOLS_PAGE = PageSpec("tools.py", "Tools", ":material/build:", "tools")
REVIEWS_PAGE = PageSpec("reviews.py", "Reviews", ":material/rate_review:", "reviews")  # review links use "reviews"
LAB_PAGE = PageSpec("lab.py", "Lab", ":material/science:", "lab")
AUDIT_PAGE = PageSpec("audit.py", "Audit", ":material/history:", "audit")
SETTINGS_PAGE = PageSpec("settings.py", "Settings", ":material/settings:", "settings")
# A signed link's page (``/decide?link=TOKEN``, studio.workbench._links): not in the menu.
DECIDE_PAGE = PageSpec("decide.py", "Decide", ":material/gavel:", "decide", hidden=True)

# The navigation, in order.
NAVIGATION = [PLAN_PAGE, LIBRARY_PAGE, REVIEWS_PAGE, TOOLS_PAGE, LAB_PAGE, AUDIT_PAGE, SETTINGS_PAGE, DECIDE_PAGE]


def page(spec: PageSpec, count: int = 0) -> st.Page:
    """The ``st.Page`` for ``spec``; equal specs give pages Streamlit treats as the same (its URL
    path names it, so ``count``, shown after the title as "(N)" when not 0, changes nothing else)."""
    title = f"{spec.title} ({count:,})" if count else spec.title
    return st.Page(PAGES_DIR / spec.script, title=title, icon=spec.icon,
                   url_path=spec.url_path, default=spec.default, visibility="hidden" if spec.hidden else "visible")
