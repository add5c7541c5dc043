"""Whether this process traces, and the tracer it traces with: one per process.

Tracing is off unless ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``)
is set and ``OTEL_SDK_DISABLED`` is not ``true``; then spans go to that collector by OTLP over
HTTP, batched, with ``service.name`` "plan-studio" unless ``OTEL_SERVICE_NAME`` or
``OTEL_RESOURCE_ATTRIBUTES`` says otherwise (the SDK honours the other ``OTEL_*`` variables:
headers, timeout, sampler). Off, nothing of OpenTelemetry is imported and ``tracer()`` is None:
the trace plugin's hooks return at their first line.

Our own ``TracerProvider``, never the global one: an application embedding the studio keeps
its own tracing as it is, and DBOS's (which uses the global API) is untouched. Its id generator
gives a run's spans ids made from the run's id (``_ids``), so the spans of one run, made by
several processes (the studio that decided, the worker that ran the step), land in one trace
under one root.
"""

from __future__ import annotations

import os
import threading
from typing import Any

__all__ = ["configure", "configure_from_env", "endpoint", "shutdown", "tracer", "TRACER_NAME"]

TRACER_NAME = "plan_studio"
SERVICE_NAME = "plan-studio"

_lock = threading.Lock()
_checked = False  # whether the environment was read (once, on first use)
_provider: Any = None  # the TracerProvider spans go through; None: tracing is off
_tracer: Any = None


def endpoint() -> str | None:
    """The collector traces go to, as the environment says; None: tracing is off."""
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return None
    return (os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
            or "").strip() or None


def tracer() -> Any:
    """The tracer of this process, or None when tracing is off (the environment is read once)."""
    if _checked:
        return _tracer
    configure_from_env()
    return _tracer


def configure_from_env() -> bool:
    """Set tracing up from the ``OTEL_*`` variables if it is not yet; True when it is on."""
    global _checked
    with _lock:
        if _checked:
            return _tracer is not None
        _checked = True
        if endpoint() is None:
            return False
    # Imported only now: a process that does not trace never loads the exporter.
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    configure(BatchSpanProcessor(OTLPSpanExporter()))
    return True


def configure(processor: Any) -> Any:
    """Trace through ``processor`` (an SDK ``SpanProcessor``, e.g. ``SimpleSpanProcessor(
    InMemorySpanExporter())`` in a test) from now on, replacing any earlier set-up (which is
    shut down, its spans flushed); returns the ``TracerProvider``."""
    from opentelemetry.sdk.resources import SERVICE_NAME as SERVICE_NAME_KEY, Resource
    from opentelemetry.sdk.trace import TracerProvider

    from ._ids import RunIds

    global _checked, _provider, _tracer
    resource = Resource.create()
    if str(resource.attributes.get(SERVICE_NAME_KEY, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME_KEY: SERVICE_NAME}))
    provider = TracerProvider(resource=resource, id_generator=RunIds(), shutdown_on_exit=True)
    provider.add_span_processor(processor)
    with _lock:
        old, _provider, _tracer, _checked = _provider, provider, provider.get_tracer(TRACER_NAME), True
    if old is not None:
        old.shutdown()
    return provider


def shutdown() -> None:
    """Flush and stop tracing (tests; the provider also flushes when the process exits). The
    environment is read again on next use."""
    global _checked, _provider, _tracer
    with _lock:
        old, _provider, _tracer, _checked = _provider, None, None, False
    if old is not None:
        old.shutdown()
