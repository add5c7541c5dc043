"""Where the studio's webhook posts, and how its last delivery went: two small private files in
the data folder, so every process of the studio (the pages, the review API, a worker) reads the
same.

``webhook.json`` holds the URL and format the admin saved on Settings (0600: a Slack webhook
URL is itself a secret); when there is none, the settings ``PLAN_STUDIO_WEBHOOK_URL`` and
``PLAN_STUDIO_WEBHOOK_FORMAT`` apply. ``webhook-status.json`` holds the last delivery's outcome,
written by the sender (``_webhook_sender``) and shown on Settings.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import secrets
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from core import Actor, Role, Settings, StorageError, private_folder, require

__all__ = ["CONFIG_FILE", "STATUS_FILE", "Delivery", "WebhookConfig", "clear_webhook", "last_delivery",
           "save_webhook", "utc_now", "webhook_config", "write_delivery"]

CONFIG_FILE = "webhook.json"
STATUS_FILE = "webhook-status.json"
WebhookFormat = Literal["slack", "plain"]


@dataclass(frozen=True)
class WebhookConfig:
    """The webhook in use: ``url`` None when there is none; ``source`` says where it was set."""

    url: str | None
    format: WebhookFormat
    source: Literal["settings page", "setting", "none"]


@dataclass(frozen=True)
class Delivery:
    """How one notification's delivery went (after its retries)."""

    at: str  # ISO time, UTC
    ok: bool
    kind: str  # step_waiting, review_submitted
    subject: str  # the run or review id
    attempts: int
    detail: str  # "HTTP 200", or why it failed


def _write_private(path: Path, data: dict) -> None:
    """Write ``data`` as JSON to ``path`` (0600), whole or not at all."""
    private_folder(path.parent, tighten_files=False)
    draft = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    try:
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out)
        os.replace(draft, path)
    except OSError as exc:
        draft.unlink(missing_ok=True)
        raise StorageError(f"cannot write {path}: {exc.strerror or exc}") from exc


def _read_json(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return None  # damaged: as if there were none (Settings can save it again)
    return data if isinstance(data, dict) else None


def webhook_config(settings: Settings) -> WebhookConfig:
    """The webhook URL and format in use: the one saved on Settings, else the settings'."""
    saved = _read_json(Path(settings.data_dir).expanduser() / CONFIG_FILE)
    if saved is not None and isinstance(saved.get("url"), str):
        try:
            checked = Settings.model_validate({**settings.model_dump(), "webhook_url": saved["url"],
                                               "webhook_format": saved.get("format", "slack")})
        except ValueError:
            checked = None  # edited by hand into something else: the setting applies
        if checked is not None and checked.webhook_url is not None:
            return WebhookConfig(checked.webhook_url, checked.webhook_format, "settings page")
    if settings.webhook_url is not None:
        return WebhookConfig(settings.webhook_url, settings.webhook_format, "setting")
    return WebhookConfig(None, settings.webhook_format, "none")


def save_webhook(settings: Settings, url: str, fmt: str, *, actor: Actor) -> WebhookConfig:
    """Save the webhook URL and format for every process of this data folder. An admin's
    change; ``ValueError`` naming what is wrong with ``url`` or ``fmt``."""
    require(actor, Role.admin, "configure the webhook")
    checked = Settings.model_validate({**settings.model_dump(), "webhook_url": url, "webhook_format": fmt})
    if checked.webhook_url is None:
        raise ValueError("the webhook URL is empty; use Remove to stop sending")
    _write_private(Path(settings.data_dir).expanduser() / CONFIG_FILE,
                   {"url": checked.webhook_url, "format": checked.webhook_format})
    return webhook_config(settings)


def clear_webhook(settings: Settings, *, actor: Actor) -> WebhookConfig:
    """Forget the webhook saved on Settings (the setting, if any, applies again)."""
    require(actor, Role.admin, "configure the webhook")
    (Path(settings.data_dir).expanduser() / CONFIG_FILE).unlink(missing_ok=True)
    return webhook_config(settings)


def write_delivery(data_dir: Path, delivery: Delivery) -> None:
    _write_private(Path(data_dir).expanduser() / STATUS_FILE, asdict(delivery))


def last_delivery(settings: Settings) -> Delivery | None:
    """The last delivery's outcome, or None before the first."""
    data = _read_json(Path(settings.data_dir).expanduser() / STATUS_FILE)
    try:
        return None if data is None else Delivery(**data)
    except TypeError:
        return None


def utc_now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
