"""Plan formats: read a plan from text and write it back.

Each format registers a ``PlanFormat``; the UI and the CLI offer whatever is registered.
"""

from __future__ import annotations

from .._errors import PlanError, PlanFormatError
from .._limits import MAX_PLAN_TEXT, lone_surrogate
from .._plan import Plan
from .._registry import ToolRegistry
from ._base import PlanFormat
from ._mermaid import dump_mermaid
from ._native import dump_native, load_native
from ._seed import dump_seed, load_seed, plan_from_seed, plan_to_seed
from ._semantic_kernel import dump_sk, load_sk, sk_plugin_name, unset_variable_uses
from ._teams import SAY_TOOL, dump_teams, load_teams, plan_from_teams, plan_to_teams

__all__ = ["PlanFormat", "FORMATS", "register_format", "load_plan", "dump_plan",
           "plan_from_seed", "plan_to_seed", "plan_from_teams", "plan_to_teams",
           "sk_plugin_name", "unset_variable_uses", "SAY_TOOL"]

FORMATS: dict[str, PlanFormat] = {}


def register_format(fmt: PlanFormat) -> PlanFormat:
    FORMATS[fmt.name] = fmt
    return fmt


def _get(name: str) -> PlanFormat:
    try:
        return FORMATS[name]
    except KeyError:
        raise PlanFormatError(name, f"unknown format; known: {', '.join(FORMATS)}") from None


def load_plan(text: str, fmt: str = "native", registry: ToolRegistry | None = None) -> Plan:
    f = _get(fmt)
    if f.load is None:
        raise PlanFormatError(fmt, "this format can be exported but not imported")
    if not text.strip():
        raise PlanFormatError(fmt, "the text is empty")
    if len(text) > MAX_PLAN_TEXT:
        raise PlanFormatError(fmt, f"the text is {len(text):,} characters long; a plan's text "
                                   f"may be at most {MAX_PLAN_TEXT:,}")
    at = lone_surrogate(text)
    if at is not None:
        line = text.count("\n", 0, at) + 1
        column = at - (text.rfind("\n", 0, at) + 1) + 1
        raise PlanFormatError(fmt, f"line {line}, column {column}: a lone surrogate "
                                   f"({ascii(text[at])}) is not text UTF-8 can encode")
    try:
        return f.load(text, registry)
    except PlanFormatError:
        raise
    except PlanError as exc:  # the plan read, but breaks a bound (core._limits): still unreadable
        raise PlanFormatError(fmt, str(exc)) from exc


def dump_plan(plan: Plan, fmt: str = "native", registry: ToolRegistry | None = None) -> str:
    f = _get(fmt)
    if f.dump is None:
        raise PlanFormatError(fmt, "this format can be imported but not exported")
    return f.dump(plan, registry)


register_format(PlanFormat("native", "Plan Studio JSON", ".json", load_native, dump_native))
register_format(PlanFormat("seed", "Planner Agent JSON (seed)", ".json", load_seed, dump_seed))
register_format(PlanFormat("sk", "Semantic Kernel XML plan", ".xml", load_sk, dump_sk))
register_format(PlanFormat("teams", "Teams AI DO/SAY plan", ".json", load_teams, dump_teams))
register_format(PlanFormat("mermaid", "Mermaid flowchart (export only)", ".mmd", None, dump_mermaid))
