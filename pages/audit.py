"""Audit: who did what, when and why; filtered, paged, exported."""

from studio import audit_page

audit_page()
