"""Each setting is declared once: its field names its variable, and a bad value names the field."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from core import Settings

CONFIGURATION = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"
# Variables docs/configuration.md lists that are not settings: the CLI's hand-over note, the client's token.
NOT_SETTINGS = {"PLAN_STUDIO_FROM_OPTIONS", "PLAN_STUDIO_TOKEN"}


def test_every_setting_has_the_variable_the_docs_name() -> None:
    table = set(re.findall(r"^\| `(PLAN_STUDIO_\w+)` \|", CONFIGURATION.read_text(encoding="utf-8"), re.MULTILINE))
    variables = {Settings.variable(name) for name in Settings.model_fields}
    assert variables == table - NOT_SETTINGS
    assert Settings.variable("db_path") == "PLAN_STUDIO_DB"


def test_settings_made_directly_read_the_environment_and_arguments_win(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLAN_STUDIO_MODEL", "env-model")
    monkeypatch.setenv("PLAN_STUDIO_DB", "/tmp/x.sqlite3")
    assert Settings().model == "env-model" and str(Settings().db_path) == "/tmp/x.sqlite3"
    assert Settings(model="given").model == "given"
    assert Settings.from_env(model=None).model == "env-model"  # None: not given


@pytest.mark.parametrize(("field", "value"), [
    ("temperature", "7"), ("max_retries", "many"), ("timeout", "0"), ("today", "soon"),
    ("planner", "oracle"), ("allowed_origins", "ftp://x"), ("tools_timeout", "-1"), ("mcp_timeout", "never")])
def test_a_bad_value_in_a_variable_names_the_setting(field: str, value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(Settings.variable(field), value)
    with pytest.raises(ValidationError) as refused:
        Settings.from_env()
    assert [error["loc"][0] for error in refused.value.errors()] == [field]


def test_empty_variables_are_not_set(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in Settings.model_fields:
        monkeypatch.setenv(Settings.variable(name), "")
    assert Settings.from_env(data_dir="/d") == Settings(data_dir="/d")
    assert Settings.from_env().timeout == 60.0 and Settings.from_env().tools == []


def test_lists_are_split_as_the_docs_say(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLAN_STUDIO_MCP", "node a.js stdio\n\n  https://h/mcp | X-Key: v \n")
    monkeypatch.setenv("PLAN_STUDIO_ALLOWED_ORIGINS", "https://A.example, http://10.0.0.5:8501/")
    settings = Settings.from_env()
    assert settings.mcp == ["node a.js stdio", "https://h/mcp | X-Key: v"]
    assert settings.allowed_origins == ["https://a.example", "http://10.0.0.5:8501"]


def test_only_the_prefixed_variables_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DB_PATH", "/not/this")
    monkeypatch.setenv("MODEL", "not-this")
    monkeypatch.delenv("PLAN_STUDIO_DB", raising=False)
    monkeypatch.delenv("PLAN_STUDIO_MODEL", raising=False)
    monkeypatch.setenv("plan_studio_model", "not-this-either")  # the variables are upper case
    assert (Settings().db_path, Settings().model) == (None, "gpt-4o-mini")
    assert Settings(db_path="/given").db_path == Path("/given")
    assert Settings.model_validate_json(Settings(db_path="/kept").model_dump_json()).db_path == Path("/kept")


def test_no_variable_is_read_outside_the_settings() -> None:
    # One spelling of each variable, in core/_settings.py: the rest of the code asks Settings or api_key().
    root = Path(__file__).resolve().parents[2]
    read = re.compile(r"""environ(?:\.get\(|\[)\s*["'](?:PLAN_STUDIO_|OPENAI_)""")
    readers = sorted(str(path.relative_to(root)) for folder in ("core", "tools", "studio", "pages")
                     for path in (root / folder).rglob("*.py") if read.search(path.read_text(encoding="utf-8")))
    assert read.search('key = os.environ.get("OPENAI_API_KEY")') and read.search("os.environ['PLAN_STUDIO_MCP']")
    assert readers == []
