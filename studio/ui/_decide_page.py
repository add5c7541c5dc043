"""The Decide page: a signed link's page (``/decide?link=TOKEN``, ``studio.workbench._links``).

It shows exactly what the link decides (for a step: its tool, effects, why it waits, its
resolved arguments, and the run's plan around it; for a review: the agent, the goal, the
problems and the plan) before the Approve and Reject buttons, and who will be named as deciding.
A link that cannot be used says which way it fails (forged, expired, used, changed, gone) and
shows no buttons. Everything an agent or a tool wrote is drawn as data (``st.code``,
``st.dataframe``) or escaped.

Who decides: the signed-in person (``_state.actor``).
"""

from __future__ import annotations

import json

import streamlit as st

from core import LinkRefused

from ..workbench import failure_message
from ..workbench._links import LINK_PARAM, LinkView, answer_link, open_link
from . import _actions as actions
from ._state import actor as current_actor
from ._session import get_services
from ._text import md_escape

__all__ = ["decide_page"]

_DONE = "decide.done"  # (token, outcome notices) of the decision this session made
_COMMENT = "decide-comment"


def decide_page() -> None:
    services = actions.page_services("Decide", "open the link")
    if services is None:
        return
    token = st.query_params.get(LINK_PARAM, "")
    if not token:
        st.info("This page answers a signed link from a notification (`/decide?link=…`). Open the link "
                "the message carried.")
        return
    done = st.session_state.get(_DONE)
    if done is not None and done[0] == token:  # this session just decided it: say how it went
        with st.container(key="decide-result"):
            for kind, text in done[1]:
                getattr(st, kind)(md_escape(text))
        return
    try:
        view = open_link(services, token, actor=current_actor())
    except LinkRefused as exc:
        with st.container(key=f"decide-refused-{exc.why}"):
            st.error(md_escape(str(exc)), icon=":material/link_off:")
        return
    except Exception as exc:  # the store away, a review gone: said, never a traceback
        st.error(md_escape(failure_message("open the link", exc)))
        return
    _show(view)
    _buttons(token, view)


def _show(view: LinkView) -> None:
    with st.container(key="decide-what", border=True):
        st.subheader(md_escape(view.title))
        if view.kind == "step":
            st.markdown(f"**Tool** `{md_escape(view.tool)}` · **effects** {md_escape(view.effects)}")
            if view.reason:
                st.caption(f"Why it waits: {md_escape(view.reason)}")
            st.markdown("**Resolved arguments: exactly what will run**")
            st.code(json.dumps(view.arguments, indent=2, ensure_ascii=False, default=repr), language="json")
        else:
            st.markdown(f"**From** {md_escape(view.agent)}")
            for problem in view.problems:
                st.warning(md_escape(problem))
        if view.goal:
            st.markdown(f"**Goal** {md_escape(view.goal)}")
    with st.expander("The plan around it" if view.kind == "step" else "The plan that would run",
                     expanded=view.kind == "review", key="decide-plan"):
        rows = [{**({"": "▶" if line.current else ""} if view.kind == "step" else {}), "step": line.label,
                 "tool": line.tool,
                 **({"status": line.status} if view.kind == "step" else {}),
                 "arguments" if line.status else "params": json.dumps(line.detail, ensure_ascii=False, default=repr)}
                for line in view.plan]
        st.dataframe(rows, hide_index=True, key="decide-plan-table")


def _buttons(token: str, view: LinkView) -> None:
    actor = current_actor()
    st.caption(f"You decide as **{md_escape(actor.label)}**; the decision names you and the channel "
               f"“link”. The link works once, until {_when(view.link.expires)}.")
    if view.kind == "review":
        st.text_area("Comment for the agent", key=_COMMENT, max_chars=10_000)
    approve, reject, _ = st.columns([1, 1, 6])
    approve.button("Approve", key="decide-approve", type="primary", icon=":material/check:",
                   on_click=_decide, args=(token, True))
    reject.button("Reject", key="decide-reject", icon=":material/close:", on_click=_decide, args=(token, False))


def _decide(token: str, approve: bool) -> None:
    try:
        services = get_services()
        out = answer_link(services, token, approve=approve, actor=current_actor(),
                          comment=str(st.session_state.get(_COMMENT) or ""))
        notices = [(n.kind, n.text) for n in out.notices] or [("info", "Nothing was decided.")]
    except Exception as exc:  # said on the page, never a traceback
        notices = [("error", failure_message("decide from the link", exc))]
    st.session_state[_DONE] = (token, notices)


def _when(expires: float) -> str:
    import time

    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(expires))
