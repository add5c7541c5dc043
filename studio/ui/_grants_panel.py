"""The Settings page's grants: the scoped approvals kept in the studio (for one run, or always
for one tool with exact arguments), each with who granted it and when it ends, and Revoke.

Arguments come from tool results and tools' names from their sources: untrusted, drawn as text.
"""

from __future__ import annotations

import json

import streamlit as st

from core import Grant

from . import _actions as actions
from .. import workbench as wb
from ..workbench._services import Services
from ._state import actor
from ._session import get_services
from ._text import md_escape

__all__ = ["grants_panel"]

_SHOWN_CHARS = 300


def _what(grant: Grant) -> str:
    if grant.scope == "run":
        return f"every step of {grant.tool} in run {grant.run_id}"
    text = json.dumps(grant.arguments, ensure_ascii=False, sort_keys=True, default=repr)
    if len(text) > _SHOWN_CHARS:
        text = text[:_SHOWN_CHARS] + "…"
    return f"{grant.tool} with exactly {text}"


_NOTICE = "settings.grants.notice"  # what the last Revoke said, shown once above the list


def _revoke(grant_id: str) -> None:
    out = wb.Outcome().say("error", "Could not revoke the grant.")
    with wb.attempt(out, "revoke the grant"):
        out = wb.revoke_grant(get_services(), grant_id, actor=actor())
    st.session_state[_NOTICE] = [(n.kind, n.text) for n in out.notices]


def grants_panel(services: Services) -> None:
    st.subheader("Grants")
    st.caption("Approvals given for more than one step: for the rest of a run, or always for one tool "
               "with exactly the same arguments. A revoked grant lets nothing pass; such steps ask again.")
    with st.container(key="settings-grants"), actions.shown("list the grants"):
        for kind, text in st.session_state.pop(_NOTICE, []):
            (st.success if kind == "success" else st.error)(md_escape(text))
        grants = wb.list_grants(services, actor=actor())
        if not grants:
            st.caption("No grants in force.")
            return
        for grant in grants:
            ends = grant.expires_at.strftime("%Y-%m-%d %H:%M UTC") if grant.expires_at else "with the run"
            text, button = st.columns([5, 1])
            text.markdown(md_escape(f"{_what(grant)} — granted by {grant.granted_by_name or grant.granted_by} "
                                    f"({grant.channel or 'unknown channel'}), ends {ends}"))
            button.button("Revoke", key=f"settings.grants.{grant.id}.revoke", on_click=_revoke, args=(grant.id,),
                          icon=":material/block:")
