"""Settings' part for who may do what: agents' API tokens and people's roles (admins only).

A token is shown once, on the run right after it is made (kept in the session only until drawn);
the list shows each token's name, agent, role, when it was made and last used, and whether it
was revoked. A person's role is changed here; people are added when they first sign in.
"""

from __future__ import annotations

import streamlit as st

from core import Role

from ..workbench._agent_tokens import create_token, list_tokens, revoke_token
from ..workbench._people import list_people, set_person_role
from ..workbench._services import Services
from . import _actions as actions
from ._state import Keys, actor

__all__ = ["access_settings", "may_see_the_shared_token"]

_ROLES = [r.name for r in Role]


def may_see_the_shared_token() -> bool:
    return actor().can(Role.admin)


def _when(value: object) -> str:
    return "never" if value is None else f"{value:%Y-%m-%d %H:%M}"


def access_settings(services: Services) -> None:
    who = actor()
    st.subheader("People and agents")
    if not who.can(Role.admin):
        st.info(f"You are signed in as {who.name} ({who.role.name}). Agents' tokens and people's roles are "
                "managed by an admin.", icon=":material/lock:")
        return
    _message()
    with st.container(key="settings-agent-tokens"), actions.shown("list the agents' tokens"):
        st.markdown("**Agents' API tokens**: each agent calls the review API with its own token "
                    "(`plan-studio token create NAME` makes one too). Only a hash of a token is kept.")
        made = st.session_state.pop(Keys.SETTINGS_NEW_TOKEN, None)
        if made is not None:
            name, token = made
            st.success(f"Token {name!r} made. Copy it now: it is shown only this once.", icon=":material/key:")
            st.code(token, language=None)
        tokens = list_tokens(services, actor=who)
        st.dataframe([{"name": t.name, "agent": t.agent_id, "role": t.role.name, "created": _when(t.created),
                       "last used": _when(t.last_used),
                       "state": f"revoked {_when(t.revoked_at)}" if t.revoked_at else "active"} for t in tokens],
                     key="settings.tokens.table", hide_index=True, width="stretch")
        new, role, go = st.columns([3, 2, 2], vertical_alignment="bottom")
        new.text_input("New token's name", key=Keys.SETTINGS_TOKEN_NAME, placeholder="ci-bot")
        role.selectbox("Token's role", _ROLES, index=_ROLES.index("reviewer"), key=Keys.SETTINGS_TOKEN_ROLE)
        go.button("Create token", key="settings.tokens.create", on_click=_create, args=(services,),
                  icon=":material/add:")
        active = [t.name for t in tokens if not t.revoked]
        if active:
            pick, go = st.columns([5, 2], vertical_alignment="bottom")
            pick.selectbox("Token to revoke", active, key=Keys.SETTINGS_TOKEN_REVOKE)
            go.button("Revoke", key="settings.tokens.revoke", on_click=_revoke, args=(services,),
                      icon=":material/block:")
    with st.container(key="settings-people"), actions.shown("list the people"):
        st.markdown("**People**: added when they first sign in; the local user of this studio is an admin.")
        people = list_people(services, actor=who)
        st.dataframe([{"id": p.id, "name": p.name, "email": p.email, "role": p.role.name,
                       "groups": ", ".join(sorted(p.groups)), "since": _when(p.created)} for p in people],
                     key="settings.people.table", hide_index=True, width="stretch")
        pick, role, go = st.columns([4, 2, 2], vertical_alignment="bottom")
        pick.selectbox("Person", [p.id for p in people], key=Keys.SETTINGS_PERSON)
        role.selectbox("New role", _ROLES, key=Keys.SETTINGS_PERSON_ROLE)
        go.button("Set role", key="settings.people.set_role", on_click=_set_role, args=(services,))


def _message() -> None:
    said = st.session_state.pop(Keys.SETTINGS_ACCESS_MESSAGE, None)
    if said is not None:
        kind, text = said
        (st.error if kind == "error" else st.success)(text)


def _say(kind: str, text: str) -> None:
    st.session_state[Keys.SETTINGS_ACCESS_MESSAGE] = (kind, text)


def _create(services: Services) -> None:
    name = (st.session_state.get(Keys.SETTINGS_TOKEN_NAME) or "").strip()
    try:
        made, token = create_token(services, name, role=Role.parse(st.session_state[Keys.SETTINGS_TOKEN_ROLE]),
                                   actor=actor())
    except Exception as exc:
        _say("error", actions.failure_message("make the token", exc))
        return
    st.session_state[Keys.SETTINGS_NEW_TOKEN] = (made.name, token)
    st.session_state[Keys.SETTINGS_TOKEN_NAME] = ""


def _revoke(services: Services) -> None:
    name = st.session_state.get(Keys.SETTINGS_TOKEN_REVOKE)
    try:
        revoked = revoke_token(services, name, actor=actor())
    except Exception as exc:
        _say("error", actions.failure_message("revoke the token", exc))
        return
    _say("success", f"Token {revoked.name!r} revoked: its agent's next call is refused.")


def _set_role(services: Services) -> None:
    person, role = st.session_state.get(Keys.SETTINGS_PERSON), st.session_state.get(Keys.SETTINGS_PERSON_ROLE)
    try:
        changed = set_person_role(services, person, Role.parse(role), actor=actor())
    except Exception as exc:
        _say("error", actions.failure_message("change the role", exc))
        return
    _say("success", f"{changed.name} ({changed.id}) is now {changed.role.name}.")
