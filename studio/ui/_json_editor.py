"""The Plan JSON as a code editor: line numbers, JSON highlighting, bracket matching and the
lines of problems marked, drawn in the browser over the page's own ``st.text_area``.

Why over the text area and not a code editor of its own: the text area stays the one place the
text lives, with everything it already does (its "Plan JSON" label for screen readers and tests,
Ctrl+Enter and leaving the field to apply, its value in session state, kept across pages); this
component only draws. Nothing is fetched: the script is ``studio/assets/json_editor.js``, sent
with the page, and with no script the text area works as a plain one.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import streamlit as st

__all__ = ["code_editor"]

_ASSETS = Path(__file__).resolve().parents[1] / "assets"
# Passed as text: a one-line string with a "/" in it is taken for a file path (both files start
# with a comment line, so never one line).
_CSS = (_ASSETS / "json_editor.css").read_text(encoding="utf-8")
_JS = (_ASSETS / "json_editor.js").read_text(encoding="utf-8")
# The jumps to problem lines come first: what changes as the caret moves or the text is edited
# (the caret's place, Apply) comes after them, so it never moves a button about to be clicked.
_HTML = ('<div class="ps-code-bar" data-testid="plan-json-editor">'
         '<span class="ps-code-jumps"></span><span class="ps-code-where"></span>'
         '<button type="button" class="ps-code-apply" hidden title="Apply the text (Ctrl+Enter; leaving the field '
         'applies it too)">Apply</button></div>')

_code_editor = st.components.v2.component("plan_studio_json_editor", html=_HTML, css=_CSS, js=_JS)


def _css_class(widget_key: str) -> str:
    """The class Streamlit gives a keyed widget's container (``st-key-`` and the key, other
    characters than letters, digits, ``_`` and ``-`` as ``-``)."""
    return "st-key-" + "".join(c if c.isascii() and (c.isalnum() or c in "_-") else "-" for c in widget_key.strip())


def code_editor(widget_key: str, text: str, marks: list[dict[str, Any]], *, key: str) -> None:
    """Draw the code editor over the text area keyed ``widget_key`` (drawn before it), showing
    ``text``, with ``marks`` (``{"line", "column", "severity", "message"}``) on their lines."""
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    _code_editor(key=key, data={"target": _css_class(widget_key), "marks": marks, "text": digest})
