"""The Streamlit options `plan-studio` passes on its command line are the ones
`.streamlit/config.toml` holds for `streamlit run` from the project folder: the studio behaves
the same however it is started."""

from __future__ import annotations

import tomllib
from pathlib import Path

from studio.cli._studio_options import STUDIO_OPTIONS, studio_argv as _studio_argv

_CONFIG = Path(__file__).resolve().parents[2] / ".streamlit" / "config.toml"


def test_the_command_line_options_are_the_project_config():
    assert tomllib.loads(_CONFIG.read_text(encoding="utf-8")) == STUDIO_OPTIONS


def test_the_command_line_carries_every_option():
    argv = _studio_argv(8501)
    assert "--runner.postScriptGC=false" in argv
    assert "--server.fileWatcherType=none" in argv
    assert len([a for a in argv if a.startswith("--") and not a.startswith("--server.port")]) == sum(
        len(options) for options in STUDIO_OPTIONS.values())
