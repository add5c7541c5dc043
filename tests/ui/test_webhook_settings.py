"""Settings' webhook section (issue 27, item 6): an admin saves the webhook URL and format for
every process of the data folder; a URL that is not http(s) is refused and named; the URL's
secret path is never drawn; the last delivery's outcome is shown."""

from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from core import Settings
from studio.workbench._webhook_config import CONFIG_FILE, Delivery, write_delivery
from test_settings_pages import SETTINGS, data_dir, no_failures, open_page, start, texts, tree_text  # noqa: F401

SECRET_PATH = "/services/T000/B000/XXXXsecretXXXX"


def said(at: AppTest) -> str:
    """What the page says, without the markdown that escaping adds (inline code, bold)."""
    return texts(at).replace("`", "").replace("**", "")


def _save(at: AppTest, url: str, fmt: str = "slack") -> None:
    at.text_input(key="settings.webhook.url").input(url)
    at.selectbox(key="settings.webhook.format").set_value(fmt)
    at.button(key="FormSubmitter:settings-webhook-form-Save webhook").click().run()
    no_failures(at)


def test_a_saved_webhook_is_kept_private_and_shown_by_its_host_only(data_dir: Path) -> None:
    at = open_page(start(), SETTINGS)
    assert "No webhook: nothing is posted." in said(at)
    _save(at, f"https://hooks.example.com{SECRET_PATH}", "plain")
    assert "Saved: the studio posts to hooks.example.com." in said(at)
    assert "Posting to hooks.example.com (path hidden) as Plain JSON POST; set on settings page." in said(at)
    assert SECRET_PATH not in tree_text(at)
    assert json.loads((data_dir / CONFIG_FILE).read_text()) == {"url": f"https://hooks.example.com{SECRET_PATH}",
                                                                 "format": "plain"}
    at.button(key="settings.webhook.remove").click().run()
    assert "Removed the saved webhook." in said(at) and not (data_dir / CONFIG_FILE).exists()


def test_a_url_that_is_not_http_is_refused_naming_why(data_dir: Path) -> None:
    at = open_page(start(), SETTINGS)
    _save(at, "file:///etc/passwd")
    assert "Not saved: 'file:///etc/passwd' is not an http:// or https:// URL with a host" in said(at)
    assert not (data_dir / CONFIG_FILE).exists()


def test_the_last_delivery_is_shown(data_dir: Path) -> None:
    write_delivery(Settings(data_dir=data_dir).data_dir, Delivery("2026-11-28T10:00:00+00:00", False,
                                                                  "step_waiting", "run1", 3, "HTTP 500"))
    at = open_page(start(), SETTINGS)
    assert ("Last delivery failed at 2026-11-28T10:00:00+00:00 · step_waiting run1, 3 attempts, HTTP 500"
            in [e.value.replace("\\", "").replace("`", "") for e in at.error][0])
