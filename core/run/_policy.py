"""What a run is held to, per tool: steps at once, time limits, retries, approvals.

``RunLimits`` is a plain value (a setting or a store can hold it), read by the pass that drives a
run (``_run_pass``) as each step starts:

- ``max_parallel``: steps running at once (the scheduler counts the steps in flight);
- ``tool_timeout`` / ``tool_timeouts``: seconds a call may take, a default overridden per tool by
  the tool's author (``register(timeout=...)``) or, above that, by the user's settings;
- ``retry`` / ``retries``: the retry policy (``core.tooling._retry.RetryPolicy``, which a tool's
  author may declare with the tool), the same way;
- ``approve_writes``: steps the policy asks about wait for people (``_approval``), on by default
  as in every interface; off (an explicit opt-out), nothing pauses but steps a reviewer marked
  ``ask_first``;
- ``policy``: the rules that allow, ask about or deny each step (``core.policy``; None: the
  default policy, read-only steps run and any other asks), and ``agent``, who submitted the
  plan, for rules that match on the agent. A denial holds whatever ``approve_writes`` says.
"""

from __future__ import annotations

from typing import Mapping

from pydantic import BaseModel, ConfigDict, Field

from ..access import Actor
from ..policy import DEFAULT_POLICY, Policy
from ..tooling._retry import RetryPolicy

__all__ = ["RunLimits"]


class RunLimits(BaseModel):
    """What a run is held to; ``core.Settings`` gives the user's (``RunLimits.from_settings``)."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    max_parallel: int = Field(64, ge=1, le=1024, description="Steps running at once")
    tool_timeout: float = Field(300.0, gt=0, description="Seconds a tool may run unless it says otherwise")
    tool_timeouts: Mapping[str, float] = Field(default_factory=dict, description="Seconds per tool name")
    retry: RetryPolicy = RetryPolicy()
    retries: Mapping[str, RetryPolicy] = Field(default_factory=dict, description="Retry policy per tool name")
    # On, as in the studio and the CLI: a step of a tool that may write waits for a person unless
    # the caller opts out (``RunLimits(approve_writes=False)``, ``Executor(tools, approve_writes=False)``,
    # ``PLAN_STUDIO_APPROVE_WRITES=false``).
    approve_writes: bool = Field(True, description="Steps of tools that may write wait for a person")
    policy: Policy | None = Field(None, description="The rules that allow, ask about or deny steps (None: the default)")
    agent: Actor | None = Field(None, description="Who submitted the plan, for rules on the agent")

    @classmethod
    def from_settings(cls, settings: object) -> "RunLimits":
        """The limits a ``core.Settings`` holds (``max_parallel``, ``tool_timeout``, ...)."""
        return cls(**{name: getattr(settings, name) for name in cls.model_fields
                      if name not in ("policy", "agent") and hasattr(settings, name)})

    @classmethod
    def chosen(cls, limits: "RunLimits | None", *, approve_writes: bool | None = None) -> "RunLimits":
        """``limits``, else the user's settings' (a Python caller's default, as the studio's and
        the CLI's: a step that may write waits for a person), with ``approve_writes`` when given:
        the explicit opt-out of that pause (``Executor``, ``DurableRuns``)."""
        if limits is None:
            from .._settings import Settings

            limits = cls.from_settings(Settings())
        return limits if approve_writes is None else limits.model_copy(update={"approve_writes": approve_writes})

    @property
    def rules(self) -> Policy:
        """The policy in force: the one given, else the default."""
        return self.policy if self.policy is not None else DEFAULT_POLICY

    def timeout_for(self, tool: str, declared: float | None = None) -> float:
        """The user's setting for ``tool``, else what its author declared, else the default."""
        return self.tool_timeouts.get(tool) or declared or self.tool_timeout

    def retry_for(self, tool: str, declared: RetryPolicy | None = None) -> RetryPolicy:
        return self.retries.get(tool) or declared or self.retry
