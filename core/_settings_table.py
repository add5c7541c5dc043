"""The Markdown table of every ``PLAN_STUDIO_*`` variable, rendered from ``Settings`` itself, so
the documentation cannot drift from the declaration.

``docs/configuration.md`` holds the table between two markers; regenerate it with
``.venv/bin/python -m core._settings_table docs/configuration.md`` (``tests/docs`` fails, naming
that command, when the page and the declaration disagree).
"""

from __future__ import annotations

import datetime as dt
import json
import sys
import typing
from pathlib import Path
from typing import Any

import annotated_types
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from ._settings import Settings

__all__ = ["BEGIN", "END", "REGENERATE", "settings_table", "with_settings_table"]

REGENERATE = ".venv/bin/python -m core._settings_table docs/configuration.md"
BEGIN = f"<!-- settings table: generated from core/_settings.py by `{REGENERATE}` -->"
END = "<!-- end of the settings table -->"


def settings_table() -> str:
    """One row per setting: its variable, default, the values it takes and what it means."""
    rows = ["| Variable | Default | Values | Meaning |", "| --- | --- | --- | --- |"]
    for name, field in Settings.model_fields.items():
        cells = (f"`{Settings.variable(name)}`", _default(field), _values(field), field.description or "")
        rows.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(rows) + "\n"


def with_settings_table(page: str) -> str:
    """``page`` with the text between its markers replaced by the table of today's settings."""
    head, begin, rest = page.partition(BEGIN)
    _, end, tail = rest.partition(END)
    if not begin or not end:
        raise ValueError(f"the page has no settings table markers: {BEGIN} ... {END}")
    return f"{head}{BEGIN}\n{settings_table()}{END}{tail}"


def _default(field: FieldInfo) -> str:
    extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
    if "shown_default" in extra:
        return str(extra["shown_default"])
    value = field.get_default(call_default_factory=True)
    if value is None:
        return "unset"
    if value in ([], {}):
        return "none"
    if isinstance(value, BaseModel):
        return f"`{json.dumps(_plain(value.model_dump(mode='json')), separators=(', ', ': '))}`"
    return f"`{json.dumps(_plain(value)) if isinstance(value, bool) else _plain(value)}`"


def _plain(value: Any) -> Any:
    """Whole floats as integers (``2``, not ``2.0``), in nested JSON too."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _values(field: FieldInfo) -> str:
    kind = field.annotation
    options = set(typing.get_args(kind)) - {type(None)}
    if typing.get_origin(kind) is typing.Literal:
        return " or ".join(f"`{choice}`" for choice in typing.get_args(kind))
    if kind is bool:
        return "`true` or `false`"
    if kind in (int, float):
        return _bounds(field, "a number" if kind is float else "a whole number")
    if kind is dt.date or options == {dt.date}:
        return "`YYYY-MM-DD`"
    if kind is Path:
        return "a folder"
    if options == {Path, str}:
        return "a file or a URL"
    if typing.get_origin(kind) is list:
        return "a list"
    if typing.get_origin(kind) is dict or (isinstance(kind, type) and issubclass(kind, BaseModel)):
        return "JSON"
    return "text"


def _bounds(field: FieldInfo, noun: str) -> str:
    low = next((m for m in field.metadata if isinstance(m, (annotated_types.Ge, annotated_types.Gt))), None)
    high = next((m.le for m in field.metadata if isinstance(m, annotated_types.Le)), None)
    if isinstance(low, annotated_types.Ge) and high is not None:
        return f"{_plain(low.ge):,} to {_plain(high):,}"
    if isinstance(low, annotated_types.Gt):
        return f"{noun} over {_plain(low.gt)}"
    return noun


if __name__ == "__main__":  # pragma: no cover - the command the docs test names
    for name in sys.argv[1:] or ["docs/configuration.md"]:
        path = Path(name)
        path.write_text(with_settings_table(path.read_text(encoding="utf-8")), encoding="utf-8")
        print(f"wrote the settings table into {path}")
