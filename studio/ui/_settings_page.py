"""The Settings page: what the studio runs with, and this session's choice of planner and model.

The environment sets the defaults for every session. Choices made here are kept in the
session (``Keys.SETTINGS_OVERRIDES``) and ``get_services`` applies them over the environment,
so they last for this browser session and never change another user's studio.
"""

from __future__ import annotations

from typing import Any

import streamlit as st
from pydantic import ValidationError

from core import PlanStudioError, Settings, hooks
from core.llm import ModelClient
from tools import McpServerSpec

from . import _actions as actions
from ._access_settings import access_settings, may_see_the_shared_token
from ._grants_panel import grants_panel
from ._policy_editor import policy_section
from ._state import PERSIST, Keys
from ._text import md_escape
from ._webhook_settings import webhook_section

__all__ = ["settings_page"]


def planner_labels() -> dict[str, str]:
    """The registered planners (``core.hooks``), built-in and plugins', by name: their labels."""
    return {name: spec.label for name, spec in hooks.planners().items()}

# What each field is called on this page, so a rejected value is named as the user sees it.
FIELD_LABELS = {"planner": "Planner", "model": "Model", "temperature": "Temperature",
                "max_retries": "Max retries", "timeout": "Timeout (seconds)"}
_WIDGETS = {"planner": Keys.SETTINGS_PLANNER, "model": Keys.SETTINGS_MODEL,
            "temperature": Keys.SETTINGS_TEMPERATURE, "max_retries": Keys.SETTINGS_MAX_RETRIES,
            "timeout": Keys.SETTINGS_TIMEOUT}


def settings_page() -> None:
    services = actions.page_services("Settings", "read the settings")
    if services is None:
        return
    settings = services.settings
    st.subheader("In use")
    st.markdown(_facts_table(settings))
    if settings.planner == "llm" and not settings.model_configured:
        st.warning(
            "The LLM planner has no model to call. Set `OPENAI_API_KEY` for OpenAI, or "
            "`OPENAI_BASE_URL` for a local OpenAI-compatible endpoint such as Ollama "
            "(`http://localhost:11434/v1`), then restart the studio. Until then **Plan** says "
            "why it cannot plan; saved plans, editing and running still work, and the embedded "
            "planner needs neither.", icon=":material/key_off:")
    st.caption("The key itself is never shown, logged or stored: only whether it is set.")
    _review_api(settings)
    access_settings(services)
    grants_panel(services)
    webhook_section(settings)

    st.subheader("Planner for this session")
    st.caption("The environment (`PLAN_STUDIO_PLANNER`, `PLAN_STUDIO_MODEL`, "
               "`PLAN_STUDIO_TEMPERATURE`, `PLAN_STUDIO_MAX_RETRIES`, `PLAN_STUDIO_TIMEOUT`) "
               "sets the defaults; what you apply here lasts for this browser session.")
    _message()
    _fill_form(settings)
    _form()
    if st.session_state[Keys.SETTINGS_OVERRIDES]:
        st.button("Back to the environment's settings", key="settings.reset", on_click=reset,
                  icon=":material/restart_alt:")
    _mcp_servers(settings, services.tool_problems)
    policy_section(services)


def _mcp_servers(settings: Settings, problems: list[str]) -> None:
    st.subheader("MCP servers for this session")
    st.caption("`--mcp` and `PLAN_STUDIO_MCP` (one per line) set the defaults. A URL is a "
               "streamable HTTP server (headers after ` | `, e.g. `https://host/mcp | "
               "Authorization: Bearer TOKEN`); anything else is a command that starts a stdio "
               "server. Their tools appear on **Tools** and the planner may use them.")
    message = st.session_state[Keys.SETTINGS_MCP_MESSAGE]
    if message is not None:
        kind, text = message
        getattr(st, kind)(md_escape(text))
    for index, server in enumerate(settings.mcp):
        name, remove = st.columns([6, 1], vertical_alignment="center")
        name.code(_server_label(server), language=None)
        remove.button("Remove", key=f"settings.mcp.remove.{index}", on_click=remove_server,
                      args=(settings.mcp, index), icon=":material/delete:")
    if not settings.mcp:
        st.caption("No MCP servers.")
    for problem in problems:
        if problem.startswith("MCP server"):
            st.warning(md_escape(problem), icon=":material/extension_off:")
    with st.form("settings.mcp.form", border=True, clear_on_submit=False):
        st.text_input("Add an MCP server", key=Keys.SETTINGS_MCP_NEW,
                      placeholder="npx -y @modelcontextprotocol/server-everything  or  https://host/mcp")
        st.form_submit_button("Add server", key="settings.mcp.add", on_click=add_server,
                              args=(settings.mcp,), icon=":material/add:")
    if st.session_state[Keys.SETTINGS_MCP] is not None:
        st.button("Back to the environment's MCP servers", key="settings.mcp.reset",
                  on_click=reset_servers, icon=":material/restart_alt:")


def _server_label(server: str) -> str:
    try:
        return McpServerSpec.parse(server).label  # header values (tokens) are never shown
    except PlanStudioError:
        return server


def add_server(current: list[str]) -> None:
    """Form callback: add the typed server for this session if it reads as one."""
    text = (st.session_state[Keys.SETTINGS_MCP_NEW] or "").strip()
    try:
        McpServerSpec.parse(text)
    except PlanStudioError as exc:
        st.session_state[Keys.SETTINGS_MCP_MESSAGE] = ("error", f"{exc}. Not added.")
        return
    if text in current:
        st.session_state[Keys.SETTINGS_MCP_MESSAGE] = ("info", "That MCP server is already in use.")
        return
    st.session_state[Keys.SETTINGS_MCP] = [*current, text]
    st.session_state[Keys.SETTINGS_MCP_NEW] = ""
    st.session_state[Keys.SETTINGS_MCP_MESSAGE] = (
        "success", f"Added for this session: MCP server {_server_label(text)}. Its tools are on Tools.")


def remove_server(current: list[str], index: int) -> None:
    removed = current[index]
    st.session_state[Keys.SETTINGS_MCP] = [s for i, s in enumerate(current) if i != index]
    st.session_state[Keys.SETTINGS_MCP_MESSAGE] = ("info", f"Removed for this session: MCP server {_server_label(removed)}.")


def reset_servers() -> None:
    st.session_state[Keys.SETTINGS_MCP] = None
    st.session_state[Keys.SETTINGS_MCP_MESSAGE] = ("info", "Back to the environment's MCP servers.")


def _facts_table(settings: Settings) -> str:
    if settings.planner == "llm":
        planner = (f"LLM · model {md_escape(settings.model)} · temperature {settings.temperature:g}"
                   f" · {settings.max_retries} repair retries · timeout {settings.timeout:g} s")
    elif settings.planner == "embedded":
        planner = "Embedded (offline rules from the tool registry)"
    else:
        planner = md_escape(planner_labels().get(settings.planner, settings.planner))
    # The endpoint as ModelClient shows it: no user info, query or fragment from the URL.
    base_url = md_escape(ModelClient(settings).endpoint, keep_links=True) if settings.base_url else "OpenAI default"
    pinned = " (the real date)"
    if settings.today:
        origin = Settings.origin("today")  # the Settings page does not change today
        pinned = f" (pinned by `{origin}`)" if origin else " (pinned)"
    chosen = "this session's choices" if st.session_state[Keys.SETTINGS_OVERRIDES] else "the environment"
    rows = [
        ("Planner", planner),
        ("`OPENAI_API_KEY` set", "yes" if settings.api_key_set else "no"),
        ("`OPENAI_BASE_URL`", base_url),
        ("Data folder", md_escape(settings.data_dir)),
        ("Database", md_escape(settings.store_path)),
        ("Today", f"{settings.effective_today():%Y-%m-%d}{pinned}"),
        ("Settings from", chosen),
    ]
    return "\n".join(["| Setting | Value |", "| --- | --- |", *(f"| {k} | {v} |" for k, v in rows)])


def _message() -> None:
    message = st.session_state[Keys.SETTINGS_MESSAGE]
    if message is not None:
        kind, text = message
        getattr(st, kind)(md_escape(text))


def _fill_form(settings: Settings) -> None:
    """Start empty widgets at the settings in use (first visit, or after they were dropped)."""
    for field, key in _WIDGETS.items():
        if st.session_state.get(key) is None:
            st.session_state[key] = getattr(settings, field)


def _form() -> None:
    with st.form("settings.form", border=True):
        labels = planner_labels()
        st.radio("Planner", list(labels), key=Keys.SETTINGS_PLANNER, persist_state=PERSIST,
                 format_func=lambda name: labels.get(name, name), horizontal=True,
                 help="Embedded: offline rules, no model needed. LLM: a chat model writes the plan. "
                      "Others come from installed plugins.")
        st.text_input("Model", key=Keys.SETTINGS_MODEL, persist_state=PERSIST,
                      help="The model name the endpoint knows, e.g. gpt-4o-mini or llama3.1.")
        temperature, retries, timeout = st.columns(3)
        # No bounds on the inputs: Settings is the one place that knows the allowed ranges, and
        # a value it rejects is named in a message instead of being silently clamped.
        temperature.number_input("Temperature", key=Keys.SETTINGS_TEMPERATURE, step=0.1,
                                 format="%.2f", persist_state=PERSIST, help="0 to 2; lower is steadier.")
        retries.number_input("Max retries", key=Keys.SETTINGS_MAX_RETRIES, step=1,
                             persist_state=PERSIST, help="Repair attempts after the model's first reply, 0 to 10.")
        timeout.number_input("Timeout (seconds)", key=Keys.SETTINGS_TIMEOUT, step=5.0, format="%.0f",
                             persist_state=PERSIST, help="How long to wait for the model; more than 0.")
        st.form_submit_button("Apply", key="settings.apply", type="primary", on_click=apply,
                              icon=":material/check:")


def _chosen() -> dict[str, Any]:
    values = {field: st.session_state.get(key) for field, key in _WIDGETS.items()}
    values["model"] = (values["model"] or "").strip()
    return values


def invalid_message(exc: ValidationError) -> str:
    """The fields ``Settings`` refused, by their names on this page."""
    problems = []
    for error in exc.errors():
        field = str(error["loc"][0]) if error["loc"] else ""
        message = error["msg"][:1].lower() + error["msg"][1:]
        problems.append(f"{FIELD_LABELS.get(field, field)}: {message} (got {error.get('input')!r})")
    return "; ".join(problems)


def apply() -> None:
    """Form callback: use the chosen values for this session if ``Settings`` accepts them."""
    chosen = _chosen()
    kept = " Not applied; the settings in use are unchanged."
    if not chosen["model"]:
        st.session_state[Keys.SETTINGS_MESSAGE] = ("error", "Model: type a model name, e.g. gpt-4o-mini." + kept)
        return
    try:
        settings = Settings.from_env(**chosen)
    except ValidationError as exc:
        st.session_state[Keys.SETTINGS_MESSAGE] = ("error", invalid_message(exc) + "." + kept)
        return
    except Exception as exc:  # noqa: BLE001 (the page shows a message, never a traceback)
        st.session_state[Keys.SETTINGS_MESSAGE] = ("error", actions.failure_message("apply the settings", exc))
        return
    st.session_state[Keys.SETTINGS_OVERRIDES] = chosen
    planner = (f"LLM planner, model {settings.model}" if settings.planner == "llm"
               else f"{settings.planner} planner")
    # Not a success yet when the model cannot be called: the warning above says what to set.
    kind = "info" if settings.planner == "llm" and not settings.model_configured else "success"
    st.session_state[Keys.SETTINGS_MESSAGE] = (kind, f"Applied for this session: {planner}.")


def reset() -> None:
    """Drop this session's choices; the form shows the environment's settings again."""
    st.session_state[Keys.SETTINGS_OVERRIDES] = None
    st.session_state[Keys.SETTINGS_MESSAGE] = ("info", "Back to the environment's settings.")
    for key in _WIDGETS.values():
        st.session_state[key] = None


def _review_api(settings: Settings) -> None:
    """The review API's token, for agents that send plans here (``plan-studio token`` prints it too).

    Masked until Reveal: the token is not even sent to the browser before, so a glance at the
    screen, a screenshot or a page that could watch this one gets nothing."""
    from ..workbench._api_token import ensure_token

    st.subheader("Review API")
    st.caption("Agents send plans for review to `POST /api/reviews` on this studio's address, with the "
               "header `Authorization: Bearer TOKEN`: the shared admin token below (`default`; "
               "`plan-studio token` prints it too), or better an agent's own, made under People and agents.")
    if not may_see_the_shared_token():
        st.caption("The shared admin token is shown to admins only; ask one for a token of your agent's own.")
        return
    with st.container(key="settings-token"), actions.shown("show the review API token"):
        if not st.session_state[Keys.SETTINGS_TOKEN_SHOWN]:
            st.markdown("Token: `••••••••••••••••` (hidden)")
            st.button("Reveal token", key="settings.token.reveal", on_click=_show_token, args=(True,),
                      icon=":material/visibility:")
            return
        st.code(ensure_token(settings.data_dir), language=None)
        st.button("Hide token", key="settings.token.hide", on_click=_show_token, args=(False,),
                  icon=":material/visibility_off:")


def _show_token(shown: bool) -> None:
    st.session_state[Keys.SETTINGS_TOKEN_SHOWN] = shown and may_see_the_shared_token()
