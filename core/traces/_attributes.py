"""What may go into a span's attributes: short, escaped text, never a tool's output.

Attributes leave the process for a collector somebody else runs. A goal, an error or a name
is cut to ``TEXT_LIMIT`` characters with control characters escaped (a log viewer draws them
as they are); arguments and results are never sent, only their hashes and sizes; and a
value that looks like a secret (an API key, a bearer token, a password in a URL) is masked
with the model client's redaction (``core.llm``)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from ..llm._redact import redact

__all__ = ["TEXT_LIMIT", "nanos", "text", "without_none"]

TEXT_LIMIT = 256
_CONTROLS = {c: f"\\x{c:02x}" for c in range(32) if chr(c) not in "\n\t"} | {0x7F: "\\x7f"}
_CONTROLS |= {ord("\n"): "\\n", ord("\t"): "\\t"}
# A bearer token, or a password in a URL ("scheme://user:password@host").
_SECRET_SHAPES = re.compile(r"(?i)(bearer\s+)[^\s\"']+|(://[^/\s:@]+:)[^/\s@]+(@)")


def text(value: Any, limit: int = TEXT_LIMIT) -> str:
    """``value`` as short, one-line, escaped text with secrets masked."""
    said = _SECRET_SHAPES.sub(_masked, redact(str(value)[: limit * 4])).translate(_CONTROLS)
    return said if len(said) <= limit else said[: limit - 1] + "…"


def _masked(match: re.Match[str]) -> str:
    if match.group(1):
        return f"{match.group(1)}[redacted]"
    return f"{match.group(2)}[redacted]{match.group(3)}"


def nanos(at: dt.datetime | None) -> int | None:
    """A time as OpenTelemetry takes it (ns since the epoch); a naive time is UTC."""
    if at is None:
        return None
    if at.tzinfo is None:
        at = at.replace(tzinfo=dt.timezone.utc)
    return int(at.timestamp() * 1_000_000_000)


def without_none(attributes: dict[str, Any]) -> dict[str, Any]:
    """The attributes that have a value (OpenTelemetry drops None with a warning)."""
    return {key: value for key, value in attributes.items() if value is not None and value != ""}
