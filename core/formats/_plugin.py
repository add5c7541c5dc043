"""The built-in plan formats, given through the same hook as a third party's (``core.hooks``)."""

from __future__ import annotations

from ..hooks import hookimpl
from ._base import PlanFormat
from ._llmcompiler import dump_llmcompiler, load_llmcompiler
from ._mermaid import dump_mermaid, mermaid_drops
from ._native import dump_native, load_native
from ._seed import dump_seed, load_seed
from ._semantic_kernel import dump_sk, load_sk, unset_variable_problems
from ._teams import dump_teams, load_teams

BUILTIN_FORMATS = (
    PlanFormat("native", "Plan Studio JSON", ".json", load_native, dump_native),
    PlanFormat("seed", "Planner Agent JSON (seed)", ".json", load_seed, dump_seed),
    PlanFormat("sk", "Semantic Kernel XML plan", ".xml", load_sk, dump_sk, checks=(unset_variable_problems,)),
    PlanFormat("teams", "Teams AI DO/SAY plan", ".json", load_teams, dump_teams),
    PlanFormat("llmcompiler", "LLMCompiler plan", ".txt", load_llmcompiler, dump_llmcompiler, holds_metadata=False),
    PlanFormat("mermaid", "Mermaid flowchart (export only)", ".mmd", None, dump_mermaid, drops=mermaid_drops),
)


@hookimpl
def plan_formats() -> list[PlanFormat]:
    return list(BUILTIN_FORMATS)
