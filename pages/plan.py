"""Plan: a goal becomes a plan to review as a graph and JSON, approve, run and save."""

from studio import plan_page

plan_page()
