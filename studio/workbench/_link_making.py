"""Making a signed link, and the hashes that bind it to what it shows: what the webhook's
notifier (``_webhooks``) and the Decide page's checks (``_links``) both use, so a link made
for a step is checked against the very same hash.

It needs only the settings, the tools and the run or review (no other use case), so the
services can own a notifier that makes links without importing the use cases that decide.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core import LinkRefused, Plan, Run, Settings, StepStatus, ToolRegistry, arguments_hash

from ._link_signing import LinkKind, SignedLink, ensure_link_secret, sign_token

if TYPE_CHECKING:  # SQLAlchemy is slow to import; the CLI starts without it
    from core.storage import Review

__all__ = ["DECIDE_URL_PATH", "DEFAULT_PUBLIC_URL", "LINK_PARAM", "StepShown", "link_url", "review_decision_link",
           "shown_review_hash", "step_link", "step_shown"]

DECIDE_URL_PATH = "decide"  # the hidden Decide page's URL path
LINK_PARAM = "link"
DEFAULT_PUBLIC_URL = "http://127.0.0.1:8501"  # Streamlit's own default port, when nothing says otherwise


@dataclass(frozen=True)
class StepShown:
    """What a waiting step's link shows and is bound to: its tool, effects and resolved
    arguments (by their hash, ``core.arguments_hash``)."""

    label: str
    tool: str
    effects: str
    arguments_hash: str

    @property
    def hash(self) -> str:
        text = json.dumps({"tool": self.tool, "arguments_hash": self.arguments_hash, "effects": self.effects},
                          sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


def step_shown(run: Run, step_id: str, registry: ToolRegistry) -> StepShown | None:
    """What step ``step_id`` of ``run`` shows while it waits; None when it does not wait."""
    state = run.steps.get(step_id)
    if state is None or state.status != StepStatus.waiting:
        return None
    tool = run.plan.step(step_id).tool
    effects = registry.get(tool).effects.label if tool in registry else "unknown (may write)"
    return StepShown(run.plan.label(step_id), tool, effects, arguments_hash(state.arguments))


def shown_review_hash(plan: Plan) -> str:
    """The hash of what an approved review would run: the plan's steps, tools and params
    (its review notes and locks left out: ``Plan.identity.runs``)."""
    return plan.identity.runs


def link_url(settings: Settings, token: str) -> str:
    base = (settings.public_url or DEFAULT_PUBLIC_URL).rstrip("/")
    return f"{base}/{DECIDE_URL_PATH}?{LINK_PARAM}={token}"


def _sign(settings: Settings, kind: LinkKind, subject: str, shown: str, step_id: str = "") -> tuple[str, SignedLink]:
    token, link = sign_token(ensure_link_secret(settings.data_dir), kind, subject, shown, step_id=step_id,
                             expires_in=settings.link_expiry)
    return link_url(settings, token), link


def step_link(settings: Settings, registry: ToolRegistry, run: Run, step_id: str) -> tuple[str, SignedLink, StepShown]:
    """A signed link deciding the waiting step ``step_id`` of ``run``, and what it shows."""
    shown = step_shown(run, step_id, registry)
    if shown is None:
        raise LinkRefused(f"{run.plan.label(step_id)} of run {run.id} does not wait for a decision", why="gone")
    url, link = _sign(settings, "step", run.id, shown.hash, step_id)
    return url, link, shown


def review_decision_link(settings: Settings, review: Review) -> tuple[str, SignedLink]:
    """A signed link deciding the pending review ``review`` on the plan as the agent sent it."""
    return _sign(settings, "review", review.id, shown_review_hash(review.plan))
