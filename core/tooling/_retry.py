"""How long a step may run and when it is tried again: policies kept as data, not code.

A ``RetryPolicy`` is a plain value (it dumps to JSON, a setting or a store can hold it): how
many calls a step gets, the pause before each next one, and which failures earn another:

- ``retryable``: the tool raised ``RetryableError`` (it knows the failure is passing);
- ``timeout``: the tool did not answer within its timeout (off by default: the call may have
  had its effect before it was abandoned);
- ``error``: any other failure of the tool itself (off by default, for the same reason).

Bad arguments and references never earn another call: the same call would fail the same way.

A tool's author declares its policy with the tool (``ToolRegistry.register(retry=...)``), which is
why it lives here; what a run is held to as a whole, the user's overrides included, is
``core.run._policy.RunLimits``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["FailureKind", "RetryPolicy"]

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
