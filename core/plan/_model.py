"""The plan model: what a planner proposes and the user reviews, edits and runs.

This is the domain model; storage keeps it as JSON in its own tables (``core.storage``),
and each plan format (``core.formats``) reads and writes it.

Step ids are stable across edits, so results, locks and UI state follow a step when
others are added, removed or moved. Inside core a step has one address, its id:
``depends_on`` holds ids, and a reference in params names its step by id,
``${steps.<id>.path}`` (``core.plan._references``), and implies a dependency. Adding, deleting or
moving steps therefore changes no other step, and nothing renumbers references.

Positions exist only at the boundaries that speak them (the seed JSON, Semantic Kernel,
Teams, the model's prompt and reply: ``core.plan._positions``). A plan read with positional
references (``${step[N].path}``: stored by a release before ids, sent by an agent, pasted
from an example) has them turned into ids by ``_ids_for_positions`` below, by the order of
its steps as read, so it keeps its meaning (``docs/decisions/0002-step-references-by-id.md``).

What only a plan format needs lives in ``Step.format_data``, one namespace per format (``"sk"``
for Semantic Kernel's variable name), not in fields of the step: the core then knows no
format, and a format's data still travels with its step through edits, native JSON and the
store (a side table kept by the format would be lost on every save and reload). Each format
reads its own namespace and nothing else does; ``result_key`` stays a core field, as the
executor gathers the run's final result by it (SK's ``appendToResult`` maps onto it).
Steps saved before this layout carry the format's field on the step itself; they are read
into the namespace (``_MOVED_STEP_FIELDS``), so every stored plan, draft and review still
loads.
"""

from __future__ import annotations

import datetime as dt
import operator
import uuid
from functools import cached_property
from typing import Any, Iterator, Mapping

from typing_extensions import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .._errors import ReferenceSyntaxError
from .._limits import check_plan
from . import _identity
from ._positions import has_positions, ids_for_positions
from ._references import Reference, find_references

__all__ = ["Plan", "Step", "PlanMetadata", "new_step_id"]

_step_id = operator.attrgetter("id")

# Step fields that older releases wrote on the step and that now belong to a format: field →
# the format's namespace in ``format_data``. A record of old saved data, read without any
# format loaded (the store reads plans on its own), so it lives here and not in the format.
_MOVED_STEP_FIELDS = {"output_var": "sk"}


def new_step_id() -> str:
    return "s_" + uuid.uuid4().hex[:8]


class Step(BaseModel):
    """One tool call in a plan."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(default_factory=new_step_id, description="Stable id; survives edits and reordering.")
    tool: str = Field(description="Name of a tool in the registry.")
    params: dict[str, Any] = Field(default_factory=dict)
    depends_on: list[str] = Field(default_factory=list, description="Ids of steps that must finish first.")
    parallel: bool = Field(False, description="May run alongside other steps marked parallel.")
    note: str | None = None
    locked: bool = Field(False, description="A re-plan keeps this step as it is.")
    ask_first: bool = Field(False, description="The run waits for a person to approve this step before it runs.")
    result_key: str | None = Field(None, description="Appends the output to the run's final result under this key.")
    format_data: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="What a plan format keeps about the step, by format name.")

    @model_validator(mode="before")
    @classmethod
    def _read_moved_fields(cls, data: Any) -> Any:
        if not isinstance(data, dict) or not any(name in data for name in _MOVED_STEP_FIELDS):
            return data
        data = dict(data)
        moved = data.get("format_data", {})
        if not isinstance(moved, dict):
            return data  # the model says what is wrong with it
        moved = {fmt: dict(v) if isinstance(v, dict) else v for fmt, v in moved.items()}
        for name, fmt in _MOVED_STEP_FIELDS.items():
            value = data.pop(name, None)
            if value is None:
                continue
            if not isinstance(value, str):
                # Refused, naming the field, as when it was a ``str | None`` field of the step.
                raise ValueError(f"{name}: Input should be a valid string")
            namespace = moved.setdefault(fmt, {})
            if isinstance(namespace, dict):
                namespace.setdefault(name, value)  # format_data, where both are given, wins
        data["format_data"] = moved
        return data

    def references(self) -> list[Reference]:
        return find_references(self.params)

    def readable_references(self) -> Iterator[tuple[str, Reference]]:
        """(param name, reference) for each reference that parses; a malformed one is the
        validator's to report, and must not stop a plan being edited from having a graph."""
        for name, value in self.params.items():
            try:
                found = find_references(value)
            except ReferenceSyntaxError:
                continue
            for ref in found:
                yield name, ref


class PlanMetadata(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    planner: str = "manual"
    created_at: dt.datetime = Field(default_factory=lambda: dt.datetime.now(dt.timezone.utc).replace(microsecond=0))
    today: dt.date = Field(default_factory=dt.date.today, description="The date that relative phrases were resolved against.")


class Plan(BaseModel):
    """A goal and the ordered steps that achieve it: a value, never changed once made.

    ``frozen`` refuses assigning a field; the lists and dicts inside (``steps``, a step's
    ``params``, ``depends_on``, ``format_data``) are not copied into frozen containers, so the
    JSON, the types every caller reads and the comparisons stay as they were, and no code
    changes them in place either: every edit, planner and format builds new ones
    (``docs/decisions/0003-the-plan-is-a-value.md``; ``tests/unit/test_plan_value.py`` checks
    that none changes the plan it is given).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    goal: str = ""
    steps: list[Step] = Field(default_factory=list)
    metadata: PlanMetadata = Field(default_factory=PlanMetadata)

    @model_validator(mode="after")
    def _within_limits(self) -> "Plan":
        # Raised as it is (pydantic passes on what is not a ValueError): a PlanError naming
        # the step and field, from every way a plan is made.
        check_plan(self)
        return self

    @model_validator(mode="after")
    def _unique_ids(self) -> "Plan":
        seen: set[str] = set()
        for n, step in enumerate(self.steps):
            if step.id in seen:
                raise ValueError(f"step {n}: id {step.id!r} is used by an earlier step")
            seen.add(step.id)
        return self

    @model_validator(mode="after")
    def _ids_for_positions(self) -> "Plan":
        # The one place a position becomes an id: every way of reading a plan (store, JSON
        # panel, review API, formats, tests) passes here. The steps are new ones put in the
        # list pydantic has just built for this plan, before anyone holds the plan.
        ids = [s.id for s in self.steps]
        for n, step in enumerate(self.steps):
            if has_positions(step.params):
                self.steps[n] = step.model_copy(update={"params": ids_for_positions(step.params, ids)})
        return self

    @cached_property
    def identity(self) -> _identity.PlanIdentity:
        """What runs and the review notes, hashed (``core.plan._identity``); worked out once,
        on first use, and kept on the plan: a value's content does not change."""
        return _identity._identity(self)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        # pydantic copies the instance's __dict__, and the cached identity with it: a copy with
        # changes is another plan, and a deep copy is made to be changed (tests do), so a copy
        # works its identity out afresh.
        copied = super().model_copy(update=update, deep=deep)
        copied.__dict__.pop("identity", None)
        copied.__dict__.pop("_places", None)
        return copied

    # -- lookups ---------------------------------------------------------------------------
    def index_of(self, step_id: str) -> int:
        # Looked up in a dict kept on the plan: labels, diffs and tooltips look steps up one by
        # one, and a search of the list made drawing a long plan cost its square. A hit is checked
        # against the list and a miss looks again, so a step list changed in place (a deep copy a
        # test changes) is never answered from a stale dict.
        places = self.__dict__.get("_places")
        at = places.get(step_id) if places is not None else None
        if at is not None and at < len(self.steps) and self.steps[at].id == step_id:
            return at
        places = {step.id: n for n, step in enumerate(self.steps)}
        self.__dict__["_places"] = places
        try:
            return places[step_id]
        except KeyError:
            raise KeyError(step_id) from None

    def step(self, step_id: str) -> Step:
        return self.steps[self.index_of(step_id)]

    def __iter__(self) -> Iterator[Step]:  # type: ignore[override]
        return iter(self.steps)

    def __len__(self) -> int:
        return len(self.steps)

    def dependencies_of(self, step_id: str) -> list[str]:
        """Explicit dependencies plus the steps its references point at, in plan order.

        References to steps that do not exist, and malformed ones, are left to the validator.
        """
        return self._dependencies(self.step(step_id), {s.id: n for n, s in enumerate(self.steps)})

    def _dependencies(self, step: Step, order: dict[str, int]) -> list[str]:
        # The references read as ``readable_references`` reads them, without its generator: a
        # run asks this of every step twice before the first starts (cycles, scheduling).
        ids = set(step.depends_on)
        for value in step.params.values():
            try:
                found = find_references(value)
            except ReferenceSyntaxError:
                continue
            for ref in found:
                if ref.step in order:
                    ids.add(ref.step)
        ids.discard(step.id)
        if len(ids) < 2:
            return list(ids)
        return sorted(ids, key=lambda i: order.get(i, len(order)))

    def edges(self) -> list[tuple[str, str]]:
        """(from, to) pairs: ``to`` needs ``from``; only between steps that exist."""
        order = {s.id: n for n, s in enumerate(self.steps)}
        return [(dep, s.id) for s in self.steps for dep in self._dependencies(s, order) if dep in order]

    def label(self, step_id: str) -> str:
        """How the validator's and the editor's messages name a step: its place in the list the
        user sees, counted from 0, and its tool. A change report, which moves steps, names them
        by ``step_label`` instead."""
        n = self.index_of(step_id)
        return f"step {n} ({self.steps[n].tool})"
