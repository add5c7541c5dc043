"""People signing in to a deployed studio, in Chromium against real servers: Streamlit's OIDC
sign-in (``[auth]`` in a temporary ``.streamlit/secrets.toml``) through a local issuer
(tests/oidc_issuer.py) and back, roles from the settings and the groups claim, signing out;
and a reverse proxy's user header, believed from a trusted address only."""

from __future__ import annotations

import json
import re
import secrets
from pathlib import Path
from typing import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from browser_helpers import arrives, click, enter, open_studio, screenshot
from conftest import Studio, start_studio
from oidc_issuer import Issuer, IssuerUser, issuer

pytestmark = pytest.mark.browser

FAY = IssuerUser(sub="fay", email="fay@example.com", name="Fay Finance", groups=("finance", "staff"))
VIC = IssuerUser(sub="vic", email="vic@example.com", name="Vic Viewer", groups=("staff",))
GOAL = "Get contaminated shipments from Berlin facilities"
ROLES = json.dumps({"finance": "approver"})


def _secrets(folder: Path, provider: Issuer) -> None:
    """``[auth]`` in the studio's own folder: Streamlit reads ``.streamlit/secrets.toml`` of the
    folder it starts in (``secrets.files``), and plan-studio starts in the test's temp folder."""
    where = folder / ".streamlit"
    where.mkdir()
    (where / "secrets.toml").write_text(
        "[auth]\n"
        'redirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
        f'cookie_secret = "{secrets.token_urlsafe(32)}"\n'
        f'client_id = "{provider.client_id}"\n'
        f'client_secret = "{provider.client_secret}"\n'
        f'server_metadata_url = "{provider.metadata_url}"\n')
    (where / "secrets.toml").chmod(0o600)


@pytest.fixture
def provider() -> Iterator[Issuer]:
    with issuer([FAY, VIC]) as running:
        yield running


@pytest.fixture
def oidc_studio(tmp_path: Path, provider: Issuer) -> Iterator[Studio]:
    _secrets(tmp_path, provider)
    yield from start_studio(tmp_path, PLAN_STUDIO_GROUP_ROLES=ROLES)


def _person(browser: Browser, width: int = 1280, height: int = 800, **options: object) -> BrowserContext:
    return browser.new_context(viewport={"width": width, "height": height}, **options)


def _sign_in(page: Page, provider: Issuer, user: IssuerUser) -> None:
    """From the studio's sign-in page to the issuer's form, and back signed in as ``user``."""
    page.get_by_role("button", name="Sign in").click()  # st.login: the tab goes to the issuer
    page.wait_for_url(re.compile(re.escape(provider.url) + r"/authorize\?"))
    with arrives(page):
        page.get_by_role("button", name=f"Sign in as {user.name}").click()


def test_a_person_signs_in_at_the_provider_and_holds_the_role_their_groups_give(
        browser: Browser, oidc_studio: Studio, provider: Issuer) -> None:
    context = _person(browser)
    try:
        page = context.new_page()
        log = oidc_studio.log.read_text()
        assert not oidc_studio.token and "?token=" not in log  # no start token: the sign-in is the gate
        assert f"Plan Studio: open {oidc_studio.url}/ and sign in" in log
        open_studio(page, oidc_studio.url)
        expect(page.get_by_text("Sign in to see and review plans.")).to_be_visible()
        expect(page.get_by_role("link", name="Settings")).to_have_count(0)
        expect(page.get_by_role("textbox", name="Goal")).to_have_count(0)
        screenshot(page, "oidc-sign-in.png")

        _sign_in(page, provider, FAY)
        assert provider.exchanged == ["fay"]  # the code went back to the issuer for a signed id_token
        expect(page.get_by_text("Signed in as Fay Finance (fay@example.com) · approver")).to_be_visible()
        enter(page.get_by_role("textbox", name="Goal"), GOAL)
        click(page.get_by_role("button", name="Plan", exact=True))
        click(page.get_by_role("button", name="Approve", exact=True))
        expect(page.get_by_role("button", name="Run all")).to_be_enabled()  # an approver may approve
        screenshot(page, "oidc-signed-in-approver.png")
        page.set_viewport_size({"width": 1920, "height": 1080})
        screenshot(page, "oidc-signed-in-approver-1920.png")
        page.set_viewport_size({"width": 1280, "height": 800})

        click(page.get_by_role("link", name="Settings"))
        expect(page.get_by_text("You are signed in as Fay Finance (approver)")).to_be_visible()
        expect(page.get_by_role("button", name="Create token")).to_have_count(0)  # admins only

        with arrives(page):
            page.get_by_role("button", name="Sign out").click()  # st.logout: the cookie goes
        expect(page.get_by_text("Sign in to see and review plans.")).to_be_visible()
        expect(page.get_by_role("textbox", name="Goal")).to_have_count(0)
        assert not [c for c in context.cookies() if c["name"].startswith("_streamlit_user")]

        # Someone else on the same browser: a viewer, who may look but not plan or approve.
        _sign_in(page, provider, VIC)
        expect(page.get_by_text("Signed in as Vic Viewer (vic@example.com) · viewer")).to_be_visible()
        # What a viewer may not do is drawn disabled (the server refuses it anyway).
        expect(page.get_by_role("button", name="Plan", exact=True)).to_be_disabled()
        expect(page.get_by_role("button", name="Approve", exact=True)).to_have_count(0)
        screenshot(page, "oidc-signed-in-viewer.png")
    finally:
        context.close()


def test_without_signing_in_no_page_of_the_studio_is_drawn(browser: Browser, oidc_studio: Studio) -> None:
    context = _person(browser)
    try:
        page = context.new_page()
        open_studio(page, f"{oidc_studio.url}/settings")
        expect(page.get_by_text("Sign in to see and review plans.")).to_be_visible()
        for hidden in ("Reveal", "Create token", "Plan"):
            expect(page.get_by_role("button", name=hidden, exact=True)).to_have_count(0)
        expect(page.get_by_role("link", name="Reviews")).to_have_count(0)
        # A forged user cookie (not signed with the cookie secret) signs nobody in.
        context.add_cookies([{"name": "_streamlit_user", "value": "e30", "url": oidc_studio.url}])
        open_studio(page, oidc_studio.url)
        expect(page.get_by_text("Sign in to see and review plans.")).to_be_visible()
    finally:
        context.close()


def test_a_forged_id_token_signs_nobody_in(browser: Browser, oidc_studio: Studio, provider: Issuer) -> None:
    """Streamlit (Authlib) checks the id_token's signature against the issuer's keys, its
    audience, nonce and expiry: each wrong one leaves the person on the sign-in page."""
    context = _person(browser)
    try:
        page = context.new_page()
        open_studio(page, oidc_studio.url)
        for forgery in ("key", "audience", "nonce", "expired"):
            provider.forge = forgery
            _sign_in(page, provider, FAY)
            expect(page.get_by_text("Sign in to see and review plans.")).to_be_visible()
            expect(page.get_by_text("Signed in as")).to_have_count(0)
            assert not [c for c in context.cookies() if c["name"].startswith("_streamlit_user")], forgery
        assert provider.exchanged == ["fay"] * 4  # each code was exchanged; each token was refused
        log = oidc_studio.log.read_text()
        assert log.count("OAuth token exchange failed") == 4
        assert "BadSignatureError" in log and "ExpiredTokenError" in log
        provider.forge = None
        # At another host name than the redirect URI's, the sign-in does not hold (docs/security.md).
        open_studio(page, oidc_studio.url.replace("127.0.0.1", "localhost"))
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(re.compile(re.escape(provider.url) + r"/authorize\?"))
        with arrives(page):
            page.get_by_role("button", name=f"Sign in as {FAY.name}").click()
        expect(page.get_by_text("Sign in to see and review plans.")).to_be_visible()
        open_studio(page, oidc_studio.url)
        _sign_in(page, provider, FAY)  # and an honest one at the right address works
        expect(page.get_by_text("Signed in as Fay Finance (fay@example.com) · approver")).to_be_visible()
    finally:
        context.close()


# -- behind a reverse proxy ------------------------------------------------------------------------

@pytest.fixture
def proxied_studio(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Studio]:
    yield from start_studio(tmp_path, PLAN_STUDIO_USER_HEADER="X-Forwarded-User",
                            PLAN_STUDIO_TRUSTED_PROXIES=request.param)


@pytest.mark.parametrize("proxied_studio", ["127.0.0.1"], indirect=True)
def test_a_trusted_proxys_header_signs_the_person_in(browser: Browser, proxied_studio: Studio) -> None:
    context = _person(browser, extra_http_headers={"X-Forwarded-User": "pat@example.com"})
    try:
        page = context.new_page()
        open_studio(page, proxied_studio.url)  # no start token: the proxy signed them in
        expect(page.get_by_text("Signed in as pat@example.com (pat@example.com) · viewer")).to_be_visible()
        click(page.get_by_role("link", name="Settings"))
        expect(page.get_by_text("You are signed in as pat@example.com (viewer)")).to_be_visible()
        screenshot(page, "proxy-signed-in.png")
    finally:
        context.close()


@pytest.mark.parametrize("proxied_studio", ["10.9.8.7"], indirect=True)
def test_the_header_from_an_untrusted_address_is_not_believed(browser: Browser, proxied_studio: Studio) -> None:
    context = _person(browser, extra_http_headers={"X-Forwarded-User": "pat@example.com"})
    try:
        page = context.new_page()
        response = page.goto(proxied_studio.url)
        assert response is not None and response.status == 403  # nor does it stand for the start token
        open_studio(page, proxied_studio.open_url)  # with the token: the local user, not "pat"
        expect(page.get_by_role("link", name="Settings")).to_be_visible()
        expect(page.get_by_text("pat@example.com")).to_have_count(0)
    finally:
        context.close()
