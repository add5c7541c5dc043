"""Showing untrusted text (tool output, model replies, plan JSON) in Streamlit safely.

Streamlit's markdown does not run HTML, but it does turn ``![](url)`` into an image the browser
fetches, ``[x](url)`` into a link and ``$...$`` into maths. Text that did not come from this
code is escaped so it shows exactly as written and loads nothing.

Backslash escapes are not enough on their own: after parsing, Streamlit rewrites the plain
text itself, where no escape is left to stop it. GFM turns ``www.x.com``, ``https://x`` and
``me@x.com`` into links, ``:streamlit:`` becomes a logo image, ``:material/name:`` an icon,
and `` -> `` an arrow. An invisible word joiner (U+2060) inside each such pattern keeps the
text as it was written; it only shows up if the text is copied.
"""

from __future__ import annotations

import re

__all__ = ["md_escape"]

# "=" too: a line of "=" under a line of text makes it a heading.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$&:=])")
_JOINER = "\u2060"
# The start of each pattern Streamlit rewrites in plain text, split after its first character
# (or, for a link, just before the "." or ":" that makes it one).
_LINKS = r"(?<=www)(?=\.)|(?<=http)(?=:)|(?<=https)(?=:)|(?<=@)"  # www.x, http(s)://, me@x
_SYMBOLS = (r"(?<=:)(?=streamlit:)|(?<=:)(?=material/)"  # :streamlit:, :material/icon:
            r"|(?<=<)(?=[-=])|(?<=-)(?=[->])|(?<=[>~])(?==)")  # <-> <- <= -> -- >= ~=
_REWRITTEN = re.compile(f"(?i){_LINKS}|{_SYMBOLS}")
_REWRITTEN_NO_LINKS = re.compile(_SYMBOLS)


def md_escape(text: object, *, keep_links: bool = False) -> str:
    """``text`` as markdown that renders literally, on one or more lines.

    ``keep_links`` lets web addresses become links, for the operator's own settings (the model
    endpoint), never for text from tools, models or plans.
    """
    text = (_REWRITTEN_NO_LINKS if keep_links else _REWRITTEN).sub(_JOINER, str(text))
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", text)
    # A single newline is a soft break in markdown; keep the author's lines.
    return escaped.replace("\n", "  \n")
