"""Plan Studio's user interfaces: the Streamlit studio and the ``plan-studio`` command.

Pages in ``pages/`` are thin scripts calling ``plan_page``, ``library_page``, ``tools_page``,
``reviews_page``, ``decide_page``, ``lab_page``, ``audit_page`` and ``settings_page``; the entry script is ``studio/app.py``. ``build_services`` gives the CLI
and the studio the same settings, tools, store, executor and planner.

What a user does with a plan (plan, edit, approve, save, open, run, decide a review) is
``studio.workbench``: plain functions over one ``Workbench`` value, with no Streamlit in them.

``ReviewClient`` sends plans to a running studio's review inbox and waits for the decision.

Names are imported on first use, so the command line does not load the pages and the graph
library it never shows.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = ["audit_page", "Keys", "Review", "ReviewClient", "SavedRef", "Services", "build_services", "get_services",
           "decide_page", "init_state", "lab_page", "library_page", "plan_page", "reviews_page", "settings_page", "tools_page"]

_HOME = {
    "Keys": ".ui._state", "SavedRef": ".workbench", "init_state": ".ui._state",
    "Services": ".workbench._services", "build_services": ".workbench._services", "get_services": ".ui._session",
    "library_page": ".ui._library_page", "plan_page": ".ui.plan._plan_page",
    "settings_page": ".ui._settings_page", "tools_page": ".ui._tools_page",
    "reviews_page": ".ui._reviews_page", "decide_page": ".ui._decide_page", "audit_page": ".ui._audit_page", "lab_page": ".ui.lab._lab_page", "Review": ".client", "ReviewClient": ".client",
}

if TYPE_CHECKING:  # pragma: no cover
    from .ui.lab._lab_page import lab_page
    from .ui._decide_page import decide_page
    from .ui._library_page import library_page
    from .ui.plan._plan_page import plan_page
    from .workbench._services import Services, build_services
    from .ui._session import get_services
    from .ui._settings_page import settings_page
    from .ui._state import Keys, init_state
    from .ui._tools_page import tools_page
    from .ui._reviews_page import reviews_page
    from .ui._audit_page import audit_page
    from .client import Review, ReviewClient
    from .workbench import SavedRef


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module 'studio' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOME[name], __name__), name)
    globals()[name] = value
    return value
