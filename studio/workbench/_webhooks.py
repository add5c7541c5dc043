"""Notifications with a signed link: the studio posts to the admin's webhook when a step starts
waiting for a person and when an agent submits a review, so a reviewer goes straight to it.

``Notifier`` is one per ``Services`` (``Services.notifier``). It is told by the registry of runs
live here when a run stops with steps waiting (``RunsHere.on_held``: the moment a decision can
be taken, from anywhere) and by ``submit_review``. For each step newly waiting (a step is told
once per what it shows) and each review, it signs a link (``_links``) and hands a message to
its sender: one background thread, started on first use, which posts with a timeout
(``PLAN_STUDIO_WEBHOOK_TIMEOUT``), tries 3 times in all waiting 1 s then 2 s, logs a failure
and keeps the last outcome for Settings (``_webhook_config.write_delivery``). Nothing here
blocks or breaks a run: a full queue drops the message (logged), and every failure is caught.

What is sent (``PLAN_STUDIO_WEBHOOK_FORMAT``): ``slack`` posts Slack-compatible JSON, ``text``
and ``blocks`` with a button to the link; ``plain`` posts ``{kind, run_id, step_id, review_id,
tool, effects, arguments_hash, link, expires}``. Never the arguments themselves, nor any secret
but the link: the link is the one thing that lets its holder (once signed in) decide.

The same sender carries the signed posts to a submitting agent's own callback URL
(``post_signed``, made by ``_agent_callbacks``): the same retries and backoff, the same
never-blocking queue, but not the admin webhook's status on Settings.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import queue
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core import Run, Settings, ToolRegistry, waiting_steps

from ._link_making import review_decision_link, step_link
from ._link_signing import SignedLink
from ._webhook_config import Delivery, WebhookConfig, utc_now, webhook_config, write_delivery

if TYPE_CHECKING:
    from core.storage import Review

__all__ = ["ATTEMPTS", "Message", "Notifier", "Outgoing", "message_body"]

log = logging.getLogger("studio.webhooks")

ATTEMPTS = 3
_QUEUE = 256  # messages waiting to be sent; past that, new ones are dropped (logged)
_REMEMBERED = 4096  # (run, step, shown) already told, so a step waiting across passes is told once


@dataclass(frozen=True)
class Message:
    """One notification, ready to send: what it is about, and its signed link."""

    kind: str  # step_waiting, review_submitted
    summary: str  # one line for people (untrusted names inside: escaped by the format)
    link: SignedLink
    url: str
    run_id: str = ""
    step_id: str = ""
    review_id: str = ""
    tool: str = ""
    effects: str = ""
    arguments_hash: str = ""

    @property
    def expires(self) -> str:
        return dt.datetime.fromtimestamp(self.link.expires, dt.timezone.utc).isoformat(timespec="seconds")


@dataclass(frozen=True)
class Outgoing:
    """One post, ready: where, what, with which headers; ``kind`` and ``subject`` for the log;
    ``kept`` when its outcome is the admin webhook's last delivery (shown on Settings)."""

    url: str
    body: bytes
    headers: tuple[tuple[str, str], ...]
    kind: str
    subject: str
    kept: bool = False


def _slack_escape(text: str) -> str:
    # Slack's mrkdwn: these three are control characters; an agent's name must not make a link.
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def message_body(message: Message, fmt: str) -> dict[str, Any]:
    """The JSON body posted for ``message`` in format ``fmt`` (``slack`` or ``plain``)."""
    if fmt == "plain":
        return {"kind": message.kind, "run_id": message.run_id or None, "step_id": message.step_id or None,
                "review_id": message.review_id or None, "tool": message.tool or None,
                "effects": message.effects or None, "arguments_hash": message.arguments_hash or None,
                "link": message.url, "expires": message.expires}
    summary = _slack_escape(message.summary)
    detail = f"Link expires {message.expires}; it decides once and needs you signed in."
    if message.arguments_hash:
        detail = f"Arguments hash `{message.arguments_hash[:16]}…`. " + detail
    return {
        "text": f"Plan Studio: {summary} <{message.url}|Review and decide>",
        "blocks": [
            {"type": "section", "text": {"type": "mrkdwn", "text": f"*Plan Studio*: {summary}"}},
            {"type": "context", "elements": [{"type": "mrkdwn", "text": _slack_escape(detail)}]},
            {"type": "actions", "elements": [{"type": "button", "text": {"type": "plain_text",
                                                                          "text": "Review and decide"},
                                              "url": message.url}]},
        ],
    }


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A webhook answers; it does not send the message elsewhere (nor the link with it)."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)


class Notifier:
    """The webhook notifications of one set of services (see the module docstring)."""

    def __init__(self, settings: Settings, *, backoff: float = 1.0) -> None:
        self.settings = settings
        self._backoff = backoff
        self._queue: queue.Queue[Outgoing] = queue.Queue(maxsize=_QUEUE)
        self._told: OrderedDict[tuple[str, str, str], None] = OrderedDict()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._idle = threading.Condition(self._lock)
        self._busy = 0  # messages queued or being sent

    # -- what is told ----------------------------------------------------------------------------
    def steps_waiting(self, registry: ToolRegistry, run: Run) -> None:
        """``run`` stopped with steps waiting for a person: tell of each not told yet."""
        config = webhook_config(self.settings)
        if config.url is None:
            return
        for step_id in waiting_steps(run):
            if run.steps[step_id].decision is not None:
                continue  # approved, waiting only for the run to go on
            try:
                url, link, waiting = step_link(self.settings, registry, run, step_id)
            except Exception as exc:  # never break what is told of
                log.warning("no webhook for step %s of run %s: %s", step_id, run.id, exc)
                continue
            key = (run.id, step_id, link.shown)
            with self._lock:
                if key in self._told:
                    continue
                self._told[key] = None
                while len(self._told) > _REMEMBERED:
                    self._told.popitem(last=False)
            summary = (f"{waiting.label} ({waiting.tool}, {waiting.effects}) waits for a person to approve "
                       f"it; run {run.id}" + (f", goal: {run.plan.goal}" if run.plan.goal else ""))
            self._send(Message("step_waiting", summary, link, url, run_id=run.id, step_id=step_id,
                               tool=waiting.tool, effects=waiting.effects,
                               arguments_hash=waiting.arguments_hash), config)

    def review_submitted(self, review: Review) -> None:
        """An agent submitted ``review``: tell of it."""
        config = webhook_config(self.settings)
        if config.url is None:
            return
        try:
            url, link = review_decision_link(self.settings, review)
        except Exception as exc:
            log.warning("no webhook for review %s: %s", review.id, exc)
            return
        steps = len(review.plan.steps)
        summary = (f"{review.agent} sent a plan of {steps} step{'s' if steps != 1 else ''} for review"
                   + (f": {review.goal}" if review.goal else ""))
        self._send(Message("review_submitted", summary, link, url, review_id=review.id), config)

    def post_signed(self, url: str, body: bytes, headers: dict[str, str], *, kind: str, subject: str) -> None:
        """Post ``body`` (signed by the caller: ``headers``) to an agent's own ``url``, retried
        with backoff on the sender's thread; never blocks, never raises."""
        self._enqueue(Outgoing(url, body, tuple(headers.items()), kind, subject))

    # -- sending ---------------------------------------------------------------------------------
    def _send(self, message: Message, config: WebhookConfig) -> None:
        body = json.dumps(message_body(message, config.format)).encode()
        self._enqueue(Outgoing(config.url or "", body, (), message.kind, message.run_id or message.review_id,
                               kept=True))

    def _enqueue(self, outgoing: Outgoing) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name="webhook-sender", daemon=True)
                self._thread.start()
            try:
                self._queue.put_nowait(outgoing)
            except queue.Full:
                log.error("webhook queue full (%d waiting): the message about %s %s is dropped", _QUEUE,
                          outgoing.kind, outgoing.subject)
                return
            self._busy += 1

    def wait_sent(self, timeout: float) -> bool:
        """Wait until every message handed over so far was delivered or given up on; False when
        ``timeout`` seconds passed first (a command about to exit, a test)."""
        with self._idle:
            return self._idle.wait_for(lambda: self._busy == 0, timeout)

    def _work(self) -> None:
        while True:
            outgoing = self._queue.get()
            try:
                self._deliver(outgoing)
            except Exception:  # a bug here must not stop later deliveries
                log.exception("webhook delivery failed")
            finally:
                with self._idle:
                    self._busy -= 1
                    self._idle.notify_all()

    def _deliver(self, out: Outgoing) -> None:
        detail, wait = "", self._backoff
        for attempt in range(1, ATTEMPTS + 1):
            detail = _post(out.url, out.body, self.settings.webhook_timeout, dict(out.headers))
            if detail.startswith("HTTP 2"):
                self._record(out, True, attempt, detail)
                return
            log.warning("webhook %s (attempt %d of %d) about %s %s: %s", _host(out.url), attempt, ATTEMPTS,
                        out.kind, out.subject, detail)
            if attempt < ATTEMPTS:
                threading.Event().wait(wait)  # backoff on the sender's own thread; nothing waits on it
                wait *= 2
        log.error("webhook %s: gave up on %s %s after %d attempts: %s", _host(out.url), out.kind,
                  out.subject, ATTEMPTS, detail)
        self._record(out, False, ATTEMPTS, detail)

    def _record(self, out: Outgoing, ok: bool, attempts: int, detail: str) -> None:
        if not out.kept:
            return
        try:
            write_delivery(self.settings.data_dir, Delivery(utc_now(), ok, out.kind, out.subject, attempts, detail))
        except Exception as exc:
            log.warning("could not keep the webhook's delivery status: %s", exc)


def _host(url: str | None) -> str:
    # The log names the host, not the URL: a Slack webhook's path is its secret.
    return urllib.parse.urlparse(url or "").netloc or "(none)"


def _post(url: str, body: bytes, timeout: float, headers: dict[str, str] | None = None) -> str:
    """POST ``body`` to ``url``: "HTTP <status>", or why it could not be delivered."""
    request = urllib.request.Request(url, data=body, method="POST", headers={
        "Content-Type": "application/json", "User-Agent": "plan-studio-webhook", **(headers or {})})
    try:
        with _OPENER.open(request, timeout=timeout) as response:
            response.read(64 * 1024)
            return f"HTTP {response.status}"
    except urllib.error.HTTPError as exc:
        return f"HTTP {exc.code}"
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return f"not delivered: {reason}"
