"""Plan formats: read a plan from text and write it back.

A plugin gives formats through the ``plan_formats`` hook (``core.hooks``); ``FORMATS`` reads
them by name, the UI and the CLI offer whatever it holds, and the validator runs the checks
each brings. The built-in formats come through the same hook (``_plugin``). ``register_format``
is the short way for one format: it registers a plugin giving it.
"""

from __future__ import annotations

import json
from pathlib import PurePath
import re
from typing import Callable, Iterator, Mapping, NamedTuple

from .._errors import PlanError, PlanFormatError
from .._limits import MAX_PLAN_TEXT, lone_surrogate
from ..plan._model import Plan
from ..tooling._registry import ToolRegistry
from .. import hooks
from ._base import PlanFormat
from ._fidelity import dropped_in_round_trip
from ._seed import plan_from_seed, plan_to_seed
from ._semantic_kernel import sk_plugin_name, unset_variable_uses
from ._teams import SAY_TOOL, plan_from_teams, plan_to_teams
from ._teams_text import has_text_commands

__all__ = ["PlanFormat", "FORMATS", "register_format", "unregister_format", "load_plan", "dump_plan",
           "plan_from_seed", "plan_to_seed", "plan_from_teams", "plan_to_teams",
           "sk_plugin_name", "unset_variable_uses", "SAY_TOOL", "detect_and_load", "detect_format", "Export", "export_plan"]


class _Formats(Mapping[str, PlanFormat]):
    """The formats the plugins give, by name (read through, never a copy to keep in step)."""

    def __getitem__(self, name: str) -> PlanFormat:
        return hooks.plan_formats()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(hooks.plan_formats())

    def __len__(self) -> int:
        return len(hooks.plan_formats())

    def __repr__(self) -> str:
        return f"FORMATS({', '.join(self)})"


FORMATS: Mapping[str, PlanFormat] = _Formats()


class _OneFormat:
    def __init__(self, fmt: PlanFormat) -> None:
        self.fmt = fmt

    @hooks.hookimpl
    def plan_formats(self) -> list[PlanFormat]:
        return [self.fmt]


def register_format(fmt: PlanFormat) -> PlanFormat:
    """Add ``fmt`` (replacing a format of its name) as a plugin named ``format:<name>``."""
    unregister_format(fmt.name)
    hooks.register(_OneFormat(fmt), f"format:{fmt.name}")
    return fmt


def unregister_format(name: str) -> None:
    """Remove a format ``register_format`` added."""
    hooks.unregister(f"format:{name}")


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


class Export(NamedTuple):
    """A plan written in a format, and what the text does not hold, one notice each."""

    text: str
    dropped: list[str]


def export_plan(plan: Plan, fmt: str = "native", registry: ToolRegistry | None = None) -> Export:
    """``dump_plan``, and exactly what the text dropped: for a format that reads too, what the
    text read back lacks (``_fidelity``); for an export-only one, its own list."""
    text = dump_plan(plan, fmt, registry)
    f = FORMATS[fmt]
    if f.load is None:
        return Export(text, f.drops(plan, registry) if f.drops is not None else [])
    try:
        back = load_plan(text, fmt, registry)
    except PlanError as exc:  # a format that cannot read its own text has lost the plan
        return Export(text, [f"the whole plan: the text does not read back ({exc})"])
    return Export(text, dropped_in_round_trip(plan, back, holds_metadata=f.holds_metadata))



_SK_SIGN = re.compile(r"<plan[\s/>]")
_LLMC_SIGN = re.compile(r"^\s*+\d{1,6}\.\s*+[A-Za-z_][\w.\-]*+\(", re.M)


def _readable() -> list[str]:
    return [name for name, fmt in FORMATS.items() if fmt.load is not None]


def detect_format(text: str) -> str | None:
    """The importable format ``text`` looks like, by its content alone, if any: a JSON plan by
    its fields (a Teams plan has commands; a native one a goal or step ids, checked after
    commands since Teams exports carry a goal too; else seed), a ``<plan>`` element for SK,
    numbered calls for LLMCompiler, DO/SAY commands for Teams' text syntax."""
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):  # the loaders say what is wrong with it
            return None
        if isinstance(data, list):
            return "seed" if all(isinstance(s, dict) and "tool" in s for s in data) else None
        if not isinstance(data, dict):
            return None
        if "commands" in data:
            return "teams"
        steps = data.get("steps")
        if "goal" in data or (isinstance(steps, list) and any(isinstance(s, dict) and "id" in s for s in steps)):
            return "native"
        return "seed" if isinstance(steps, list) else None
    for name, looks in _CONTENT_SIGNS:
        if name in FORMATS and FORMATS[name].load is not None and looks(text):
            return name
    return None


_CONTENT_SIGNS: list[tuple[str, Callable[[str], bool]]] = [
    ("sk", lambda text: _SK_SIGN.search(text) is not None),
    ("llmcompiler", lambda text: _LLMC_SIGN.search(text) is not None),
    ("teams", has_text_commands),
]


def detect_and_load(path: PurePath, text: str, fmt: str | None,
                    registry: ToolRegistry | None = None) -> tuple[Plan, str]:
    """The plan in ``text`` and the format it was read as (the CLI's files, the review API's
    submissions, the Plan JSON panel).

    Without ``fmt``: the format the content looks like is tried first, then those whose
    suffix matches ``path``, then the rest; native goes last unless the content looks native
    (it reads loosely). The first that reads it wins, and if none does, the first one's error
    is raised, so a broken file is reported in the terms of what it was meant to be.
    """
    if fmt is not None:
        return load_plan(text, fmt, registry), fmt
    readable = _readable()
    likely = detect_format(text)
    by_suffix = [n for n in readable if FORMATS[n].suffix == path.suffix.lower()]
    candidates = list(dict.fromkeys([*([likely] if likely else []), *by_suffix, *readable]))
    if likely != "native":
        candidates.remove("native")
        candidates.append("native")
    first_error: PlanFormatError | None = None
    for name in candidates:
        try:
            return load_plan(text, name, registry), name
        except PlanFormatError as exc:
            first_error = first_error or exc
    assert first_error is not None  # there is always at least one importable format
    raise first_error
