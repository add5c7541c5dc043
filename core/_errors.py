"""Every error class of Plan Studio, split by who is at fault, and the signals beside them.

    PlanStudioError
    ├── ToolDefinitionError      a tool author's mistake, found when a tool is registered
    ├── McpServerError           an MCP server could not be started, reached or listed
    ├── PlanError                the plan text or structure is wrong (user or model at fault)
    │   ├── PlanFormatError      an import could not be parsed (names the format and place)
    │   ├── ReferenceSyntaxError a ``${steps.<id>.path}`` reference is malformed
    │   ├── PlanInvalid          the validator found problems; carries them
    │   └── EditRefused          an edit would break the plan; names the steps and fields
    ├── ToolCallError            a failure at run time, while a step runs
    │   ├── ToolArgumentsError   resolved arguments break the tool's schema
    │   ├── ReferenceResolutionError  a reference points at data the earlier step did not return
    │   ├── ToolExecutionError   the tool itself raised (or called sys.exit)
    │   │   └── RetryableError   a tool raises it for a failure worth another try (its retry policy)
    │   ├── ToolTimedOut         the tool did not answer within its timeout
    │   └── ToolResultError      the tool returned something that is not JSON
    ├── DecisionRefused          a person's decision on a waiting step cannot apply
    ├── LinkRefused              a signed link cannot be used: forged, expired, used, or what it shows changed
    ├── Forbidden                the actor lacks the role a use case needs (names both)
    ├── Unauthenticated          no one is signed in: an unknown or revoked token (names which)
    ├── PolicyError              a policy file or rule is wrong (names the line or the rule)
    ├── PolicyDenied             a rule of the policy denies a step (names the step and the rule)
    ├── DescriptionRefused       a Lab edit of a tool's words the manual cannot take
    ├── RunStillGoing            a durable run is being run by a process still alive
    ├── StepsInDoubt             writing steps were cut off mid-call: a person decides
    ├── RehearsalRefused         a rehearsal cannot start: writing steps lack a result (names them)
    ├── DatabaseGone             a durable run stopped: its database could not be reached
    ├── ReviewRequestError       a review submission is malformed (names the field)
    ├── AuditQueryError          a query of the audit is malformed (names the filter)
    ├── ReviewServiceError       the review API refused a call or could not be reached
    ├── PlannerError             a planner could not produce a valid plan
    │   ├── PlannerUnavailable   no model configured, endpoint unreachable, HTTP error, timeout
    │   ├── ReplyCut             the model's reply stopped at its length limit; carries the text
    │   └── RepairLimitReached   the model kept returning invalid plans; carries the last problems
    └── StorageError             the plan store could not read or write
        ├── NotFound             no plan, version or run with that id
        ├── NameTaken            an agent token of that name exists already
        ├── VersionConflict      a newer version was saved since the one a save started from
        ├── ExperimentConflict   a newer version of a Lab experiment was saved meanwhile
        └── ReviewDecided        the review was already approved or rejected

Beside the tree, the command line's own errors, and signals caught inside Plan Studio that no
user sees as they are (each drawn under the class it extends)::

    Exception
    ├── CliError                 a problem the user of the command line can fix: one line, exit 2
    │   └── NotText              a file that is not UTF-8 text
    ├── Interrupted              Ctrl-C stopped a command; says what had finished
    └── PatternNotChecked        a pattern could not be matched in bounded time (the check says so)
    BaseException
    └── HandedOver               a run's thread whose call was given up leaves through every handler
    KeyboardInterrupt
    └── UserInterrupt            Ctrl-C while a tool ran on the main thread
    sqlite3.OperationalError
    └── HeldByAnotherWriter      another program held SQLite's write lock past the busy timeout

Only a class private to one module (its name starts with ``_``) and never raised past it may
live elsewhere (tests/unit/test_error_tree.py checks both rules).
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from typing import Any, Sequence



class PlanStudioError(Exception):
    """Base class of every error raised by Plan Studio on purpose."""


class ToolDefinitionError(PlanStudioError):
    """A tool function cannot be turned into a tool: the author must fix it."""


class McpServerError(PlanStudioError):
    """An MCP server could not be started, reached or listed (its tools are not loaded)."""


class PlanError(PlanStudioError):
    """The plan itself is wrong."""


class PlanFormatError(PlanError):
    """Text could not be read as a plan in the given format."""

    def __init__(self, fmt: str, message: str) -> None:
        self.format = fmt
        super().__init__(f"{fmt}: {message}")


class ReferenceSyntaxError(PlanError):
    """A ``${steps.<id>.path}`` reference is malformed (or a ``${step[N]}`` one names no step)."""


class PlanInvalid(PlanError):
    """The validator found problems; ``problems`` lists them by step and field."""

    def __init__(self, problems: Sequence[Any]) -> None:  # core.Problem; _validation imports this module
        self.problems = list(problems)
        super().__init__("; ".join(str(p) for p in self.problems) or "plan is invalid")


class EditRefused(PlanError):
    """An edit was refused because it would break the plan (a dependency cycle, a step that
    others need, a reference to a path the tool cannot return). ``step_ids`` and ``fields``
    say where, for the editor to mark; the message says it in words."""

    def __init__(self, message: str, *, step_ids: Sequence[str] = (), fields: Sequence[str] = ()) -> None:
        self.step_ids = list(step_ids)
        self.fields = list(fields)
        super().__init__(message)


class ToolCallError(PlanStudioError):
    """A step failed while running."""


class ToolArgumentsError(ToolCallError):
    """The resolved arguments do not fit the tool's parameter schema."""


class ReferenceResolutionError(ToolCallError):
    """A reference asked for data that the earlier step's result does not hold."""


class ToolExecutionError(ToolCallError):
    """The tool function raised an exception."""


class RetryableError(ToolExecutionError):
    """Raise it from a tool for a failure worth trying again (a rate limit, a service briefly
    away): the step's retry policy (``core.RetryPolicy``) calls the tool again after a pause."""


class ToolTimedOut(ToolCallError):
    """The tool did not answer within its timeout; its call was cancelled or abandoned."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        super().__init__(f"timed out after {seconds:g} s")


class ToolResultError(ToolCallError):
    """The tool ran, but its result cannot be JSON; the message names the part that is not."""


class DecisionRefused(PlanStudioError):
    """A decision that cannot apply. ``why`` says which kind, for an interface to answer with:
    ``unknown`` (no such step), ``not_waiting`` (decided, or no longer waiting), ``stale`` (what
    was shown changed), ``replayed`` (this approver decided already), ``unnamed`` (no hash of
    what was shown), ``arguments`` (an edit the tool's schema refuses; ``field`` names it)."""

    def __init__(self, message: str, *, step_ids: list[str] | None = None, why: str = "",
                 field: str = "") -> None:
        self.step_ids = step_ids or []
        self.why = why
        self.field = field
        super().__init__(message)


class LinkRefused(PlanStudioError):
    """A signed link (``studio.workbench._links``) that cannot be used. ``why`` names which:
    ``forged`` (the signature does not match), ``expired``, ``used`` (single use, already
    used), ``changed`` (what it would decide is not what was signed) or ``gone`` (nothing waits)."""

    def __init__(self, message: str, *, why: str) -> None:
        super().__init__(message)
        self.why = why


class Forbidden(PlanStudioError):
    """The actor may not do this: it needs a role they do not hold (``core.access.require``)."""

    def __init__(self, message: str, *, actor: str = "", needed: str = "") -> None:
        super().__init__(message)
        self.actor = actor
        self.needed = needed


class Unauthenticated(PlanStudioError):
    """The caller is nobody the studio knows: no token, an unknown one, or a revoked one
    (``revoked`` says which: an agent is told its token was revoked, not that it is wrong)."""

    def __init__(self, message: str, *, revoked: bool = False) -> None:
        super().__init__(message)
        self.revoked = revoked


class PolicyError(PlanStudioError):
    """A policy file or one of its rules is wrong; ``line`` and ``rule`` say where when known."""

    def __init__(self, message: str, *, line: int | None = None, rule: str | None = None) -> None:
        where = f"line {line}: " if line is not None else ""
        where += f"rule {rule!r}: " if rule else ""
        super().__init__(where + message)
        self.line = line
        self.rule = rule


class PolicyDenied(PlanStudioError):
    """A rule of the policy denies steps of a plan: nothing of it may run."""

    def __init__(self, message: str, *, step_ids: Sequence[str] = (), rules: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.step_ids = list(step_ids)
        self.rules = list(rules)


class DescriptionRefused(PlanStudioError):
    """Edited words the manual cannot take; ``problems`` (``core.lab.EditProblem``) names each
    tool and field."""

    def __init__(self, problems: Sequence[Any]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(map(str, problems)))


class RunStillGoing(PlanStudioError):
    """The run is being run by a process that is still alive."""


class RehearsalRefused(PlanStudioError):
    """A rehearsal cannot start (or go on): steps of tools that may write have no recorded or
    pinned result (``steps`` names them), a pin names no step, or a real tool would be reached."""

    def __init__(self, message: str, steps: Sequence[str] = ()) -> None:
        self.steps = list(steps)
        super().__init__(message)


class StepsInDoubt(PlanStudioError):
    """Steps of writing tools were cut off mid-call: the user decides before the run goes on."""

    def __init__(self, run_id: str, steps: list[str], labels: list[str]) -> None:
        self.run_id, self.steps = run_id, steps
        super().__init__(f"run {run_id!r}: {', '.join(labels)} may have had {'its' if len(steps) == 1 else 'their'} "
                         "effect before the run stopped; run again or mark failed")


class DatabaseGone(PlanStudioError):
    """A durable run stopped because its database could not be reached."""


class ReviewRequestError(PlanStudioError):
    """A plan submitted for review cannot be taken: ``field`` names what is wrong."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}")


class AuditQueryError(PlanStudioError):
    """A query of the audit cannot be read: ``field`` names the filter that is wrong."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}")


class ReviewServiceError(PlanStudioError):
    """The review API answered with an error (``status``: its HTTP status; 0 when it could
    not be reached)."""

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        super().__init__(message)


class PlannerError(PlanStudioError):
    """A planner could not produce a plan."""


class PlannerUnavailable(PlannerError):
    """The planner's model cannot be reached or is not configured."""


class ReplyCut(PlannerError):
    """The model stopped writing at its length limit (``finish_reason: "length"``): what it
    wrote is the start of an answer, and even when a plan can be read from it, steps may be
    missing from the end."""

    def __init__(self, endpoint: str, text: str) -> None:
        self.text = text
        super().__init__(f"the model at {endpoint} stopped at its length limit after "
                         f"{len(text):,} characters, so its reply is incomplete")


class RepairLimitReached(PlannerError):
    """The model's replies stayed invalid after every allowed retry."""

    # A model can answer with thousands of problems; the message shows the first ones.
    PROBLEMS_SHOWN = 20

    def __init__(self, attempts: int, problems: Sequence[str]) -> None:
        self.attempts = attempts
        self.problems = list(problems)
        listed = "\n".join(f"- {_clip(p)}" for p in self.problems[: self.PROBLEMS_SHOWN])
        more = len(self.problems) - self.PROBLEMS_SHOWN
        if more > 0:
            listed += f"\n- … and {more:,} more"
        super().__init__(f"no valid plan after {attempts} attempts; last problems:\n{listed}")


def _clip(text: str, limit: int = 500) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class StorageError(PlanStudioError):
    """The plan store could not read or write."""


class NotFound(StorageError):
    """No record with that id."""


class NameTaken(StorageError):
    """A record must have a name of its own (an agent token): that one is taken."""


class VersionConflict(StorageError):
    """A save expected ``expected`` to be the plan's latest version, but ``latest`` is: someone
    saved in between. Carries when the latest was saved and its message, to tell the user."""

    def __init__(self, plan_id: str, *, expected: int, latest: int, saved_at: dt.datetime | None = None,
                 message: str = "") -> None:
        self.plan_id = plan_id
        self.expected = expected
        self.latest = latest
        self.saved_at = saved_at
        self.message = message
        super().__init__(f"plan {plan_id!r} has a newer version {latest} than version {expected}, "
                         "which this save started from")


class ExperimentConflict(StorageError):
    """A save from version ``expected`` of an experiment whose latest is ``latest``."""

    def __init__(self, experiment_id: str, name: str, *, expected: int, latest: int, saved_at: dt.datetime) -> None:
        self.experiment_id = experiment_id
        self.expected = expected
        self.latest = latest
        self.saved_at = saved_at
        super().__init__(f"experiment {name!r} was saved as version {latest} (at {saved_at:%H:%M:%S} UTC) "
                         f"since this one opened version {expected}")


class ReviewDecided(StorageError):
    """A decision for a review someone already approved or rejected; ``status`` says which."""

    def __init__(self, review_id: str, status: str) -> None:
        self.review_id = review_id
        self.status = status
        super().__init__(f"review {review_id!r} was already {status}")


class CliError(Exception):
    """A problem the user can fix; printed as one line, exit status 2."""


class NotText(CliError):
    """A file that is not UTF-8 text: a usage error for a goals file, not a plan for a plan file."""


class Interrupted(Exception):
    """Ctrl-C stopped a command; the message says what had finished."""


class PatternNotChecked(Exception):
    """The text could not be matched against ``pattern`` in bounded time: ``reason`` says why."""

    def __init__(self, pattern: str, reason: str) -> None:
        self.pattern = pattern
        self.reason = reason
        super().__init__(f"pattern {pattern!r} not checked: {reason}")


class HandedOver(BaseException):
    """Raised on a thread whose call was given up, once the call returns: the run is another
    thread's now. A ``BaseException``, as the thread must leave through every ``except Exception``."""


class UserInterrupt(KeyboardInterrupt):
    """The user pressed Ctrl-C while a tool ran on the main thread."""


class HeldByAnotherWriter(sqlite3.OperationalError):
    """The SQLite file's write lock stayed with another program past the busy timeout (raised
    in place of SQLite's own "database is locked", which DBOS would retry without end)."""
