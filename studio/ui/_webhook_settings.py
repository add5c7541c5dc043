"""Settings' webhook section: where the studio posts when a step waits or a review comes, in
which format, and how the last delivery went (``studio.workbench._webhooks``).

The URL saved here is kept in the data folder for every process of the studio (not for this
session only, unlike the planner's choices); it is an admin's change. A saved URL is shown by
its host alone: a Slack webhook's path is its secret.
"""

from __future__ import annotations

from urllib.parse import urlparse

import streamlit as st
from pydantic import ValidationError

from core import Forbidden, Settings

from ..workbench._webhook_config import clear_webhook, last_delivery, save_webhook, webhook_config
from ._state import actor as current_actor
from ._session import get_services
from ._text import md_escape

__all__ = ["webhook_section"]

_MESSAGE = "settings.webhook.message"
_URL = "settings.webhook.url"
_FORMAT = "settings.webhook.format"
_FORMATS = {"slack": "Slack-compatible JSON (text and blocks)", "plain": "Plain JSON POST"}


def webhook_section(settings: Settings) -> None:
    st.subheader("Webhook and signed links")
    st.caption("When a step starts waiting for a person, or an agent submits a review, the studio posts to this "
               "URL with a signed link that opens what to decide (it expires after "
               f"{settings.link_expiry / 3600:g} h, works once and needs the reviewer signed in). "
               "`PLAN_STUDIO_WEBHOOK_URL` sets one for every start; the one saved here wins. "
               "Links point at `PLAN_STUDIO_PUBLIC_URL`: "
               f"`{md_escape(settings.public_url or 'http://127.0.0.1:8501')}`.")
    message = st.session_state.get(_MESSAGE)
    st.session_state[_MESSAGE] = None  # said once
    if message is not None:
        getattr(st, message[0])(md_escape(message[1]))
    config = webhook_config(settings)
    with st.container(key="settings-webhook"):
        if config.url is None:
            st.markdown("No webhook: nothing is posted.")
        else:
            host = urlparse(config.url).netloc
            st.markdown(f"Posting to **{md_escape(host)}** (path hidden) as {md_escape(_FORMATS[config.format])}; "
                        f"set on {md_escape(config.source)}.")
        delivery = last_delivery(settings)
        if delivery is not None:
            outcome = "delivered" if delivery.ok else "failed"
            (st.success if delivery.ok else st.error)(
                md_escape(f"Last delivery {outcome} at {delivery.at} · {delivery.kind} {delivery.subject}, "
                          f"{delivery.attempts} attempt{'s' if delivery.attempts != 1 else ''}, {delivery.detail}"))
        with st.form("settings-webhook-form", border=False):
            st.text_input("Webhook URL", key=_URL, type="password", placeholder="https://hooks.slack.com/services/…")
            st.selectbox("Format", list(_FORMATS), format_func=_FORMATS.__getitem__, key=_FORMAT,
                         index=list(_FORMATS).index(config.format))
            st.form_submit_button("Save webhook", on_click=_save, icon=":material/save:")
        if config.source == "settings page":
            st.button("Remove saved webhook", key="settings.webhook.remove", on_click=_remove,
                      icon=":material/delete:")


def _save() -> None:
    settings = get_services().settings
    url = str(st.session_state.get(_URL) or "").strip()
    try:
        config = save_webhook(settings, url, str(st.session_state.get(_FORMAT) or "slack"), actor=current_actor())
    except ValidationError as exc:
        error = exc.errors()[0]
        st.session_state[_MESSAGE] = ("error", f"Not saved: {str(error.get('msg', exc)).removeprefix('Value error, ')}")
        return
    except (ValueError, Forbidden) as exc:
        st.session_state[_MESSAGE] = ("error", f"Not saved: {exc}")
        return
    except Exception as exc:  # the data folder not writable: said, never a traceback
        st.session_state[_MESSAGE] = ("error", f"Not saved: {exc}")
        return
    st.session_state[_URL] = ""
    st.session_state[_MESSAGE] = ("success", f"Saved: the studio posts to {urlparse(config.url or '').netloc}.")


def _remove() -> None:
    try:
        clear_webhook(get_services().settings, actor=current_actor())
    except Exception as exc:
        st.session_state[_MESSAGE] = ("error", f"Not removed: {exc}")
        return
    st.session_state[_MESSAGE] = ("success", "Removed the saved webhook.")
