"""How long a step may run and when it is tried again: policies kept as data, not code.

A ``RetryPolicy`` is a plain value (it dumps to JSON, a setting or a store can hold it): how
many calls a step gets, the pause before each next one, and which failures earn another:

- ``retryable``: the tool raised ``RetryableError`` (it knows the failure is passing);
- ``timeout``: the tool did not answer within its timeout (off by default: the call may have
  had its effect before it was abandoned);
- ``error``: any other failure of the tool itself (off by default, for the same reason).

Bad arguments and references never earn another call: the same call would fail the same way.

``RunLimits`` gathers what a run is held to: steps at once, each tool's timeout (a default,
overridden per tool by the tool's author or, above that, by the user's settings) and the
retry policy (the same for overrides).
"""

from __future__ import annotations

from typing import Literal, Mapping

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["FailureKind", "RetryPolicy", "RunLimits"]

FailureKind = Literal["retryable", "timeout", "error"]


class RetryPolicy(BaseModel):
    """When a failed call of a step's tool is made again, and after how long."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_attempts: int = Field(3, ge=1, le=20, description="Calls in all, the first included")
    backoff_seconds: float = Field(0.5, ge=0, le=3600, description="Pause before the second call")
    backoff_factor: float = Field(2.0, ge=1, le=10, description="Each next pause is this many times longer")
    max_backoff_seconds: float = Field(30.0, ge=0, le=3600, description="No pause is longer")
    retry_on: frozenset[FailureKind] = Field(frozenset({"retryable"}), description="Failures that earn another call")

    def retries(self, kind: FailureKind, attempt: int) -> bool:
        """Whether call number ``attempt`` (1 for the first), failed as ``kind``, gets another."""
        return attempt < self.max_attempts and kind in self.retry_on

    def pause(self, attempt: int) -> float:
        """Seconds to wait after call number ``attempt`` failed, before the next."""
        return min(self.max_backoff_seconds, self.backoff_seconds * self.backoff_factor ** (attempt - 1))


NO_RETRY = RetryPolicy(max_attempts=1)


class RunLimits(BaseModel):
    """What a run is held to; ``core.Settings`` gives the user's (``RunLimits.from_settings``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_parallel: int = Field(64, ge=1, le=1024, description="Steps running at once")
    tool_timeout: float = Field(300.0, gt=0, description="Seconds a tool may run unless it says otherwise")
    tool_timeouts: Mapping[str, float] = Field(default_factory=dict, description="Seconds per tool name")
    retry: RetryPolicy = RetryPolicy()
    retries: Mapping[str, RetryPolicy] = Field(default_factory=dict, description="Retry policy per tool name")
    # Off here (tests, previews, Python callers run what they are given); the studio's setting
    # ``approve_writes`` turns it on.
    approve_writes: bool = Field(False, description="Steps of tools that may write wait for a person")

    @classmethod
    def from_settings(cls, settings: object) -> "RunLimits":
        """The limits a ``core.Settings`` holds (``max_parallel``, ``tool_timeout``, ...)."""
        # Not ``approve_writes``: who is there to approve is the front end's to say (the studio
        # and the CLI set it from the setting); a run built from settings alone does not pause.
        return cls(**{name: getattr(settings, name) for name in cls.model_fields
                      if name != "approve_writes" and hasattr(settings, name)})

    def timeout_for(self, tool: str, declared: float | None = None) -> float:
        """The user's setting for ``tool``, else what its author declared, else the default."""
        return self.tool_timeouts.get(tool) or declared or self.tool_timeout

    def retry_for(self, tool: str, declared: RetryPolicy | None = None) -> RetryPolicy:
        return self.retries.get(tool) or declared or self.retry
