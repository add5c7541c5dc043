"""Who is on the page: the sign-in gate the entry script passes through on every run.

The person comes from, in this order: the header a trusted reverse proxy sets
(``PLAN_STUDIO_USER_HEADER``; the studio's guard removes it from anyone else's requests),
Streamlit's OIDC sign-in (``st.login`` / ``st.user``, when ``[auth]`` is in
``.streamlit/secrets.toml``), or else the local user, whom the per-start secret of the URL let in
(``studio/api/_sign_in_guard.py``). Under OIDC, nobody signed in sees only the sign-in button.
"""

from __future__ import annotations

import streamlit as st

from core import LOCAL_USER_ID, Actor

from ..workbench._people import local_person, signed_in
from ._session import get_services, oidc_configured
from ._state import Keys

__all__ = ["sign_in_gate"]


def _oidc_person() -> Actor | None:
    if not st.user.is_logged_in:
        return None
    services = get_services()
    email = str(st.user.get("email") or st.user.get("sub") or "")
    groups = st.user.get(services.settings.groups_claim) or []
    groups = [groups] if isinstance(groups, str) else list(groups)
    return signed_in(services, email=email, name=str(st.user.get("name") or email), groups=groups)


def _current() -> Actor | None:
    services = get_services()
    header = services.settings.user_header
    if header:
        name = (st.context.headers.get(header) or "").strip()
        if name:
            return signed_in(services, email=name, name=name)
    if oidc_configured():
        return _oidc_person()
    return local_person(services)


def sign_in_gate() -> Actor:
    """The actor of this session, kept for the callbacks (``_state.actor``); under OIDC with
    nobody signed in, the sign-in button and nothing else (the run stops here)."""
    actor = _current()
    if actor is None:
        st.session_state[Keys.ACTOR] = None
        st.title("Plan Studio")
        st.write("Sign in to see and review plans.")
        if st.button("Sign in", key="sign_in.login", type="primary"):
            st.login()
        st.stop()
    st.session_state[Keys.ACTOR] = actor
    if actor.id != LOCAL_USER_ID:
        who, out = st.columns([6, 1], vertical_alignment="center")
        who.caption(f"Signed in as {actor.name} ({actor.id.removeprefix('user:')}) · {actor.role.name}")
        if oidc_configured() and out.button("Sign out", key="sign_in.logout"):
            st.logout()
    return actor
