"""Showing untrusted text (tool output, model replies, plan JSON) in Streamlit safely.

Streamlit's markdown does not run HTML, but it does turn ``![](url)`` into an image the browser
fetches, ``[x](url)`` into a link and ``$...$`` into maths. Text that did not come from this
code is escaped so it shows exactly as written and loads nothing.
"""

from __future__ import annotations

import re

__all__ = ["md_escape"]

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$&:])")


def md_escape(text: object) -> str:
    """``text`` as markdown that renders literally, on one or more lines."""
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", str(text))
    # A single newline is a soft break in markdown; keep the author's lines.
    return escaped.replace("\n", "  \n")
