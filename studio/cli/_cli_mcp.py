"""``plan-studio mcp-server``: the review inbox served to MCP clients on stdio, acting as the
agent whose API token it is given.

The token comes from ``--token-file FILE`` or ``PLAN_STUDIO_TOKEN`` (as ``ReviewClient`` reads
it), never from an argument, which ``ps`` shows every local user; without one the server acts as
the local user (an admin), as the other commands do.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from core._errors import CliError

from ..workbench._services import Services

__all__ = ["TOKEN_VARIABLE", "agent_token", "cmd_mcp_server"]

TOKEN_VARIABLE = "PLAN_STUDIO_TOKEN"


def agent_token(args: argparse.Namespace) -> str | None:
    """The agent's token: the file's, else the environment's, else None (the local user)."""
    if args.token_file is None:
        return os.environ.get(TOKEN_VARIABLE) or None
    try:
        token = Path(args.token_file).read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise CliError(f"--token-file {args.token_file}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise CliError(f"--token-file {args.token_file}: not UTF-8 text ({exc.reason})") from exc
    if not token:
        raise CliError(f"--token-file {args.token_file}: the file is empty")
    return token


def cmd_mcp_server(args: argparse.Namespace, services: Services) -> int:
    from ..mcp import make_mcp_server

    make_mcp_server(services, args.studio_url, token=agent_token(args)).run("stdio")
    return 0
