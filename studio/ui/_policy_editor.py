"""The Settings page's policy: the rules in force, in order, and an editor for the policy file.

A change is never saved on a click alone: "Check and replay" reads the text (a mistake is named
by its line and rule, and nothing changes: the policy in force stays), then replays it over the
recorded runs and reviews (``studio.workbench.replay_policy``): how many steps it would allow,
ask about or deny, and each case where it disagrees with what a person decided. Only "Save this
policy", shown under that report for exactly the text replayed, saves it and puts it in force.
"""

from __future__ import annotations

import streamlit as st

from core import PlanStudioError, Policy, PolicyError
from core.policy import ReplayReport
from studio import workbench as wb
from studio.workbench._services import Services

from ._state import Keys, actor
from ._text import md_escape

__all__ = ["policy_section"]

_SHOWN_DISAGREEMENTS = 50


def rules_table(policy: Policy) -> str:
    """The rules in force as a markdown table, every cell escaped (rules are the admin's text)."""
    rows = ["| # | Rule | Matches | Condition | Outcome |", "|---|---|---|---|---|"]
    for number, rule in enumerate(policy.rules, start=1):
        cells = [str(number), rule.name, rule.matches_text, rule.when.text if rule.when else "",
                 rule.outcome_text + (f": {rule.reason}" if rule.reason else "")]
        rows.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    rows.append("| | *otherwise* | every step | | read-only runs; any other step asks 1 approver |")
    return "\n".join(rows)


def _cell(text: str) -> str:
    """``text`` in a table cell, on one line, escaped (``md_escape`` keeps a pipe from ending it)."""
    return md_escape(" ".join(text.split()))


def policy_section(services: Services) -> None:
    with st.container(key="settings-policy"):
        _policy_section(services)


def _policy_section(services: Services) -> None:
    st.subheader("Policy")
    path = wb.policy_file(services.settings)
    st.caption(f"Ordered rules: the first that matches a step decides whether it runs, waits for approvers, or "
               f"never runs. Kept in `{str(path).replace('`', '')}` (`PLAN_STUDIO_POLICY`); see *docs/policy.md*.")
    if services.policy_problem:
        st.warning(md_escape(f"The policy file is not in force: {services.policy_problem}. Until it reads, the "
                             "default policy is (read-only steps run, every other step asks)."),
                   icon=":material/policy:")
    with st.container(key="settings-policy-rules"):
        st.markdown(rules_table(wb.current_policy(services)))
    if st.session_state[Keys.SETTINGS_POLICY_TEXT] is None:
        st.session_state[Keys.SETTINGS_POLICY_TEXT] = wb.policy_text(services)
    st.text_area("Policy file", key=Keys.SETTINGS_POLICY_TEXT, height=260,
                 help="TOML (or YAML, for a .yaml policy file): [[rules]] with name, tool, group, effect, agent, "
                      "when, outcome, reason, approvers, roles, groups.")
    st.button("Check and replay", key="settings.policy.replay", on_click=check_policy, args=(services,),
              icon=":material/history:")
    message = st.session_state[Keys.SETTINGS_POLICY_MESSAGE]
    if message is not None:
        getattr(st, message[0])(md_escape(message[1]))
    pending = st.session_state[Keys.SETTINGS_POLICY_PENDING]
    if pending is not None and pending[0] == st.session_state[Keys.SETTINGS_POLICY_TEXT]:
        _replay_report(services, pending)


def _replay_report(services: Services, pending: tuple[str, ReplayReport]) -> None:
    report = pending[1]
    with st.container(border=True, key="settings-policy-report"):
        st.markdown("**Replayed over the recorded decisions:** " + md_escape(report.summary))
        disagreements = report.disagreements
        if disagreements:
            st.markdown("\n".join(f"- {md_escape(d.text)}" for d in disagreements[:_SHOWN_DISAGREEMENTS]))
            if report.disagreeing > _SHOWN_DISAGREEMENTS:
                st.caption(f"... and {report.disagreeing - _SHOWN_DISAGREEMENTS} more.")
        save, cancel, _rest = st.columns([1, 1, 4])
        save.button("Save this policy", key="settings.policy.save", type="primary", on_click=save_policy,
                    args=(services,), icon=":material/save:")
        cancel.button("Not now", key="settings.policy.cancel", on_click=_forget)


def check_policy(services: Services) -> None:
    """Read the editor's text and replay it; a mistake is said with its line, nothing saved."""
    text = st.session_state[Keys.SETTINGS_POLICY_TEXT] or ""
    st.session_state[Keys.SETTINGS_POLICY_PENDING] = None
    try:
        report = wb.replay_policy(services, text)
    except PolicyError as exc:
        st.session_state[Keys.SETTINGS_POLICY_MESSAGE] = (
            "error", f"Not saved: {exc}. The policy in force is unchanged.")
        return
    except PlanStudioError as exc:
        st.session_state[Keys.SETTINGS_POLICY_MESSAGE] = ("error", f"Could not replay the policy: {exc}")
        return
    st.session_state[Keys.SETTINGS_POLICY_PENDING] = (text, report)
    st.session_state[Keys.SETTINGS_POLICY_MESSAGE] = (
        "info", "The policy reads. Look at what it would have decided below, then save it or not.")


def save_policy(services: Services) -> None:
    pending = st.session_state[Keys.SETTINGS_POLICY_PENDING]
    st.session_state[Keys.SETTINGS_POLICY_PENDING] = None
    if pending is None:
        return
    try:
        policy = wb.save_policy(services, pending[0], actor=actor())
    except (PlanStudioError, OSError) as exc:
        st.session_state[Keys.SETTINGS_POLICY_MESSAGE] = (
            "error", f"Not saved: {exc}. The policy in force is unchanged.")
        return
    count = len(policy.rules)
    st.session_state[Keys.SETTINGS_POLICY_MESSAGE] = (
        "success", f"Saved: {count} rule{'s' if count != 1 else ''} in force from now on.")


def _forget() -> None:
    st.session_state[Keys.SETTINGS_POLICY_PENDING] = None
    st.session_state[Keys.SETTINGS_POLICY_MESSAGE] = None
