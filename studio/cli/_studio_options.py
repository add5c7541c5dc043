"""The Streamlit options the studio needs wherever it is started, and the ``streamlit run``
command line ``plan-studio`` starts it with. ``.streamlit/config.toml`` holds the same options,
for ``streamlit run`` from the project folder (``tests/unit/test_studio_options.py`` keeps the
two equal).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

__all__ = ["ENTRY_SCRIPT", "STUDIO_OPTIONS", "studio_argv"]

ENTRY_SCRIPT = Path(__file__).resolve().parents[1] / "asgi.py"  # the app (app.py) with the review API

STUDIO_OPTIONS: dict[str, dict[str, Any]] = {
    # No file watcher: the studio is an installed app, not a script being written. Watching walks
    # every imported module's path on the server's event loop after each script run (seen under
    # py-spy while a second window waited for its page) and keeps polling threads busy.
    "server": {"headless": True, "address": "127.0.0.1", "enableStaticServing": True, "fileWatcherType": "none"},
    # No full garbage collection after every script run: it holds the GIL for 0.1 s and more
    # (seen under py-spy: the largest single cost of a Reviews or Run all click), and a live run
    # reruns its fragment twice a second. Python's own generational collection still runs.
    "runner": {"postScriptGC": False},
    "browser": {"gatherUsageStats": False},
    "client": {"showErrorDetails": "type", "toolbarMode": "minimal"},
    "theme": {"base": "light", "primaryColor": "#2563eb"},
}


def studio_argv(port: int, allowed_origins: Sequence[str] = (), host: str = "127.0.0.1") -> list[str]:
    """``streamlit run`` of the studio on ``host:port`` with ``STUDIO_OPTIONS`` as flags."""
    served = {**STUDIO_OPTIONS, "server": {**STUDIO_OPTIONS["server"], "address": host}}
    flags = [f"--{section}.{name}={str(value).lower() if isinstance(value, bool) else value}"
             for section, options in served.items() for name, value in options.items()]
    # Streamlit checks a WebSocket's origin too, after the studio's guard (_origin_guard.py).
    cors = [f"--server.corsAllowedOrigins={origin}" for origin in allowed_origins]
    return ["run", str(ENTRY_SCRIPT), f"--server.port={port}", *flags, *cors]
