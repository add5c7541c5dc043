"""Settings, read from the environment once and passed down explicitly.

The model endpoint follows the ``openai`` SDK's own variables, ``OPENAI_API_KEY`` and
``OPENAI_BASE_URL``, so OpenAI, Azure, Ollama, vLLM and LM Studio all work the same way.
The key is deliberately not a field: it is read from the environment at the moment a
client is made, so it can never be dumped, saved or shown with the settings.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import os
import re
from pathlib import Path
from typing import Literal

import platformdirs
from pydantic import BaseModel, Field, field_validator

__all__ = ["Settings", "PlannerName", "FROM_OPTIONS_VARIABLE", "split_tool_sources", "split_mcp_servers"]

PlannerName = Literal["embedded", "llm"]

_ENV = {
    "data_dir": "PLAN_STUDIO_DATA_DIR",
    "db_path": "PLAN_STUDIO_DB",
    "today": "PLAN_STUDIO_TODAY",
    "planner": "PLAN_STUDIO_PLANNER",
    "model": "PLAN_STUDIO_MODEL",
    "temperature": "PLAN_STUDIO_TEMPERATURE",
    "max_retries": "PLAN_STUDIO_MAX_RETRIES",
    "timeout": "PLAN_STUDIO_TIMEOUT",
    "mcp_timeout": "PLAN_STUDIO_MCP_TIMEOUT",
    "tools_timeout": "PLAN_STUDIO_TOOLS_TIMEOUT",
}
# Lists: tool sources are separated by os.pathsep, like PATH; MCP servers one per line (a
# command line has spaces and a URL has colons, so neither separator would do).
_LIST_ENV = {"tools": "PLAN_STUDIO_TOOLS", "mcp": "PLAN_STUDIO_MCP",
             "allowed_origins": "PLAN_STUDIO_ALLOWED_ORIGINS"}
_IDENTIFIER = re.compile(r"^[A-Za-z_]\w*$")
_MODULE = re.compile(r"^[A-Za-z_][\w.]*$")
# Set by ``plan-studio`` for the studio it starts: the settings its own options gave (it hands
# them over as the variables above), so the Settings page can name the option, not the variable.
FROM_OPTIONS_VARIABLE = "PLAN_STUDIO_FROM_OPTIONS"
_OPTIONS = {"data_dir": "--data-dir", "today": "--today", "planner": "--planner", "tools": "--tools",
            "mcp": "--mcp", "allowed_origins": "--allowed-origin"}
# An origin a browser sends: scheme, host and optional port, nothing after.
_ORIGIN = re.compile(r"^https?://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?/?$")


def split_tool_sources(text: str) -> list[str]:
    """``PLAN_STUDIO_TOOLS`` as a list of sources. On POSIX ``os.pathsep`` is ``:``, which also
    separates a module from its function (``pkg.tools:register``): a name after a module is
    taken for that function unless it is itself an importable module."""
    out: list[str] = []
    for part in (p.strip() for p in text.split(os.pathsep)):
        if not part:
            continue
        previous = out[-1] if out else ""
        if (os.pathsep == ":" and _IDENTIFIER.match(part) and _MODULE.match(previous)
                and ":" not in previous and importlib.util.find_spec(part) is None):
            out[-1] = f"{previous}:{part}"
        else:
            out.append(part)
    return out


def split_mcp_servers(text: str) -> list[str]:
    """``PLAN_STUDIO_MCP`` as a list of servers: one command line or URL per line."""
    return [line.strip() for line in text.splitlines() if line.strip()]


class Settings(BaseModel):
    data_dir: Path = Field(default_factory=lambda: Path(platformdirs.user_data_dir("plan-studio")))
    db_path: Path | None = Field(None, description="The plan store; default: <data_dir>/studio.sqlite3")
    today: dt.date | None = Field(None, description="Pins 'today' for dates and demo data; default: the real date")
    planner: PlannerName = "embedded"
    model: str = "gpt-4o-mini"
    temperature: float = Field(0.1, ge=0, le=2)
    max_retries: int = Field(3, ge=0, le=10, description="Repair attempts after the first reply")
    timeout: float = Field(60.0, gt=0, description="Seconds to wait for the model")
    tools: list[str] = Field(default_factory=list, description="Python tool files and modules (--tools)")
    mcp: list[str] = Field(default_factory=list, description="MCP servers: command lines or URLs (--mcp)")
    tools_timeout: float = Field(15.0, gt=0, description="Seconds to wait for a --tools source to load")
    mcp_timeout: float = Field(30.0, gt=0, description="Seconds to wait for an MCP server to start or answer")
    allowed_origins: list[str] = Field(default_factory=list,
                                       description="Origins besides the studio's own that may use it: a reverse proxy's")

    @field_validator("allowed_origins")
    @classmethod
    def _origins(cls, origins: list[str]) -> list[str]:
        for origin in origins:
            if not _ORIGIN.match(origin):
                raise ValueError(f"{origin!r} is not an origin like https://studio.example.com")
        return [origin.rstrip("/").lower() for origin in origins]

    @classmethod
    def from_env(cls, **overrides: object) -> "Settings":
        values: dict[str, object] = {k: os.environ[v] for k, v in _ENV.items() if os.environ.get(v)}
        if os.environ.get(_LIST_ENV["tools"]):
            values["tools"] = split_tool_sources(os.environ[_LIST_ENV["tools"]])
        if os.environ.get(_LIST_ENV["mcp"]):
            values["mcp"] = split_mcp_servers(os.environ[_LIST_ENV["mcp"]])
        if os.environ.get(_LIST_ENV["allowed_origins"]):
            values["allowed_origins"] = os.environ[_LIST_ENV["allowed_origins"]].replace(",", " ").split()
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls.model_validate(values)

    @staticmethod
    def origin(name: str) -> str | None:
        """Where the environment's value of setting ``name`` came from: the command-line option
        (``--today``) or the variable (``PLAN_STUDIO_TODAY``); None when neither set it."""
        given = os.environ.get(FROM_OPTIONS_VARIABLE, "").split(",")
        if name in _OPTIONS and name in given:
            return _OPTIONS[name]
        variable = _ENV.get(name) or _LIST_ENV.get(name)
        return variable if variable and os.environ.get(variable) else None

    @property
    def store_path(self) -> Path:
        return self.db_path or self.data_dir / "studio.sqlite3"

    def effective_today(self) -> dt.date:
        return self.today or dt.date.today()

    @property
    def base_url(self) -> str | None:
        return os.environ.get("OPENAI_BASE_URL") or None

    @property
    def api_key_set(self) -> bool:
        return bool(os.environ.get("OPENAI_API_KEY"))

    @property
    def model_configured(self) -> bool:
        """A model can be called: a key, or a local endpoint that needs none."""
        return self.api_key_set or self.base_url is not None
