"""The functions manual lists every tool as the registry describes it, and nothing else."""

from __future__ import annotations

import datetime as dt

import pytest

from core import Settings, ToolRegistry
from core.planners import render_manual
from tools import build_registry
from toy_tools import toy_registry

TODAY = dt.date(2025, 10, 12)


@pytest.fixture
def waste(tmp_path) -> ToolRegistry:
    return build_registry(Settings(data_dir=tmp_path, today=TODAY), groups=["waste"])


def section(manual: str, tool: str) -> str:
    start = manual.index(f"### {tool}\n")
    end = manual.find("\n### ", start + 1)
    return manual[start:end if end >= 0 else len(manual)]


def test_every_waste_tool_with_every_parameter_enum_and_return_field(waste):
    manual = render_manual(waste)
    assert manual.startswith("Functions manual: 4 tools.")
    for tool in waste:
        text = section(manual, tool.name)
        assert tool.description in text
        for name, schema in tool.parameters["properties"].items():
            line = next(l for l in text.splitlines() if l.startswith(f"  - {name}: "))
            assert "optional" in line  # every demo parameter is optional
            assert schema["description"] in line
        assert tool.returns_description in text
        assert "  - data: list of objects {id: string" in text
        assert "  - count: integer" in text


@pytest.mark.parametrize("tool, param, values", [
    ("facilities_list", "type", ["recycling", "sorting", "composting", "incineration", "landfill"]),
    ("shipments_list", "status", ["pending", "in_transit", "delivered", "rejected"]),
    ("shipments_list", "risk_level", ["low", "medium", "high"]),
    ("contaminants_list", "category", ["plastic", "metal", "glass", "hazardous", "organic", "electronic"]),
    ("inspections_list", "result", ["passed", "failed"]),
])
def test_enum_values_are_listed_exactly(waste, tool, param, values):
    line = next(l for l in section(render_manual(waste), tool).splitlines() if l.startswith(f"  - {param}: "))
    assert line.startswith(f"  - {param}: one of " + ", ".join(f'"{v}"' for v in values) + "; optional.")


def test_types_defaults_and_unions_read_plainly(waste):
    shipments = section(render_manual(waste), "shipments_list")
    assert "  - date_from: date (YYYY-MM-DD); optional. Earliest shipment date" in shipments
    assert "  - has_contaminants: boolean; optional." in shipments
    assert "  - facility_id: string or list of strings; optional." in shipments
    assert "  - limit: integer; at least 1; optional; default 100. Maximum number of shipments to return." in shipments
    contaminants = section(render_manual(waste), "contaminants_list")
    assert "  - shipment_ids: list of strings; optional." in contaminants


def test_required_parameters_and_tools_without_descriptions_of_returns():
    manual = render_manual(toy_registry())
    visits = section(manual, "visits_list")
    assert "  - site_id: string or list of strings; required. One site id or several." in visits
    assert '  - note: string; optional; default "". Free text' in visits
    assert "Return fields:\n  - data: list of objects {id: string, city: string}" in visits


def test_a_tool_without_parameters_or_return_type():
    registry = ToolRegistry()

    @registry.register(group="misc")
    def ping():
        """Check that the tools answer."""
        return "pong"

    text = render_manual(registry)
    assert "### ping\nCheck that the tools answer.\nGroup: misc\nEffects: unknown (may write)\nParameters: none\nReturns: not described" in text
    assert text.startswith("Functions manual: 1 tool.")


def test_the_manual_follows_the_registry_and_is_deterministic(waste, tmp_path):
    again = build_registry(Settings(data_dir=tmp_path / "other", today=TODAY), groups=["waste"])
    assert render_manual(waste) == render_manual(again) == render_manual(waste)

    @waste.register(group="extra")
    def weigh(kg: float, unit: str = "t") -> float:
        """Convert a weight.

        Args:
            kg: Weight in kilograms.
            unit: Target unit.

        Returns:
            The weight in the target unit.
        """
        return kg / 1000

    manual = render_manual(waste)
    assert manual.startswith("Functions manual: 5 tools.")
    assert ("### weigh\nConvert a weight.\nGroup: extra\nEffects: unknown (may write)\nParameters:\n"
            "  - kg: number; required. Weight in kilograms.\n"
            '  - unit: string; optional; default "t". Target unit.\n'
            "Returns: The weight in the target unit.\nReturn value: number") in manual
