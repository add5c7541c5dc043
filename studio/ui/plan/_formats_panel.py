"""Plans in other formats: import one into the editor, export the current plan.

The formats are whatever ``core.FORMATS`` holds, so a format registered later shows up here
with no change to this page.
"""

from __future__ import annotations

import streamlit as st

from core import FORMATS, Plan
from core.formats import export_plan

from .. import _actions as actions
from .. import _unsaved as unsaved
from ...workbench._services import Services
from .._state import Keys, bench
from .._text import md_escape

__all__ = ["PANEL_KEY", "formats_panel"]

PANEL_KEY = "plan.formats_panel"  # the expander's open state

_UPLOAD = "plan.import_file"
_LANGUAGE = {".json": "json", ".xml": "xml"}


def _label(name: str) -> str:
    return FORMATS[name].label


def formats_panel(services: Services, plan: Plan | None) -> None:
    title = "Import / export" if plan is not None else "Import a plan"
    # With a plan to export, opening and closing rerun the page, so the export text (a whole
    # plan again) is only written and sent while the panel is open.
    panel = st.expander(title, icon=":material/swap_horiz:", key=PANEL_KEY,
                        on_change="rerun" if plan is not None else "ignore")
    with panel:
        if plan is None:
            _import_form()
            return
        export_column, import_column = st.columns(2, gap="large")
        with export_column:
            _export(services, plan, shown=panel.open is not False)
        with import_column:
            _import_form()


def _export(services: Services, plan: Plan, *, shown: bool) -> None:
    names = [n for n, f in FORMATS.items() if f.dump is not None]
    name = st.selectbox("Export as", names, format_func=_label, key=Keys.EXPORT_FORMAT)
    if not shown:
        return
    with actions.shown(f"export the plan as {_label(name)}"):
        text, dropped = export_plan(plan, name, services.registry)
        suffix = FORMATS[name].suffix
        st.code(text, language=_LANGUAGE.get(suffix, "text"), height=260)
        if dropped:
            # Every loss named, so nobody hands on a plan believing it whole.
            st.warning(md_escape(f"Not in the {_label(name)}: " + "; ".join(dropped) + "."),
                       icon=":material/content_cut:")
        st.download_button("Download", data=text, file_name=f"plan-{name}{suffix}", on_click="ignore",
                           key="plan.export_download", icon=":material/download:")


def _import_form() -> None:
    names = [n for n, f in FORMATS.items() if f.load is not None]
    st.selectbox("Import from", names, format_func=_label, key=Keys.IMPORT_FORMAT)
    st.text_area("Plan to import", key=Keys.IMPORT_TEXT, height=160,
                 placeholder="Paste a plan in the chosen format, or choose a file below.")
    st.file_uploader("Plan file", key=_UPLOAD, type=["json", "xml", "txt"])
    st.button("Import", key="plan.import", on_click=_import_clicked, icon=":material/upload:")


def _import_clicked() -> None:
    upload = st.session_state.get(_UPLOAD)
    fmt = st.session_state[Keys.IMPORT_FORMAT]
    if upload is None:
        unsaved.import_plan(st.session_state[Keys.IMPORT_TEXT], fmt)
        return
    try:
        text = upload.getvalue().decode("utf-8")
    except UnicodeDecodeError as exc:
        bench().notices = []
        actions.notify("error", f"Could not import {upload.name}: not UTF-8 text ({exc.reason}).")
        return
    unsaved.import_plan(text, fmt)
