"""The model client: one place that talks to an OpenAI-compatible chat endpoint.

Planners, the synthesizer and the writer tools all go through ``ModelClient``, so every
endpoint failure reaches the user as a ``PlannerUnavailable`` with a plain message, every
request has one time limit for the whole answer, the API key is read from the environment
only when the SDK client is made (never stored by us), and everything the model writes is
scrubbed of the key (``redact``) before the rest of Plan Studio sees it.
"""

from ._client import NOT_CONFIGURED, Message, ModelClient
from ._redact import StreamRedactor, redact

__all__ = ["ModelClient", "Message", "NOT_CONFIGURED", "redact", "StreamRedactor"]
