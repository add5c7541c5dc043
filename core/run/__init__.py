"""Running a plan: the run model, statuses, events, the scheduler, the driver of a pass, step calls,
retries and limits, approvals and the recorder seam. Durable runs live beside it, in ``core.durable``."""
