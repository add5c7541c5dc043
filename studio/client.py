"""A Python client for the studio's review inbox: send a plan for review, wait for the decision.

    from studio import ReviewClient

    client = ReviewClient("http://127.0.0.1:8501", token="...")  # or PLAN_STUDIO_TOKEN
    review = client.submit(plan, agent="my-agent")             # a core.Plan, a dict or text
    print("review it at", review.url)
    review = client.wait(review, timeout=600)
    if review.approved:
        run(review.plan)                                       # as approved, edits included

Standard library only (``urllib``), so an agent needs nothing beyond this package. Failures
raise ``core.ReviewServiceError`` with the HTTP status and the API's message.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from core import Plan, ReviewServiceError, dump_plan

__all__ = ["TOKEN_VARIABLE", "Review", "ReviewClient"]

TOKEN_VARIABLE = "PLAN_STUDIO_TOKEN"
# The server answers a wait within its own limit (600 s); longer waits are made of several.
_SERVER_WAIT_LIMIT = 600.0
_NETWORK_SLACK = 15.0


@dataclass(frozen=True)
class Review:
    """A review as the API last reported it. ``plan`` is the native JSON plan: as approved
    (edits included) once approved, as sent otherwise; ``plan_text`` the same in the format
    it was sent in."""

    id: str
    status: str
    url: str = ""
    plan: dict[str, Any] | None = None
    plan_text: str = ""
    comment: str = ""
    decisions: list[dict[str, Any]] = field(default_factory=list)
    problems: list[dict[str, Any]] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def approved(self) -> bool:
        return self.status == "approved"

    @property
    def decided(self) -> bool:
        return self.status != "pending"

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Review":
        return cls(id=data["id"], status=data["status"], url=data.get("url", ""), plan=data.get("plan"),
                   plan_text=data.get("plan_text", ""), comment=data.get("comment", ""),
                   decisions=list(data.get("decisions", [])), problems=list(data.get("problems", [])),
                   data=data)


class ReviewClient:
    """Talks to one studio's ``/api/reviews``."""

    def __init__(self, url: str = "http://127.0.0.1:8501", token: str | None = None) -> None:
        self.url = url.rstrip("/")
        token = token or os.environ.get(TOKEN_VARIABLE)
        if not token:
            raise ReviewServiceError(0, f"no API token: pass token= or set {TOKEN_VARIABLE} "
                                        "(`plan-studio token` prints it)")
        self._token = token

    def submit(self, plan: Plan | dict[str, Any] | str, *, format: str | None = None, agent: str = "python-client",
               goal: str | None = None, tools: list[dict[str, Any]] | None = None) -> Review:
        """Send ``plan`` for review; ``tools`` are your own tools' definitions, as MCP lists them."""
        if isinstance(plan, Plan):
            plan, format = json.loads(dump_plan(plan, "native")), format or "native"
        body: dict[str, Any] = {"plan": plan, "agent": agent}
        for name, value in (("format", format), ("goal", goal), ("tools", tools)):
            if value is not None:
                body[name] = value
        return Review.from_json(self._call("POST", "/api/reviews", body))

    def get(self, review: Review | str) -> Review:
        return Review.from_json(self._call("GET", f"/api/reviews/{_id(review)}"))

    def wait(self, review: Review | str, timeout: float = 600.0) -> Review:
        """The review once a person approved or rejected it, or as it is after ``timeout``
        seconds (``status`` still ``pending``)."""
        deadline = time.monotonic() + max(timeout, 0.0)
        while True:
            left = max(deadline - time.monotonic(), 0.0)
            chunk = min(left, _SERVER_WAIT_LIMIT)
            found = Review.from_json(self._call("GET", f"/api/reviews/{_id(review)}/wait?timeout={chunk:.3f}",
                                                wait=chunk))
            if found.decided or left <= chunk:
                return found

    def _call(self, method: str, path: str, body: Any = None, *, wait: float = 0.0) -> dict[str, Any]:
        data = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
        request = urllib.request.Request(self.url + path, data=data, method=method, headers={
            "Authorization": f"Bearer {self._token}", "Content-Type": "application/json",
            "Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=wait + _NETWORK_SLACK) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            raise ReviewServiceError(exc.code, _message(exc)) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise ReviewServiceError(0, f"cannot reach the studio at {self.url}: {reason}") from None


def _id(review: Review | str) -> str:
    return review.id if isinstance(review, Review) else review


def _message(error: urllib.error.HTTPError) -> str:
    try:
        text = json.loads(error.read()).get("error")
    except (ValueError, AttributeError, OSError):
        text = None
    return f"HTTP {error.code}: {text or error.reason}"
