"""``plan-studio``: start the studio, or plan, validate, run and re-plan from the shell.

    plan-studio [--port N] [--host ADDRESS]     the studio on http://127.0.0.1:N (or ADDRESS)
    plan-studio plan GOAL [--format seed]       a plan for GOAL
    plan-studio plan --goals-file FILE          one goal per line -> one JSON line per goal
    plan-studio validate FILE [--format F]      exit 1 and the problems, or "valid"
    plan-studio run FILE [--rehearse]           each step's status and result count; exit 1 if one failed
                                                (recorded as it goes: see runs, resume; --rehearse calls no tool)
    plan-studio runs | resume RUN_ID | rerun RUN_ID --from STEP | worker   durable runs (_cli_runs)
    plan-studio replan FILE --feedback TEXT     the changed plan
    plan-studio token                           the shared admin token, 'default' (made if there is none)
    plan-studio token create NAME [--role R]    an agent's own token (printed once); token list | revoke NAME
    plan-studio audit [--since TIME] [--json]   the audit: who did what, when and why (_cli_audit)
    plan-studio mcp-server [--studio-url URL] [--token-file FILE]   the review inbox as an MCP server on stdio

Every command also takes ``--tools FILE_OR_MODULE`` (your Python tools) and ``--mcp
COMMAND_OR_URL`` (an MCP server's tools), both repeatable, and ``--mcp-config FILE`` (the MCP
servers of a Claude Desktop or Cursor config file). A command refuses to run when one
of them cannot be loaded (exit 2, one line each); the studio starts without it and says why.
A part of a source left out on purpose (an MCP tool that only runs as a task) is a warning.

Exit status: 0 done; 1 the plan is invalid or unreadable, or a step failed; 2 a usage or
setup error, printed as one line on stderr (never a traceback).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
from pathlib import Path
from typing import Iterable, Iterator, Sequence, TextIO

from pydantic import ValidationError

from core import (CUT_OFF, FINISHED, FORMATS, FROM_OPTIONS_VARIABLE, START_SECRET_VARIABLE, Executor, Plan, PlanError,
                  PlanInvalid, PlanStudioError, PolicyDenied, PolicyError, Run, Settings, StepRun, StepStatus,
                  private_folder)
from core._errors import CliError, Interrupted, NotText
from core.formats import detect_and_load, export_plan
from core.policy import check_against, check_plan, load_policy
from core.planners import planner_notices
from tools import LoadNotice

from ._cli_log import note_loading, plan_logged
from ._cli_approval import approve_on_terminal, approved_up_front, nobody_to_ask
from ._cli_args import parser as _parser
from ._cli_audit import cmd_audit
from ._cli_mcp import cmd_mcp_server
from ._cli_tools import cmd_tools
from ._studio_options import STUDIO_OPTIONS, studio_argv
from ._cli_runs import cmd_rehearse, cmd_rerun, cmd_resume, cmd_runs, cmd_worker, run_recorded
from ..workbench._services import Services, build_services
from ..workbench import plan_for_goal, replanned

__all__ = ["STUDIO_OPTIONS", "detect_and_load", "main"]

_EXIT_FAILED = 1
_EXIT_ERROR = 2
_EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report Ctrl-C


def _settings(args: argparse.Namespace) -> Settings:
    try:
        return Settings.from_env(data_dir=getattr(args, "data_dir", None),
                                 today=getattr(args, "today", None),
                                 planner=getattr(args, "planner", None),
                                 tools=_tool_sources(args), mcp=_listed(args, "mcp"),
                                 demo=True if getattr(args, "demo", False) else None,
                                 refresh_tools=True if getattr(args, "refresh_tools", False) else None,
                                 mcp_config=_mcp_config(args),
                                 policy_file=getattr(args, "policy", None))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise CliError(f"bad setting {where}: {first['msg']}") from exc


def _listed(args: argparse.Namespace, name: str) -> list[str] | None:
    """A repeatable option's values, before and after the command name; None if never given."""
    before, after = getattr(args, f"before_{name}", None), getattr(args, name, None)
    return None if before is None and after is None else [*(before or []), *(after or [])]


def _mcp_config(args: argparse.Namespace) -> Path | None:
    """``--mcp-config``, made absolute: the studio may resolve it from elsewhere."""
    path = getattr(args, "mcp_config", None)
    return None if path is None else path.expanduser().resolve()


def _tool_sources(args: argparse.Namespace) -> list[str] | None:
    """``--tools`` values, files made absolute: the studio may resolve them from elsewhere."""
    sources = _listed(args, "tools")
    if sources is None:
        return None
    return [str(Path(s).expanduser().resolve()) if s.endswith(".py") or os.sep in s else s for s in sources]


def _read(path: Path) -> str:
    try:
        return sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise NotText(f"cannot read {path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc


def _compact(text: str) -> str:
    """One line of JSON: the plan itself when the format is JSON, else the text as a string."""
    try:
        return json.dumps(json.loads(text), ensure_ascii=False, separators=(",", ":"))
    except json.JSONDecodeError:
        return json.dumps(text, ensure_ascii=False)


def _goals(path: Path) -> Iterator[str]:
    # Standard input is read a line at a time, so a goal piped in is planned as it arrives.
    lines: Iterable[str] = _stdin_lines() if str(path) == "-" else _read(path).splitlines()
    for line in lines:
        if line.strip():
            yield line.strip()


def _stdin_lines() -> Iterator[str]:
    try:
        yield from sys.stdin
    except UnicodeDecodeError as exc:
        raise CliError(f"cannot read standard input: not UTF-8 text ({exc.reason})") from exc


def _cmd_plan(args: argparse.Namespace, services: Services) -> int:
    if (args.goal is None) == (args.goals_file is None):
        raise CliError("give either a GOAL or --goals-file FILE")
    note_loading(services.planner, verbose=args.verbose)
    if args.goal is not None:
        plan = plan_logged(lambda: plan_for_goal(services, args.goal), verbose=args.verbose)
        print(_exported(plan, args.format, services, None))
        _note_reading(plan, None)
        return 0
    status = 0
    printed = 0
    try:
        for goal in _goals(args.goals_file):
            line, goal_status = _plan_line(goal, args.format, services, args.verbose)
            status = max(status, goal_status)
            printed += 1  # counted before it is printed: a reader who has the line sees it counted
            print(line, flush=True)
    except KeyboardInterrupt:
        raise Interrupted(f"after {printed} goal{'s' if printed != 1 else ''}; "
                          f"{'their lines were' if printed != 1 else 'its line was'} printed") from None
    return status


def _plan_line(goal: str, fmt: str, services: Services, verbose: bool) -> tuple[str, int]:
    """One goal of a goals file: its output line (the plan, or the error, so the output still
    lines up with the input) and the exit status it earns."""
    try:
        plan = plan_logged(lambda: plan_for_goal(services, goal), verbose=verbose)
    except PlanStudioError as exc:
        print(f"plan-studio: {goal!r}: {_one_line(exc)}", file=sys.stderr)
        return json.dumps({"goal": goal, "error": str(exc)}, ensure_ascii=False, separators=(",", ":")), _EXIT_ERROR
    _note_reading(plan, goal)
    return _compact(_exported(plan, fmt, services, goal)), 0


def _note_reading(plan: Plan, goal: str | None) -> None:
    """How the goal was read (filters NOT applied, words read as others, words not used), a
    line each on stderr; stdout stays the plan."""
    for _kind, notice in planner_notices(plan):
        print(f"note: {f'{goal!r}: ' if goal is not None else ''}{_one_line(notice)}", file=sys.stderr)


def _load(args: argparse.Namespace, services: Services, out: TextIO) -> tuple[Plan, str] | None:
    """The plan in ``args.file`` and its format, or None once ``out`` has been told why the
    file is not a plan (a broken plan is exit status 1, like an invalid one)."""
    try:
        text = _read(args.file)
    except NotText as exc:
        print(_one_line(exc), file=out)
        return None
    try:
        return detect_and_load(args.file, text, args.format, services.registry)
    except PlanError as exc:
        print(f"{args.file}: {_one_line(exc)}", file=out)
        return None


def _cmd_validate(args: argparse.Namespace, services: Services) -> int:
    loaded = _load(args, services, sys.stdout)
    if loaded is None:
        return _EXIT_FAILED
    plan, _fmt = loaded
    problems = services.validator.validate(plan)
    for problem in problems:
        print(f"{problem.severity}: {_one_line(problem)}")
    if any(p.severity == "error" for p in problems):
        return _EXIT_FAILED
    print("valid")
    return 0


def _step_line(plan: Plan, state: StepRun) -> str:
    line = _step_outcome(plan, state)
    return f"{line} [{_one_line(state.retried_note)}]" if state.retried_note else line


def _step_outcome(plan: Plan, state: StepRun) -> str:
    label = plan.label(state.step_id)
    status = state.status.value
    if state.status == StepStatus.succeeded:
        rows = state.rows
        if rows is not None:
            return f"{label}: {status}, {len(rows)} result{'s' if len(rows) != 1 else ''}"
        return f"{label}: {status}, 1 result"
    detail = (state.error or "").removeprefix(f"{status}: ")
    return f"{label}: {status}" + (f": {_one_line(detail)}" if detail else "")


def _cmd_run(args: argparse.Namespace, services: Services) -> int:
    loaded = _load(args, services, sys.stderr)
    if loaded is None:
        return _EXIT_FAILED
    plan, _fmt = loaded
    if args.rehearse or args.pins or args.recording:
        return cmd_rehearse(args, services, plan, _step_line, _read)
    plan, limits = approved_up_front(plan, services.executor.limits) if args.approve_writes \
        else (plan, services.executor.limits)
    # The final answer is only worth making when it is printed.
    synthesizer = services.executor.synthesizer if args.answer else None
    try:
        Executor(services.registry).start(plan)  # the plan's problems come before any refusal
        check_plan(limits.rules, plan, services.registry)  # a step the policy denies: none of it runs
        if nobody_to_ask(plan, services.registry, limits):
            return _EXIT_FAILED
        run = run_recorded(services, plan, message=f"plan-studio run {args.file.name}", synthesizer=synthesizer,
                           limits=limits, decide=lambda held: approve_on_terminal(held, services.registry) > 0,
                           step_line=_step_line, interrupted=lambda p, r: Interrupted(_unfinished(p, r)))
    except PlanInvalid as exc:
        for problem in exc.problems:
            print(f"{args.file}: {problem.severity}: {_one_line(problem)}", file=sys.stderr)
        return _EXIT_FAILED
    except PolicyDenied as exc:
        print(f"{args.file}: not run: {_one_line(exc)}", file=sys.stderr)
        return _EXIT_FAILED
    print(_summary(run))
    if args.answer and run.answer:
        print()
        print(run.answer)
    return _EXIT_FAILED if run.status == "failed" else 0


def _summary(run: Run) -> str:
    return f"run {run.status}: {', '.join(f'{n} {s}' for s, n in run.counts().items())}"


def _unfinished(plan: Plan, run: Run) -> str:
    """Where an interrupted run stopped and what it had finished, for one line on stderr."""
    stopped = [plan.label(sid) for sid, state in run.steps.items()
               if state.status in CUT_OFF]
    counts = run.counts()
    finished = ", ".join(f"{n} {s}" for s, n in counts.items() if s in FINISHED)
    waiting = sum(n for s, n in counts.items() if s not in FINISHED)
    where = f"during {', '.join(stopped)}" if stopped else "between steps"
    return (f"the run stopped {where}; finished: {finished or 'none'}; "
            f"not finished: {waiting} step{'s' if waiting != 1 else ''}; carry on: plan-studio resume {run.id}")


def _cmd_replan(args: argparse.Namespace, services: Services) -> int:
    loaded = _load(args, services, sys.stderr)
    if loaded is None:
        return _EXIT_FAILED
    plan, fmt = loaded
    new_plan = replanned(services, plan, args.feedback)
    out = fmt if FORMATS[fmt].dump is not None else "native"
    print(_exported(new_plan, out, services, None))
    return 0


def _exported(plan: Plan, fmt: str, services: Services, goal: str | None) -> str:
    """The plan in ``fmt``; what the format dropped goes to stderr as one line (stdout: the plan)."""
    text, dropped = export_plan(plan, fmt, services.registry)
    if dropped:
        print(f"note: {f'{goal!r}: ' if goal is not None else ''}the {FORMATS[fmt].label} dropped: "
              f"{_one_line('; '.join(dropped))}", file=sys.stderr)
    return text


def _cmd_token(args: argparse.Namespace, services: Services) -> int:
    """The shared token (no subcommand), or agents' tokens: create, list, revoke. The command
    line is the local user, an admin."""
    from core import LOCAL_ACTOR, Role
    from ..workbench._agent_tokens import create_token, list_tokens, revoke_token
    from ..workbench._api_token import ensure_token

    command = getattr(args, "token_command", None)
    if command is None:
        print(ensure_token(services.settings.data_dir))
        return 0
    if command == "create":
        made, token = create_token(services, args.name, role=Role.parse(args.role), agent=args.agent,
                                   actor=LOCAL_ACTOR)
        print(token)
        print(f"plan-studio: token {made.name!r} for {made.agent_id} ({made.role.name}); it is shown only now",
              file=sys.stderr)
        return 0
    if command == "revoke":
        revoked = revoke_token(services, args.name, actor=LOCAL_ACTOR)
        print(f"revoked {revoked.name!r} at {revoked.revoked_at:%Y-%m-%d %H:%M:%S} UTC")
        return 0
    for t in list_tokens(services, actor=LOCAL_ACTOR):
        used = f"{t.last_used:%Y-%m-%d %H:%M}" if t.last_used else "never"
        state = f"revoked {t.revoked_at:%Y-%m-%d %H:%M}" if t.revoked_at else "active"
        print(f"{t.name}\t{t.agent_id}\t{t.role.name}\tcreated {t.created:%Y-%m-%d %H:%M}\tlast used {used}\t{state}")
    return 0


def _cmd_policy(args: argparse.Namespace, services: Services) -> int:
    """``plan-studio policy check FILE``: the rules in order, or the error with its line."""
    try:
        policy = load_policy(args.policy_path)
        check_against(policy, services.registry)
    except PolicyError as exc:
        print(f"plan-studio: error: {args.policy_path}: {_one_line(exc)}", file=sys.stderr)
        return _EXIT_ERROR
    print(f"{args.policy_path}: {len(policy.rules)} rule{'s' if len(policy.rules) != 1 else ''}, "
          "the first that matches a step decides")
    for number, rule in enumerate(policy.rules, start=1):
        when = f" when {rule.when.text}" if rule.when is not None else ""
        reason = f" ({rule.reason})" if rule.reason else ""
        print(f"{number}. {rule.name}: {rule.matches_text}{when} -> {rule.outcome_text}{reason}")
    print("otherwise: read-only steps run; any other step asks 1 approver")
    return 0


_RUNNING = {"run", "resume", "rerun", "worker"}
_COMMANDS = {"plan": _cmd_plan, "policy": _cmd_policy, "validate": _cmd_validate, "run": _cmd_run, "replan": _cmd_replan,
             "token": _cmd_token, "mcp-server": cmd_mcp_server, "audit": cmd_audit, "tools": cmd_tools, "runs": cmd_runs, "worker": cmd_worker,
             "resume": lambda args, services: cmd_resume(args, services, _step_line, _summary),
             "rerun": lambda args, services: cmd_rerun(args, services, _step_line, _summary)}


def _serve(args: argparse.Namespace) -> int:
    import streamlit.web.cli as streamlit_cli

    # The studio reads its settings from the environment, like every other start; it is told
    # which of them these options gave, so its Settings page names the option.
    given = []
    for option in ("data_dir", "today", "planner"):
        if hasattr(args, option):
            os.environ[Settings.variable(option)] = str(getattr(args, option))
            given.append(option)
    sources, servers = _tool_sources(args), _listed(args, "mcp")
    config = _mcp_config(args)
    handed = {"tools": None if sources is None else os.pathsep.join(sources),
              "mcp": None if servers is None else "\n".join(servers),
              "demo": "true" if getattr(args, "demo", False) else None,
              "refresh_tools": "true" if getattr(args, "refresh_tools", False) else None,
              "mcp_config": None if config is None else str(config),
              "allowed_origins": None if args.allowed_origins is None else " ".join(args.allowed_origins)}
    for option, value in handed.items():
        if value is not None:
            os.environ[Settings.variable(option)] = value
            given.append(option)
    os.environ[FROM_OPTIONS_VARIABLE] = ",".join(given)
    settings = _settings(args)  # a bad setting is reported here, not as a broken page
    private_folder(settings.data_dir)  # an older studio's loose folder is tightened before serving
    if settings.public_url is None:  # signed links in webhooks point at this studio (docs/links-and-webhooks.md)
        shown = "127.0.0.1" if args.host in ("0.0.0.0", "::", "") else args.host  # everywhere: here too
        os.environ[Settings.variable("public_url")] = f"http://{shown}:{args.port}"
    # The page's per-start secret (studio/api/_sign_in_guard.py): handed to the server in this
    # process's own environment (the server takes it out again), never written to a file. The
    # server prints the address to open: only it knows whether people sign in with OIDC instead.
    os.environ[START_SECRET_VARIABLE] = secrets.token_urlsafe(32)
    streamlit_cli.main(args=studio_argv(args.port, settings.allowed_origins, args.host), prog_name="plan-studio")
    return 0


def _one_line(message: object) -> str:
    return " ".join(str(message).split())


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command in ``argv`` (default: the process's arguments); return the exit status."""
    args = _parser().parse_args(argv)
    try:
        if args.command is None:
            return _serve(args)
        services = build_services(_settings(args))
        for notice in (p for p in services.tool_problems if isinstance(p, LoadNotice)):
            print(f"plan-studio: warning: {_one_line(notice)}", file=sys.stderr)
        failures = [p for p in services.tool_problems if not isinstance(p, LoadNotice)]
        if failures:
            # A plan checked or run without the tools it was asked to use would mislead.
            for problem in failures:
                print(f"plan-studio: error: {_one_line(problem)}", file=sys.stderr)
            return _EXIT_ERROR
        if services.policy_problem is not None:
            # A run under another policy than the one asked for would run what it should not.
            if args.command in _RUNNING:
                print(f"plan-studio: error: {_one_line(services.policy_problem)} (nothing runs under another "
                      "policy than the one asked for)", file=sys.stderr)
                return _EXIT_ERROR
            if args.command != "policy":
                print(f"plan-studio: warning: {_one_line(services.policy_problem)} (the default policy is used)",
                      file=sys.stderr)
        status = _COMMANDS[args.command](args, services)
    except (CliError, PlanStudioError) as exc:
        print(f"plan-studio: error: {_one_line(exc)}", file=sys.stderr)
        status = _EXIT_ERROR
    except Interrupted as exc:
        print(f"plan-studio: interrupted: {exc}", file=sys.stderr)
        status = _EXIT_INTERRUPTED
    except KeyboardInterrupt:
        print("plan-studio: interrupted", file=sys.stderr)
        status = _EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader stopped early (`| head`); Python's own advice: no message, and point
        # stdout at devnull so the final flush at exit does not complain either.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        status = _EXIT_FAILED
    except Exception as exc:  # a bug: still one line, never a traceback
        print(f"plan-studio: unexpected error: {type(exc).__name__}: {_one_line(exc)}", file=sys.stderr)
        status = _EXIT_ERROR
    return status


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
