"""A tool's description, and its parameters' descriptions, overridden without touching its source.

``ToolRegistry.with_overrides`` wraps a registry (pydantic-ai's wrapped toolsets, for
descriptions): the view's tools read as the overrides say, run as before, and the registry they
came from is left alone. The studio keeps one set per browser session for the LLM planner's
manual; a lab can compare several side by side.

    view = registry.with_overrides({"addItem": ToolOverride(description="Append one item.",
                                                            params={"item": "One grocery item."})})
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

__all__ = ["ToolOverride", "overrides_from_json"]


@dataclass(frozen=True)
class ToolOverride:
    """What to read instead of a tool's own words: ``None`` (or no entry) keeps the source's."""

    description: str | None = None
    params: Mapping[str, str] = field(default_factory=dict)

    @property
    def is_empty(self) -> bool:
        return self.description is None and not self.params

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.description is not None:
            data["description"] = self.description
        if self.params:
            data["params"] = dict(self.params)
        return data


def overrides_from_json(data: Mapping[str, Any]) -> dict[str, ToolOverride]:
    """``{tool: {"description": ..., "params": {name: ...}}}`` (as kept in a session) as overrides."""
    return {name: ToolOverride(item.get("description"), dict(item.get("params") or {}))
            for name, item in data.items()}
