"""The model client: one place that talks to an OpenAI-compatible chat endpoint.

Planners, the synthesizer and the writer tools all go through ``ModelClient``, so every
endpoint failure reaches the user as a ``PlannerUnavailable`` with a plain message, and the
API key is read from the environment only when the SDK client is made, never stored by us.
"""

from ._client import NOT_CONFIGURED, Message, ModelClient

__all__ = ["ModelClient", "Message", "NOT_CONFIGURED"]
