"""The studio's session state: every key, its default, and the one place it is initialised.

The plan being worked on is one value (``workbench.Workbench``) under ``Keys.BENCH``; the other
keys are widgets and the pages' own view state.

Keys are namespaced by page ("plan.", "library.", "settings.", "tools."). Text widgets keep
their value across page changes with ``persist_state="session"`` (``PERSIST``), so the Library page can put a saved plan
into the Plan page's widgets before switching to it.
"""

from __future__ import annotations

from typing import Any, Final

import streamlit as st

from core import ANONYMOUS, Actor

from ..workbench import Conflict, SavedRef, Workbench

__all__ = ["PERSIST", "Conflict", "Keys", "SavedRef", "actor", "bench", "init_state"]

PERSIST: Final = "session"


class Keys:
    # Plan page widgets
    GOAL = "plan.goal"
    JSON = "plan.json"
    JSON_POSITIONS = "plan.json.positions"  # the toggle: references shown by position (``${step[N]``), not by id
    JSON_EDITOR = "plan.json.editor"  # the code editor drawn over the Plan JSON (line numbers, marks)
    JSON_PLACES = "plan.json.places"  # _json_places.Places of the text last marked (a big plan's scan, kept)
    FEEDBACK = "plan.feedback"
    SAVE_MESSAGE = "plan.save_message"
    LOCKS = "plan.locks"  # ids of the steps a re-plan must keep
    IMPORT_FORMAT = "plan.import_format"
    IMPORT_TEXT = "plan.import_text"
    EXPORT_FORMAT = "plan.export_format"
    # Plan page state
    ACTOR = "session.actor"  # core.Actor: who is signed in, set by the entry script each run (_sign_in)
    BENCH = "plan.bench"  # workbench.Workbench: the plan being worked on, its approval, version, review, run
    REVIEW_COMMENT = "review.comment"  # the reviewer's comment (a widget; synced with the workbench)
    DRAFT_ID = "plan.draft_id"  # this tab's draft in the store (and its URL), set on the session's first run
    DRAFT_WORKER = "plan.draft_worker"  # the run handle this tab last told the registry of runs live here about
    RUN_SEEN = "plan.run_seen"  # (the run shown, its store stamp when first drawn): moved elsewhere, read again
    DRAFT_WRITTEN = "plan.draft_written"  # what the draft last written holds (_drafts.Snapshot), to skip rewrites
    # Plan page: the editor (graph, inspector, history, comparison)
    EDITOR_GRAPH = "plan.graph"  # the (editable) graph component, one identity idle and during a run; its trigger ``action`` carries graph edits
    EDITOR_SELECTED = "editor.selected"  # id of the step the inspector shows, or None
    EDITOR_FIELD_ERRORS = "editor.field_errors"  # {"<step id>.<param>": why the typed value was not applied}
    EDITOR_DELETE = "editor.delete"  # id of the step whose deletion waits for the user's choice, or None
    EDITOR_ADDING = "editor.adding"  # True while the tool picker of "Add step" is open
    EDITOR_TOOL = "editor.tool"  # the tool picker's choice
    EDITOR_COMPARE = "editor.compare"  # True while "Compare versions" is open
    EDITOR_COMPARE_OLD = "editor.compare.old"  # version number (or "current") on the left of the comparison
    EDITOR_COMPARE_NEW = "editor.compare.new"  # ... and on the right
    EDITOR_CONFIRM_APPROVE = "editor.confirm_approve"  # True while a re-plan's diff waits before approval
    # Inspector widgets are keyed "editor.field.<step id>.<param>.<revision>" (and ".source",
    # ".note", ".lock" variants): a change made elsewhere gives them new keys, so they show it.
    EDITOR_FIELD_PREFIX = "editor.field."
    # Library page widgets
    SEARCH = "library.search"
    LIBRARY_MESSAGE = "library.message"  # (kind, text) about the last delete, or None
    LIBRARY_SHOWN = "library.shown"  # how many plan cards the Library draws ("Show more" adds)
    # Settings page: this session's choices, applied over the environment's settings
    SETTINGS_OVERRIDES = "settings.overrides"  # {field: value} given to Settings.from_env, or None
    SETTINGS_MESSAGE = "settings.message"  # (kind, text) about the last Apply, or None
    # Settings page widgets; None until the page fills them from the settings in use
    SETTINGS_PLANNER = "settings.planner"
    SETTINGS_MODEL = "settings.model"
    SETTINGS_TEMPERATURE = "settings.temperature"
    SETTINGS_MAX_RETRIES = "settings.max_retries"
    SETTINGS_TIMEOUT = "settings.timeout"
    SETTINGS_MCP = "settings.mcp"  # this session's MCP servers (list of --mcp values), or None: the environment's
    SETTINGS_MCP_NEW = "settings.mcp_new"  # the "Add an MCP server" text box
    SETTINGS_MCP_MESSAGE = "settings.mcp_message"  # (kind, text) about the last add or remove, or None
    SETTINGS_TOKEN_SHOWN = "settings.token_shown"  # whether Settings shows the review API token (Reveal)
    # Settings: agents' tokens and people (_access_settings; admins only)
    SETTINGS_NEW_TOKEN = "settings.new_token"  # (name, token) just made: drawn once, then dropped
    SETTINGS_TOKEN_NAME = "settings.tokens.name"
    SETTINGS_TOKEN_ROLE = "settings.tokens.role"
    SETTINGS_TOKEN_REVOKE = "settings.tokens.pick"
    SETTINGS_PERSON = "settings.people.pick"
    SETTINGS_PERSON_ROLE = "settings.people.role"
    SETTINGS_ACCESS_MESSAGE = "settings.access.message"  # (kind, text) about the last token or role change
    SETTINGS_POLICY_TEXT = "settings.policy_text"  # the policy editor's text (None: not filled yet)
    # (text, ReplayReport) of the policy checked and replayed, waiting for "Save", or None
    SETTINGS_POLICY_PENDING = "settings.policy_pending"
    SETTINGS_POLICY_MESSAGE = "settings.policy_message"  # (kind, text) about the last check or save, or None
    # Tools page widgets
    TOOLS_FILTER = "tools.filter"
    # {tool: {"description": text, "params": {name: text}}}: descriptions this session reads
    # instead of the tools' own (studio/ui/_tool_overrides.py), or None
    TOOLS_OVERRIDES = "tools.overrides"
    TOOLS_EDIT_REVISION = "tools.edit_revision"  # {tool: n}: the revision of its editor's field keys


_DEFAULTS: dict[str, Any] = {
    Keys.BENCH: None,  # made per session (init_state)
    Keys.REVIEW_COMMENT: "",
    Keys.GOAL: "",
    Keys.JSON: "",
    Keys.JSON_POSITIONS: False,
    Keys.JSON_PLACES: None,
    Keys.FEEDBACK: "",
    Keys.SAVE_MESSAGE: "",
    Keys.LOCKS: [],
    Keys.IMPORT_FORMAT: "native",
    Keys.IMPORT_TEXT: "",
    Keys.EXPORT_FORMAT: "seed",
    Keys.SEARCH: "",
    Keys.LIBRARY_MESSAGE: None,
    Keys.LIBRARY_SHOWN: 0,  # 0: the Library's first page
    Keys.DRAFT_ID: None,
    Keys.DRAFT_WRITTEN: None,
    Keys.RUN_SEEN: None,
    Keys.DRAFT_WORKER: None,
    Keys.SETTINGS_OVERRIDES: None,
    Keys.SETTINGS_MESSAGE: None,
    Keys.SETTINGS_PLANNER: None,
    Keys.SETTINGS_MODEL: None,
    Keys.SETTINGS_TEMPERATURE: None,
    Keys.SETTINGS_MAX_RETRIES: None,
    Keys.SETTINGS_TIMEOUT: None,
    Keys.SETTINGS_MCP: None,
    Keys.SETTINGS_MCP_NEW: "",
    Keys.SETTINGS_MCP_MESSAGE: None,
    Keys.SETTINGS_TOKEN_SHOWN: False,
    Keys.SETTINGS_POLICY_TEXT: None,
    Keys.SETTINGS_POLICY_PENDING: None,
    Keys.SETTINGS_POLICY_MESSAGE: None,
    Keys.TOOLS_FILTER: "",
    Keys.TOOLS_OVERRIDES: None,
    Keys.TOOLS_EDIT_REVISION: None,
    Keys.EDITOR_SELECTED: None,
    Keys.EDITOR_FIELD_ERRORS: {},
    Keys.EDITOR_DELETE: None,
    Keys.EDITOR_ADDING: False,
    Keys.EDITOR_TOOL: None,
    Keys.EDITOR_COMPARE: False,
    Keys.EDITOR_COMPARE_OLD: None,
    Keys.EDITOR_COMPARE_NEW: None,
    Keys.EDITOR_CONFIRM_APPROVE: False,
}


def init_state() -> None:
    """Give every key its default once per session; the entry script calls it on every run."""
    for key, value in _DEFAULTS.items():
        if key not in st.session_state:
            st.session_state[key] = type(value)(value) if isinstance(value, (list, dict)) else value
    if st.session_state[Keys.BENCH] is None:
        st.session_state[Keys.BENCH] = Workbench()


def bench() -> Workbench:
    """The plan being worked on in this session (one value, not a key per field), worked on by
    whoever is signed in (a callback runs before the entry script: the actor of the last run)."""
    work = st.session_state[Keys.BENCH]
    work.actor = actor()
    return work


def actor() -> Actor:
    """Who is signed in in this session; nobody (a viewer) before the entry script said."""
    return st.session_state.get(Keys.ACTOR) or ANONYMOUS
