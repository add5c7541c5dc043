"""Whether the studio is alive and ready, for ``/healthz`` and ``/readyz`` (``studio.api._health_api``)
and a worker's probes (``plan-studio worker --health-port``): what a container's healthcheck or an
orchestrator asks. The answers name each check and say ok or unavailable, nothing else: no error
text, no address, no version (the reason goes to the log).
"""

from __future__ import annotations

import logging

from ._services import Services
from ._durable_handle import durable_runs

__all__ = ["readiness"]

log = logging.getLogger("studio.health")


def readiness(services: Services) -> dict[str, str]:
    """Each check, ``ok`` or ``unavailable``: the store answers a read; durable runs (DBOS, on
    the same database) are launched and answer a read."""
    checks: dict[str, str] = {}
    try:
        services.store.records.recent(1)
        checks["store"] = "ok"
    except Exception as exc:
        log.warning("not ready: the store cannot be read: %s", " ".join(str(exc).split())[:300])
        checks["store"] = "unavailable"
    try:
        durable_runs(services).check()
        checks["durable"] = "ok"
    except Exception as exc:
        log.warning("not ready: durable runs cannot be used: %s", " ".join(str(exc).split())[:300])
        checks["durable"] = "unavailable"
    return checks
