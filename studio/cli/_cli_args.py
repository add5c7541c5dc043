"""The ``plan-studio`` command line's arguments: every command, its options and their help."""

from __future__ import annotations

import argparse
import datetime as dt
from pathlib import Path

from core import FORMATS, hooks

from ._cli_audit import add_audit_command
from ._cli_runs import add_commands
from ._cli_tools import add_tools_command

__all__ = ["parser"]


def _exportable() -> list[str]:
    return [name for name, fmt in FORMATS.items() if fmt.dump is not None]


def _importable() -> list[str]:
    return [name for name, fmt in FORMATS.items() if fmt.load is not None]


def _date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date in YYYY-MM-DD form") from None


def _common_options(before_command: bool) -> argparse.ArgumentParser:
    """Options every command takes, before or after the command name. The repeatable ones
    get their own names before it: argparse would let the command's values replace them, and
    ``--tools a.py run plan.json --tools b.py`` means both."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", type=Path, default=argparse.SUPPRESS,
                        help="where plans and demo data are kept (default: PLAN_STUDIO_DATA_DIR "
                             "or the user data folder)")
    common.add_argument("--today", type=_date, default=argparse.SUPPRESS,
                        help="the date relative phrases resolve against (YYYY-MM-DD)")
    planners = hooks.planners()
    common.add_argument("--planner", choices=list(planners), default=argparse.SUPPRESS,
                        help="; ".join(f"{name}: {spec.description or spec.label}" for name, spec in planners.items()))
    prefix = "before_" if before_command else ""
    common.add_argument("--tools", action="append", metavar="FILE_OR_MODULE", default=argparse.SUPPRESS,
                        dest=f"{prefix}tools",
                        help="load your tools from a .py file, a module or module:register "
                             "(repeatable; default: PLAN_STUDIO_TOOLS)")
    common.add_argument("--mcp", action="append", metavar="COMMAND_OR_URL", default=argparse.SUPPRESS,
                        dest=f"{prefix}mcp",
                        help="load an MCP server's tools: a stdio command line, or a streamable "
                             "HTTP URL with optional ' | Name: value' headers (repeatable; "
                             "default: PLAN_STUDIO_MCP, one per line)")
    common.add_argument("--demo", action="store_true", default=argparse.SUPPRESS,
                        help="load the demo tools too (default: PLAN_STUDIO_DEMO; they load by themselves only "
                             "when no --tools, --mcp or --mcp-config is given)")
    common.add_argument("--refresh-tools", action="store_true", default=argparse.SUPPRESS,
                        help="list the MCP servers' tools afresh, not from the cache of their last listing "
                             "(default: PLAN_STUDIO_REFRESH_TOOLS)")
    common.add_argument("--mcp-config", type=Path, metavar="FILE", default=argparse.SUPPRESS,
                        help="load the MCP servers of a config file as Claude Desktop and Cursor write "
                             "it ({\"mcpServers\": {...}}); each server's tools are named NAME__tool "
                             "(default: PLAN_STUDIO_MCP_CONFIG)")
    return common


def parser() -> argparse.ArgumentParser:
    common = _common_options(before_command=False)
    parser = argparse.ArgumentParser(
        prog="plan-studio", parents=[_common_options(before_command=True)],
        description="See, edit, approve and run what an AI planner is about to do. "
                    "Without a command, starts the studio in your browser.")
    parser.add_argument("--port", type=int, default=8501, help="the studio's port (default 8501)")
    parser.add_argument("--host", default="127.0.0.1", metavar="ADDRESS",
                        help="the address the studio listens on (default 127.0.0.1: this machine only; 0.0.0.0: "
                             "every interface, as in a container; without sign-in configured it warns)")
    parser.add_argument("--allowed-origin", action="append", metavar="ORIGIN", dest="allowed_origins",
                        help="another origin that may use the studio, e.g. a reverse proxy's https://studio."
                             "example.com (repeatable; default: PLAN_STUDIO_ALLOWED_ORIGINS)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    plan = commands.add_parser("plan", parents=[common], help="print a plan for a goal")
    plan.add_argument("goal", nargs="?", help="what to achieve, in words")
    plan.add_argument("--goals-file", type=Path,
                      help="plan one goal per line (blank lines skipped; '-' reads stdin) and "
                           "print one compact JSON per goal, in order")
    plan.add_argument("--format", choices=_exportable(), default="seed",
                      help="how to write the plan (default: seed)")
    plan.add_argument("-v", "--verbose", action="store_true",
                      help="print the planner log on stderr: each model reply, its problems and the repair sent")

    validate = commands.add_parser("validate", parents=[common], help="check a plan file")
    validate.add_argument("file", type=Path)
    validate.add_argument("--format", choices=_importable(),
                          help="the file's format (default: from its suffix and content)")

    run = commands.add_parser("run", parents=[common], help="execute a plan file")
    run.add_argument("file", type=Path)
    run.add_argument("--format", choices=_importable(),
                     help="the file's format (default: from its suffix and content)")
    run.add_argument("--answer", action="store_true",
                     help="also print the final answer (the model's with --planner llm, "
                          "else a summary)")
    run.add_argument("--approve-writes", action="store_true",
                     help="approve every step that would wait for a person (tools that may write, "
                          "steps marked ask-first); steps the policy denies still never run")
    run.add_argument("--policy", type=Path, metavar="FILE",
                     help="the policy for this run: rules in a TOML or YAML file (default: PLAN_STUDIO_POLICY, "
                          "else policy.toml in the data folder, else the default policy)")
    run.add_argument("--rehearse", action="store_true",
                     help="rehearse: call no tool; each step's result stands in from --pins, the --recording run, "
                          "or the tool's output schema (a tool that may write needs one of the first two)")
    run.add_argument("--pins", type=Path, metavar="FILE",
                     help="with --rehearse: pinned results, a JSON object of step id to result")
    run.add_argument("--recording", metavar="RUN_ID",
                     help="with --rehearse: take results from this stored real run (see plan-studio runs)")
    policy = commands.add_parser("policy", parents=[common], help="check a policy file")
    policy_commands = policy.add_subparsers(dest="policy_command", metavar="ACTION", required=True)
    check = policy_commands.add_parser("check", parents=[common],
                                       help="read a policy file against the tools: print its rules in order, or "
                                            "the error with its line (exit 2)")
    check.add_argument("policy_path", type=Path, metavar="FILE")

    replan = commands.add_parser("replan", parents=[common], help="change a plan as feedback asks")
    replan.add_argument("file", type=Path)
    replan.add_argument("--feedback", required=True, help="what should change")
    replan.add_argument("--format", choices=_importable(),
                        help="the file's format, also used for the output when it can be "
                             "written (default: from its suffix and content)")
    token = commands.add_parser("token", parents=[common],
                                help="print the shared admin token ('default'), or make, list and revoke agents' tokens")
    token_commands = token.add_subparsers(dest="token_command", metavar="{create,list,revoke}")
    create = token_commands.add_parser("create", parents=[common], help="make an agent's token (printed once, kept hashed)")
    create.add_argument("name", help="the token's name (letters, digits, '.', '_', '-')")
    create.add_argument("--role", default="reviewer", choices=["viewer", "reviewer", "approver", "admin"],
                        help="what the agent may do (default reviewer: submit plans and run them)")
    create.add_argument("--agent", default=None, help="the agent's name (default: the token's name)")
    token_commands.add_parser("list", parents=[common], help="the tokens: name, agent, role, created, last used, revoked")
    revoke = token_commands.add_parser("revoke", parents=[common], help="revoke a token from now on")
    revoke.add_argument("name", help="the token's name")
    mcp_server = commands.add_parser("mcp-server", parents=[common],
                                     help="serve the review inbox to MCP clients over stdio")
    mcp_server.add_argument("--studio-url", default="http://127.0.0.1:8501",
                            help="the studio review links point at (default http://127.0.0.1:8501)")
    mcp_server.add_argument("--token-file", default=None, metavar="FILE",
                            help="a file holding the agent's own API token (`plan-studio token create NAME`): the "
                                 "server acts as that agent; else PLAN_STUDIO_TOKEN, else the local user (admin)")
    add_commands(commands, common)
    add_audit_command(commands, common)
    add_tools_command(commands, common)
    return parser
