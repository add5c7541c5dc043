"""A small tool registry for core tests that must not depend on the demo data."""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict

from core import ToolRegistry


class Row(TypedDict):
    id: str
    city: str


class Rows(TypedDict):
    data: list[Row]
    count: int


def toy_registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.register
    def sites_list(city: str | None = None, kind: Literal["big", "small"] | None = None,
                   limit: int = 100) -> Rows:
        """List sites.

        Args:
            city: City of the site.
            kind: Size of the site.
            limit: Maximum rows.
        """
        rows = [Row(id=f"S{n}", city=c) for n, c in enumerate(["Berlin", "Munich", "Berlin"])]
        rows = [r for r in rows if city is None or r["city"] == city]
        return Rows(data=rows[:limit], count=len(rows[:limit]))

    @registry.register
    def visits_list(site_id: str | list[str], note: str = "") -> Rows:
        """List visits of sites.

        Args:
            site_id: One site id or several.
            note: Free text carried into every row's city field.
        """
        ids = [site_id] if isinstance(site_id, str) else site_id
        return Rows(data=[Row(id=f"V-{i}", city=note) for i in ids], count=len(ids))

    @registry.register
    def explode(reason: str = "boom") -> Rows:
        """Always fails, to test failure handling.

        Args:
            reason: The error message.
        """
        raise RuntimeError(reason)

    return registry
