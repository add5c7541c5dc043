"""Traces: OpenTelemetry spans of plans, reviews, runs, steps, waits and decisions.

On when ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set (spans go there by OTLP/HTTP), off and free
otherwise; ``configure(processor)`` traces through any SDK span processor (a test's in-memory
exporter). The spans follow the OpenTelemetry GenAI conventions where they have a name for a
thing (``gen_ai.operation.name`` "invoke_agent", "chat", "execute_tool"; ``gen_ai.tool.name``,
``gen_ai.request.model``, ``gen_ai.usage.*``); the rest is under ``plan_studio.``. See
docs/traces.md.
"""

from ._setup import TRACER_NAME, configure, configure_from_env, endpoint, shutdown, tracer

__all__ = ["TRACER_NAME", "configure", "configure_from_env", "endpoint", "shutdown", "tracer"]
