"""The studio's entry script: ``streamlit run studio/app.py`` (``plan-studio`` does it for you)."""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

# `streamlit run studio/app.py` in a source checkout puts studio/ itself on sys.path, not the
# project folder that holds the packages.
_PROJECT = str(Path(__file__).resolve().parent.parent)
# ... and studio/ itself off it: its rooms (studio/mcp, studio/api, ...) would hide the libraries
# of those names (`import mcp` would find studio/mcp, not the MCP SDK).
_HERE = Path(__file__).resolve().parent
sys.path[:] = [_PROJECT] + [p for p in sys.path if p != _PROJECT and Path(p or ".").resolve() != _HERE]

from studio import init_state  # noqa: E402
from studio.ui._actions import collect_finished_run  # noqa: E402
from studio.ui._drafts import keep_draft, restore_draft, sync_url  # noqa: E402
from studio.ui._navigation import NAVIGATION, REVIEWS_PAGE, page  # noqa: E402
from studio.ui._reviews_page import waiting_for_people  # noqa: E402
from studio.ui._sign_in import sign_in_gate  # noqa: E402

# A file, not a ":material/…:" icon: Streamlit fetches those favicons from Google's servers.
st.set_page_config(page_title="Plan Studio", page_icon=str(Path(__file__).resolve().parent / "assets" / "icon.png"),
                   layout="wide")
# Less room above the page than Streamlit leaves (a style only: it takes no place on the page).
st.html("<style>[data-testid=stMainBlockContainer] { padding-top: 4rem; }</style>")
init_state()
sign_in_gate()  # who is here (the local user, a proxy's, an OIDC sign-in); under OIDC, nobody: stops here
restore_draft()  # the session's first run: the work this tab's URL names comes back
collect_finished_run()  # on every page: a run that ended while the user was elsewhere is kept
keep_draft()  # after the callbacks of this run: what they changed is kept, and named in the URL
sync_url()
waiting = waiting_for_people()  # pending reviews and runs waiting for a decision: "Reviews (N)"
st.navigation([page(spec, waiting if spec is REVIEWS_PAGE else 0) for spec in NAVIGATION], position="top").run()
keep_draft()  # and what the page itself changed
sync_url()
