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
from typing import Annotated, Any, Callable, Literal, Mapping

import platformdirs
from pydantic import Field, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, EnvSettingsSource, PydanticBaseSettingsSource, SettingsConfigDict
from pydantic_settings.sources.utils import parse_env_vars

from . import hooks
from .tooling._retry import RetryPolicy

__all__ = ["Settings", "PlannerName", "FROM_OPTIONS_VARIABLE", "START_SECRET_VARIABLE", "take_start_secret", "split_tool_sources", "split_mcp_servers", "api_key",
           "is_database_url"]

# The name of a registered planner (``core.hooks``' ``planners``): "embedded", "llm", or a plugin's.
PlannerName = str

_PREFIX = "PLAN_STUDIO_"
# The openai SDK's own variables (the module docstring says why the key is no field).
_API_KEY = "OPENAI_API_KEY"
_BASE_URL = "OPENAI_BASE_URL"
_IDENTIFIER = re.compile(r"^[A-Za-z_]\w*$")
_MODULE = re.compile(r"^[A-Za-z_][\w.]*$")
# Set by ``plan-studio`` for the studio it starts: the settings its own options gave (it hands
# them over as their variables), so the Settings page can name the option, not the variable.
FROM_OPTIONS_VARIABLE = "PLAN_STUDIO_FROM_OPTIONS"
_OPTIONS = {"data_dir": "--data-dir", "today": "--today", "planner": "--planner", "tools": "--tools",
            "mcp": "--mcp", "mcp_config": "--mcp-config", "allowed_origins": "--allowed-origin", "demo": "--demo",
            "refresh_tools": "--refresh-tools"}
# Set by ``plan-studio`` for the studio it starts in its own process: the per-start secret of the
# URL it prints (``?token=``). Taken out of the environment when read, so no child process (a
# tool, an MCP server) inherits it; a process's environment is readable by its own user only.
START_SECRET_VARIABLE = "PLAN_STUDIO_START_SECRET"
RoleName = Literal["viewer", "reviewer", "approver", "admin"]  # core.access.Role's names
# An origin a browser sends: scheme, host and optional port, nothing after.
_DATABASE_URL = re.compile(r"^postgres(ql)?(\+\w+)?://")
_HTTP_URL = re.compile(r"^https?://[^/\s?#@]+(/[^\s]*)?$", re.IGNORECASE)
_ORIGIN = re.compile(r"^https?://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?/?$")


def is_database_url(location: object) -> bool:
    """Whether a store location is a database URL (``postgresql+psycopg://...``), not a file."""
    return isinstance(location, str) and _DATABASE_URL.match(location) is not None


def take_start_secret() -> str | None:
    """The per-start secret ``plan-studio`` handed over, removed from the environment; None if none."""
    return os.environ.pop(START_SECRET_VARIABLE, None) or None


def api_key() -> str:
    """The model's API key as the environment has it now; "" when none is set."""
    return os.environ.get(_API_KEY) or ""


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


class _Split:
    """Marks a list setting whose variable is text: how to split it (not JSON, which is
    pydantic-settings' own way for lists). Tool sources are separated by os.pathsep, like PATH;
    MCP servers one per line (a command line has spaces and a URL has colons, so neither
    separator would do); origins by spaces or commas."""

    def __init__(self, split: Callable[[str], list[str]]) -> None:
        self.split = split


class _Variables(EnvSettingsSource):
    """The environment's ``PLAN_STUDIO_*`` variables, lists split as their field says."""

    def _load_env_vars(self) -> Mapping[str, str | None]:
        # Only upper-case names, as docs/configuration.md spells them: plan_studio_model is another variable
        # (pydantic-settings would match either unless told case matters, and then it wants the
        # field's lower-case name after the prefix).
        upper = {name: value for name, value in os.environ.items() if name.isupper()}
        return parse_env_vars(upper, self.case_sensitive, self.env_ignore_empty, self.env_parse_none_str)

    def prepare_field_value(self, field_name: str, field: FieldInfo, value: Any, value_is_complex: bool) -> Any:
        split = next((m.split for m in field.metadata if isinstance(m, _Split)), None)
        if split is not None and isinstance(value, str):
            return split(value)
        return super().prepare_field_value(field_name, field, value, value_is_complex)


class Settings(BaseSettings):
    """Each setting once: field ``x`` is read from ``PLAN_STUDIO_X`` (an empty variable is unset),
    arguments win over the environment. A bad value is refused naming the field."""

    # extra="ignore": a BaseModel's default, kept from before pydantic-settings.
    model_config = SettingsConfigDict(env_prefix=_PREFIX, env_ignore_empty=True, extra="ignore",
                                      populate_by_name=True)

    # Each description is the Environment table of docs/configuration.md (core/_settings_table.py
    # renders it); "shown_default" stands for a default that depends on the machine or the moment.
    data_dir: Path = Field(
        default_factory=lambda: Path(platformdirs.user_data_dir("plan-studio")),
        json_schema_extra={"shown_default": "the user data folder (`~/.local/share/plan-studio` on Linux)"},
        description="The data folder, where the plan store, the demo data and the lists are kept, private to you: "
                    "the folder 0700, its files 0600, tightened if an existing one is looser (`--data-dir`)")
    db_path: Path | str | None = Field(
        None, validation_alias="PLAN_STUDIO_DB",  # not PLAN_STUDIO_DB_PATH
        json_schema_extra={"shown_default": "`studio.sqlite3` in the data folder"},
        description="The plan store: a SQLite file, or a PostgreSQL database as "
                    "`postgresql+psycopg://user:password@host:5432/db`, which then keeps plans, runs, drafts, "
                    "reviews and the run engine's state")
    today: dt.date | None = Field(None, json_schema_extra={"shown_default": "the real date"},
                                  description="Pins today, `YYYY-MM-DD`: the date \"last week\" or \"today\" "
                                              "resolves against, and the demo data's today (`--today`)")
    planner: PlannerName = Field("embedded", description="`embedded` plans offline from the tools' descriptions; "
                                 "`llm` asks the model at `OPENAI_BASE_URL`; or the name a planner plugin registers (`--planner`)")
    model: str = Field("gpt-4o-mini", description="The model's name")
    temperature: float = Field(0.1, ge=0, le=2, description="The model's temperature")
    max_retries: int = Field(3, ge=0, le=10, description="Repair attempts after the model's first reply")
    timeout: float = Field(60.0, gt=0, description="Seconds one model request may spend waiting on the endpoint in "
                           "all, from connecting to the last byte, even if it keeps sending bytes or header lines; "
                           "an answer larger than 128 MiB once decompressed is refused")
    first_timeout: float = Field(300.0, gt=0, description="Seconds the first request to a model may take, in place "
                                 "of `PLAN_STUDIO_TIMEOUT` when longer: a local server may load the model then")
    # A 40-step plan with notes is about 2,500 tokens; the seed goals' plans take 60-400.
    max_tokens: int = Field(3000, ge=64, le=200_000, description="The most tokens the model may write in one answer, "
                            "sent as `max_tokens` with every request (a 40-step plan with notes takes about 2,500)")
    tools: Annotated[list[str], _Split(split_tool_sources)] = Field(
        default_factory=list, description="Python tool sources (`--tools`), separated by `os.pathsep` (`:` on Linux, "
                                          "like `PATH`; `pkg.mod:register` stays whole)")
    mcp: Annotated[list[str], _Split(split_mcp_servers)] = Field(
        default_factory=list, description="MCP servers, one per line: stdio command lines or streamable HTTP URLs "
                                          "(`--mcp`)")
    demo: bool | None = Field(
        None, json_schema_extra={"shown_default": "on when no `--tools`, `--mcp` or `--mcp-config` is given"},
        description="Load the demo tools (waste data, lists, writer, say) beside yours (`--demo`); `false` never "
                    "loads them. Their names are not reserved: without them a tool of yours may be called `say`")
    mcp_config: Path | None = Field(
        None, description="An MCP config file in the format Claude Desktop and Cursor use, read unchanged: "
                          "`{\"mcpServers\": {\"name\": {\"command\", \"args\", \"env\", \"cwd\"} or "
                          "{\"url\", \"headers\"}}}`; each name prefixes its server's tools (`name__tool`), "
                          "`${VAR}` is read from the environment ([your tools](your-tools.md#load-your-claude-desktop-or-cursor-config), `--mcp-config`)")
    refresh_tools: bool = Field(False, description="List each MCP server's tools afresh (`--refresh-tools`) instead "
                                "of from the data folder's cache of its last listing; without it a server is "
                                "started only when one of its tools is called "
                                "([your tools](your-tools.md#mcp-servers-start-when-a-tool-is-called))")
    tools_timeout: float = Field(15.0, gt=0, description="Seconds one Python tool source may take to load before it "
                                 "is given up on and named")
    mcp_timeout: float = Field(30.0, gt=0, description="Seconds an MCP server may take to start and list its tools, "
                               "or to answer one call")
    max_parallel: int = Field(64, ge=1, le=1024, description="Steps of a run that may run at once: steps whose "
                              "dependencies are done run at the same time, sync tools on threads, `async def` tools "
                              "awaited")
    tool_timeout: float = Field(300.0, gt=0, description="Seconds a tool may run before its step fails with \"timed "
                                "out after N s\"; the run goes on. `inf`: no limit (as `register(timeout=math.inf)` "
                                "for one tool): a lone step of a sync tool with no limit is then called on the thread "
                                "that drives the run, saving a hand-over to a pool thread and back (LangGraph's rule "
                                "for a step without a timeout), but nothing can cut it off, and Cancel acts once it "
                                "returns (at once in a run to the end: `Executor.execute`, a durable run)")
    tool_timeouts: dict[str, float] = Field(
        default_factory=dict, description="Seconds per tool, over the default and the tool's own "
                                          "`register(timeout=...)`, as JSON: `{\"slow_tool\": 900}`")
    retry: RetryPolicy = Field(RetryPolicy(), description="When a failed tool call is made again, as JSON: "
                               "`retryable` is a tool raising `core.RetryableError`; add `timeout` or `error` to "
                               "`retry_on` to retry those too. Each call is kept with the step")
    retries: dict[str, RetryPolicy] = Field(default_factory=dict, description="A retry policy per tool, as JSON: "
                                            "`{\"flaky_api\": {\"max_attempts\": 5}}`")
    approve_writes: bool = Field(True, description="A step whose tool is not declared read-only waits for a person to "
                                 "approve its resolved arguments before it runs (steps marked `ask_first` always "
                                 "wait)")
    policy_file: Path | None = Field(
        None, validation_alias="PLAN_STUDIO_POLICY",  # not PLAN_STUDIO_POLICY_FILE
        json_schema_extra={"shown_default": "`policy.toml` in the data folder when there is one, else the default "
                                            "policy"},
        description="The policy: ordered rules (TOML, or YAML for a `.yaml` file) that allow, ask about or deny "
                    "each step, on its tool, group, effects, agent and arguments ([Policy](policy.md)); "
                    "`plan-studio run --policy FILE` for one run")
    allowed_origins: Annotated[list[str], _Split(lambda text: text.replace(",", " ").split())] = Field(
        default_factory=list, description="Origins besides the studio's own that may use it, e.g. a reverse proxy's "
                                          "`https://studio.example.com`, separated by spaces or commas "
                                          "(`--allowed-origin`)")

    user_header: str | None = Field(
        None, description="A header naming who is signed in, set by a reverse proxy in front of the studio "
                          "(e.g. `X-Forwarded-User`); believed only from `PLAN_STUDIO_TRUSTED_PROXIES`, "
                          "removed from any other request")
    trusted_proxies: Annotated[list[str], _Split(lambda text: text.replace(",", " ").split())] = Field(
        default_factory=list, description="The addresses or networks (`10.0.0.0/8`) of the reverse proxies whose "
                                          "`PLAN_STUDIO_USER_HEADER` is believed, separated by spaces or commas")
    default_role: RoleName = Field("viewer", description="The role of a person signing in for the first time "
                                   "(OIDC or a proxy header): `viewer`, `reviewer`, `approver` or `admin`; an admin "
                                   "changes it on Settings")
    group_roles: dict[str, RoleName] = Field(
        default_factory=dict, description="Roles by group for people signing in for the first time, as JSON: "
                                          "`{\"finance\": \"approver\"}` (the highest of their groups' roles, and "
                                          "at least `PLAN_STUDIO_DEFAULT_ROLE`)")
    groups_claim: str = Field("groups", description="The OIDC claim (`st.user`) that lists a person's groups")

    public_url: str | None = Field(
        None, json_schema_extra={"shown_default": "`http://127.0.0.1:PORT` when started by `plan-studio`"},
        description="The studio's address as reviewers reach it (a reverse proxy's `https://studio.example.com`): "
                    "signed links in webhooks point there")
    webhook_url: str | None = Field(
        None, description="An `http(s)://` URL the studio posts to when a step starts waiting for a person and "
                          "when an agent submits a review, with a signed link to answer it; the one saved on "
                          "Settings wins ([Links and webhooks](links-and-webhooks.md))")
    webhook_format: Literal["slack", "plain"] = Field(
        "slack", description="`slack`: Slack-compatible JSON (`text` and `blocks`); `plain`: JSON with kind, ids, "
                             "tool, arguments hash, link and expiry")
    webhook_timeout: float = Field(5.0, gt=0, le=60, description="Seconds one webhook delivery may take; a "
                                   "failed one is tried 3 times in all, waiting 1 s then 2 s, in the background")
    link_expiry: float = Field(86400.0, gt=0, description="Seconds a signed link stays usable (a day); each link "
                               "is used once")

    @field_validator("trusted_proxies")
    @classmethod
    def _proxies(cls, proxies: list[str]) -> list[str]:
        import ipaddress

        for proxy in proxies:
            try:
                ipaddress.ip_network(proxy, strict=False)
            except ValueError:
                raise ValueError(f"{proxy!r} is not an address or network like 10.0.0.5 or 10.0.0.0/8") from None
        return proxies

    @field_validator("db_path")
    @classmethod
    def _database(cls, value: Path | str | None) -> Path | str | None:
        # A URL stays text (a path would fold its "//"); anything else is a file.
        if isinstance(value, str) and not is_database_url(value):
            return Path(value)
        return value

    @field_validator("webhook_url", "public_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        value = value.strip()
        if not _HTTP_URL.match(value):
            raise ValueError(f"{value!r} is not an http:// or https:// URL with a host")
        return value

    @field_validator("planner")
    @classmethod
    def _planner(cls, name: str) -> str:
        known = hooks.planners()
        if name not in known:
            raise ValueError(f"no planner is named {name!r}; the planners are: {', '.join(known)}")
        return name

    @field_validator("allowed_origins")
    @classmethod
    def _origins(cls, origins: list[str]) -> list[str]:
        for origin in origins:
            if not _ORIGIN.match(origin):
                raise ValueError(f"{origin!r} is not an origin like https://studio.example.com")
        return [origin.rstrip("/").lower() for origin in origins]

    @classmethod
    def settings_customise_sources(
            cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
            env_settings: PydanticBaseSettingsSource, dotenv_settings: PydanticBaseSettingsSource,
            file_secret_settings: PydanticBaseSettingsSource) -> tuple[PydanticBaseSettingsSource, ...]:
        return init_settings, _Variables(settings_cls)  # no .env file, no secrets folder

    @classmethod
    def from_env(cls, **overrides: object) -> "Settings":
        """The environment's settings with ``overrides`` over them; None means not given."""
        return cls(**{k: v for k, v in overrides.items() if v is not None})

    @classmethod
    def variable(cls, name: str) -> str:
        """The environment variable setting ``name`` is read from: ``PLAN_STUDIO_TODAY``."""
        alias = cls.model_fields[name].validation_alias  # a variable not named after its field
        return alias if isinstance(alias, str) else _PREFIX + name.upper()

    @staticmethod
    def origin(name: str) -> str | None:
        """Where the environment's value of setting ``name`` came from: the command-line option
        (``--today``) or the variable (``PLAN_STUDIO_TODAY``); None when neither set it."""
        given = os.environ.get(FROM_OPTIONS_VARIABLE, "").split(",")
        if name in _OPTIONS and name in given:
            return _OPTIONS[name]
        variable = Settings.variable(name) if name in Settings.model_fields else None
        return variable if variable and os.environ.get(variable) else None

    @property
    def demo_tools(self) -> bool:
        """Whether the demo tools load: as ``demo`` says, else when no tools of the user's are given."""
        return self.demo if self.demo is not None else not (self.tools or self.mcp or self.mcp_config)

    @property
    def policy_path(self) -> Path | None:
        """The policy file in force: the one set, else ``policy.toml`` in the data folder when
        there is one; None for the default policy."""
        if self.policy_file is not None:
            return self.policy_file
        kept = self.data_dir / "policy.toml"
        return kept if kept.is_file() else None

    @property
    def store_path(self) -> Path | str:
        """The store's SQLite file, or its database URL (``is_database_url``)."""
        return self.db_path or self.data_dir / "studio.sqlite3"

    def effective_today(self) -> dt.date:
        return self.today or dt.date.today()

    @property
    def base_url(self) -> str | None:
        return os.environ.get(_BASE_URL) or None

    @property
    def api_key_set(self) -> bool:
        return bool(api_key())

    @property
    def model_configured(self) -> bool:
        """A model can be called: a key, or a local endpoint that needs none."""
        return self.api_key_set or self.base_url is not None
