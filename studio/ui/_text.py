"""Showing untrusted text (tool output, model replies, plan JSON) in Streamlit safely.

Streamlit's markdown does not run HTML, but it does turn ``![](url)`` into an image the browser
fetches, ``[x](url)`` into a link and ``$...$`` into maths. Text that did not come from this
code is escaped so it shows exactly as written and loads nothing.

Backslash escapes are not enough on their own: after parsing, Streamlit 1.67 rewrites the plain
text itself, where no escape is left to stop it. GFM turns ``www.x.com``, ``https://x`` and
``me@x.com`` into links; ``:streamlit:``, ``:material_name:`` and emoji shortcodes such as
``:warning:`` become images, icons and emoji; `` -> `` between spaces becomes an arrow. Those
rewrites skip inline code, so each such word is shown as inline code: exactly the characters
written, and exactly those when a reader copies them (an invisible joiner inside the word,
which this module used before, came along with every copy). ``:material/`` is different: it
is rewritten in the source before parsing, inline code included, so its colon is written as a
character reference, which the parser turns back into ``:`` after that rewrite has run.
"""

from __future__ import annotations

import re

__all__ = ["md_escape"]

# "=" too: a line of "=" under a line of text makes it a heading.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$&:=])")
_LINKS = r"\S*(?:https?://|www\.|@)\S*"  # web addresses and e-mail addresses (GFM autolinks)
_SYMBOLS = (r"\S*:[\w+-]+:\S*"  # :streamlit:, :material_icon:, :emoji:
            r"|(?<!\S)(?:<->|->|<-|--|>=|<=|~=)(?!\S)")  # typographic arrows between spaces
_REWRITTEN = re.compile(f"(?i){_LINKS}|{_SYMBOLS}")
_REWRITTEN_NO_LINKS = re.compile(_SYMBOLS)
_SOURCE_ICON = ":material/"
_SOURCE_ICON_ESCAPED = "&#58;material/"


def md_escape(text: object, *, keep_links: bool = False) -> str:
    """``text`` as markdown that renders literally, on one or more lines.

    ``keep_links`` lets web addresses become links, for the operator's own settings (the model
    endpoint), never for text from tools, models or plans.
    """
    pattern = _REWRITTEN_NO_LINKS if keep_links else _REWRITTEN
    out: list[str] = []
    done = 0
    text = str(text)
    for match in pattern.finditer(text):
        out.append(_plain(text[done:match.start()]))
        out.append(_verbatim(match.group()))
        done = match.end()
    out.append(_plain(text[done:]))
    # A single newline is a soft break in markdown; keep the author's lines.
    return "".join(out).replace("\n", "  \n")


def _plain(text: str) -> str:
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text).replace(r"\:material/", _SOURCE_ICON_ESCAPED)


def _verbatim(word: str) -> str:
    """``word`` (no spaces) as inline code; a ``:material/`` inside stays outside the code."""
    return _SOURCE_ICON_ESCAPED.join(_code(part) for part in word.split(_SOURCE_ICON))


def _code(text: str) -> str:
    if not text:
        return ""
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"
