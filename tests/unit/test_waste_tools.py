"""The demo domain: generated data, the four tools, and their agreement with demo-domain.md."""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import core
from core import Settings, ToolArgumentsError, ToolExecutionError
from core.plan._path_schemas import check_path
from core.plan._references import parse_reference, resolve_params
from tools import build_registry
from tools.waste import WasteData, generate_database
from tools.waste._data import (CARRIERS, CATEGORIES, CITIES, FACILITY_TYPES, HISTORY_DAYS,
                               INSPECTION_RESULTS, RISK_LEVELS, SHIPMENT_STATUSES)

TODAY = dt.date(2025, 10, 12)
ALL = 100_000
_REPO = Path(__file__).resolve().parents[2]
DOMAIN_DOC = _REPO / "docs" / "demo-domain.md"


def days_ago(n: int) -> dt.date:
    return TODAY - dt.timedelta(days=n)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("waste")


@pytest.fixture(scope="module")
def settings(data_dir: Path) -> Settings:
    return Settings(data_dir=data_dir, today=TODAY)


@pytest.fixture(scope="module")
def waste(settings: Settings) -> WasteData:
    return WasteData.for_settings(settings)


@pytest.fixture(scope="module")
def registry(settings: Settings) -> core.ToolRegistry:
    return build_registry(settings, groups=["waste"])


@pytest.fixture(scope="module")
def everything(waste: WasteData) -> dict[str, list[dict[str, Any]]]:
    return {"facilities": waste.facilities(limit=ALL)["data"],
            "shipments": waste.shipments(limit=ALL)["data"],
            "contaminants": waste.contaminants(limit=ALL)["data"],
            "inspections": waste.inspections(limit=ALL)["data"]}


def ids(result: dict[str, Any]) -> list[str]:
    return [row["id"] for row in result["data"]]


# --------------------------------------------------------------------------- the contract

def contract_table() -> dict[str, dict[str, Any]]:
    """The tools table of demo-domain.md: {tool: {"params": {name: [values]}, "fields": [...]}}."""
    tools: dict[str, dict[str, Any]] = {}
    for line in DOMAIN_DOC.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^\|\s*`(\w+_list)`\s*\|(.*)\|(.*)\|\s*$", line)
        if not m:
            continue
        name, params_text, returns_text = m.groups()
        params: dict[str, list[str]] = {}
        # "`a`, `b` (x, y)": the parenthesis after a name belongs to that name.
        for pm in re.finditer(r"`(\w+)`\s*(?:\(([^)]*)\))?", params_text):
            params[pm.group(1)] = [v.strip() for v in (pm.group(2) or "").split(",") if v.strip()]
        fields = [f.strip() for f in re.search(r"\{([^}]*)\}", returns_text).group(1).split(",")]
        tools[name] = {"params": params, "fields": fields}
    return tools


CONTRACT = contract_table()


def test_contract_table_was_found() -> None:
    assert set(CONTRACT) == {"facilities_list", "shipments_list", "contaminants_list", "inspections_list"}
    assert CONTRACT["shipments_list"]["fields"][0] == "id"


@pytest.mark.parametrize("tool_name", sorted(CONTRACT))
def test_tool_parameters_match_the_contract(registry: core.ToolRegistry, tool_name: str) -> None:
    tool = registry.get(tool_name)
    documented = CONTRACT[tool_name]["params"]
    assert set(tool.param_names) == set(documented)
    assert tool.required == []  # every parameter is optional
    for name, prop in tool.parameters["properties"].items():
        assert prop.get("description"), f"{tool_name}.{name} has no description"
        enums = [o["enum"] for o in prop.get("anyOf", [prop]) if "enum" in o]
        if enums:  # where the code has a closed set of values, the doc lists exactly those
            assert set(enums[0]) == set(DOCUMENTED_VALUES[name]), f"{tool_name}.{name}"


def documented_values() -> dict[str, list[str]]:
    """Allowed values by parameter name; the table lists them where a name first appears."""
    values: dict[str, list[str]] = {}
    for tool in CONTRACT.values():
        for name, listed in tool["params"].items():
            if len(listed) > 1 and name not in values:
                values[name] = listed
    return values


DOCUMENTED_VALUES = documented_values()


def test_documented_value_lists_were_found() -> None:
    assert DOCUMENTED_VALUES["status"] == list(SHIPMENT_STATUSES)
    assert set(DOCUMENTED_VALUES) >= {"type", "status", "risk_level", "category", "result"}


@pytest.mark.parametrize("tool_name", sorted(CONTRACT))
def test_rows_have_exactly_the_contract_fields(registry: core.ToolRegistry, tool_name: str) -> None:
    fields = CONTRACT[tool_name]["fields"]
    result = registry.get(tool_name).call({"limit": 5})
    assert set(result) == {"data", "count"}
    assert result["count"] == len(result["data"]) == 5
    for row in result["data"]:
        assert list(row) == fields
    returns = registry.get(tool_name).returns
    row_schema = returns["properties"]["data"]["items"]
    if "$ref" in row_schema:
        row_schema = returns["$defs"][row_schema["$ref"].rsplit("/", 1)[-1]]
    assert list(row_schema["properties"]) == fields


def test_field_types(everything: dict[str, list[dict[str, Any]]]) -> None:
    for row in everything["facilities"]:
        assert isinstance(row["capacity_tonnes"], float) and row["capacity_tonnes"] > 0
        assert isinstance(row["utilization"], float) and 0 < row["utilization"] < 1
    for row in everything["shipments"]:
        assert isinstance(row["has_contaminants"], bool)
        assert isinstance(row["weight_kg"], float) and row["weight_kg"] > 0
        dt.date.fromisoformat(row["date"])
    id_formats = {"facilities": r"F\d{3}", "shipments": r"S\d{5}", "contaminants": r"C\d{4}",
                  "inspections": r"I\d{4}"}
    for table, pattern in id_formats.items():
        assert all(re.fullmatch(pattern, row["id"]) for row in everything[table]), table


# --------------------------------------------------------------------------- the data

def dump(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def test_same_today_and_seed_give_identical_data(tmp_path: Path) -> None:
    generate_database(tmp_path / "a.sqlite3", TODAY)
    generate_database(tmp_path / "b.sqlite3", TODAY)
    generate_database(tmp_path / "other-seed.sqlite3", TODAY, seed=8)
    assert dump(tmp_path / "a.sqlite3") == dump(tmp_path / "b.sqlite3")
    assert (tmp_path / "a.sqlite3").read_bytes() == (tmp_path / "b.sqlite3").read_bytes()
    assert dump(tmp_path / "a.sqlite3") != dump(tmp_path / "other-seed.sqlite3")
    a = WasteData(tmp_path / "x", TODAY)
    b = WasteData(tmp_path / "y", TODAY)
    assert a.shipments(limit=ALL) == b.shipments(limit=ALL)
    assert a.contaminants(limit=ALL) == b.contaminants(limit=ALL)


def test_generation_leaves_no_temporary_files_and_replaces_an_existing_file(tmp_path: Path) -> None:
    target = tmp_path / "demo.sqlite3"
    target.write_text("not a database")
    generate_database(target, TODAY)
    assert [p.name for p in tmp_path.iterdir()] == ["demo.sqlite3"]
    assert dump(target)[0].startswith("BEGIN")
    assert any("INSERT INTO \"shipments\"" in line for line in dump(target))


def test_sizes_and_vocabulary(everything: dict[str, list[dict[str, Any]]]) -> None:
    facilities, shipments = everything["facilities"], everything["shipments"]
    assert 18 <= len(facilities) <= 22
    assert 520 <= len(shipments) <= 680
    assert 120 <= len(everything["inspections"]) <= 180
    contaminated = [s for s in shipments if s["has_contaminants"]]
    assert 0.10 <= len(contaminated) / len(shipments) <= 0.20
    assert {f["location"] for f in facilities} == set(CITIES)
    assert {f["type"] for f in facilities} == set(FACILITY_TYPES)
    assert {s["carrier"] for s in shipments} == set(CARRIERS)
    assert {s["status"] for s in shipments} == set(SHIPMENT_STATUSES)
    assert {c["category"] for c in everything["contaminants"]} == set(CATEGORIES)
    assert {c["risk_level"] for c in everything["contaminants"]} == set(RISK_LEVELS)
    assert {i["result"] for i in everything["inspections"]} == set(INSPECTION_RESULTS)
    assert {s["date"] for s in shipments} == {days_ago(n).isoformat() for n in range(HISTORY_DAYS)}


def test_facilities_per_city_and_near_capacity(everything: dict[str, list[dict[str, Any]]]) -> None:
    per_city = Counter(f["location"] for f in everything["facilities"])
    assert min(per_city.values()) >= 2
    assert per_city["Berlin"] >= 3 and per_city["Hannover"] >= 3
    near = [f for f in everything["facilities"] if f["utilization"] >= 0.9]
    assert len(near) >= 4
    assert {"Berlin", "Hannover"} <= {f["location"] for f in near}


def test_contaminants_agree_with_their_shipments(everything: dict[str, list[dict[str, Any]]]) -> None:
    shipments = {s["id"]: s for s in everything["shipments"]}
    found: dict[str, list[str]] = {}
    for c in everything["contaminants"]:
        shipment = shipments[c["shipment_id"]]
        assert c["date"] == shipment["date"]
        assert c["facility_id"] == shipment["facility_id"]
        found.setdefault(c["shipment_id"], []).append(c["risk_level"])
    for s in shipments.values():
        assert s["has_contaminants"] == (s["id"] in found)
        worst = max(found.get(s["id"], ["low"]), key=RISK_LEVELS.index)
        assert s["risk_level"] == worst
    facilities = {f["id"]: f for f in everything["facilities"]}
    assert all(s["destination"] == facilities[s["facility_id"]]["location"] for s in shipments.values())


def test_today_yesterday_and_last_week_have_rows(waste: WasteData) -> None:
    for n in range(8):
        day = days_ago(n)
        assert waste.shipments(date_from=day, date_to=day)["count"] > 0, day
        assert waste.inspections(date_from=day, date_to=day)["count"] > 0, day
    today_contaminants = waste.contaminants(date_from=TODAY, date_to=TODAY)
    hannover = ids(waste.facilities(location="Hannover"))
    at_hannover = waste.contaminants(facility_id=hannover, date_from=TODAY, date_to=TODAY)
    assert at_hannover["count"] > 0
    assert today_contaminants["count"] > at_hannover["count"]
    assert waste.shipments(has_contaminants=True, status="rejected")["count"] > 0


def test_today_override_shifts_the_dates(tmp_path: Path) -> None:
    other_day = dt.date(2024, 2, 29)
    shifted = WasteData.for_settings(Settings.from_env(data_dir=tmp_path, today=other_day.isoformat()))
    assert shifted.today == other_day
    assert shifted.path == tmp_path / "demo-waste-2024-02-29.sqlite3" and shifted.path.exists()
    base = WasteData.for_settings(Settings(data_dir=tmp_path, today=TODAY))
    assert base.path != shifted.path
    moved, original = shifted.shipments(limit=ALL)["data"], base.shipments(limit=ALL)["data"]
    assert moved[0]["date"] == other_day.isoformat()
    assert min(s["date"] for s in moved) == (other_day - dt.timedelta(days=HISTORY_DAYS - 1)).isoformat()
    delta = TODAY - other_day
    assert len(moved) == len(original)
    for a, b in zip(moved, original):
        assert dt.date.fromisoformat(a["date"]) + delta == dt.date.fromisoformat(b["date"])
        assert {k: v for k, v in a.items() if k != "date"} == {k: v for k, v in b.items() if k != "date"}


def test_unpinned_today_follows_the_clock(tmp_path: Path) -> None:
    clock = [TODAY]
    data = WasteData(tmp_path, lambda: clock[0])
    assert data.shipments(limit=1)["data"][0]["date"] == TODAY.isoformat()
    clock[0] = TODAY + dt.timedelta(days=1)
    assert data.shipments(limit=1)["data"][0]["date"] == clock[0].isoformat()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "demo-waste-2025-10-12.sqlite3", "demo-waste-2025-10-13.sqlite3"]


# --------------------------------------------------------------------------- the filters

def expect(rows: list[dict[str, Any]], **conditions: Any) -> list[str]:
    """Ids of ``rows`` that meet every condition, worked out in Python from all rows."""
    def ok(row: dict[str, Any]) -> bool:
        for key, want in conditions.items():
            if key == "date_from" and row["date"] < want.isoformat():
                return False
            if key == "date_to" and row["date"] > want.isoformat():
                return False
            if key == "near_capacity" and (row["utilization"] >= 0.9) != want:
                return False
            if key == "facility_ids" and row["facility_id"] not in want:
                return False
            if key == "shipment_ids" and row["shipment_id"] not in want:
                return False
            if key == "location_ci" and row["location"].lower() != want.lower():
                return False
            if key not in ("date_from", "date_to", "near_capacity", "facility_ids", "shipment_ids",
                           "location_ci") and row[key] != want:
                return False
        return True
    return [r["id"] for r in rows if ok(r)]


def test_facility_filters(waste: WasteData, everything: dict[str, list[dict[str, Any]]]) -> None:
    rows = everything["facilities"]
    assert ids(waste.facilities(location="Berlin")) == expect(rows, location="Berlin")
    assert ids(waste.facilities(location="hannover ")) == expect(rows, location="Hannover")
    assert ids(waste.facilities(location="HANNOVER")) == ids(waste.facilities(location="Hannover"))
    assert waste.facilities(location="Paris")["count"] == 0
    for kind in FACILITY_TYPES:
        assert ids(waste.facilities(type=kind)) == expect(rows, type=kind) != []
    near, not_near = ids(waste.facilities(near_capacity=True)), ids(waste.facilities(near_capacity=False))
    assert near == expect(rows, near_capacity=True) and not_near == expect(rows, near_capacity=False)
    assert sorted(near + not_near) == sorted(r["id"] for r in rows)
    assert ids(waste.facilities(location="Berlin", near_capacity=True)) == expect(
        rows, location="Berlin", near_capacity=True) != []
    assert waste.facilities(limit=3)["count"] == 3


def test_shipment_date_ranges_are_inclusive(waste: WasteData, everything: dict[str, list[dict[str, Any]]]) -> None:
    rows = everything["shipments"]
    start, end = days_ago(7), TODAY
    got = waste.shipments(date_from=start, date_to=end, limit=ALL)
    assert ids(got) == expect(rows, date_from=start, date_to=end)
    assert {r["date"] for r in got["data"]} == {days_ago(n).isoformat() for n in range(8)}
    assert ids(waste.shipments(date_from=days_ago(3), limit=ALL)) == expect(rows, date_from=days_ago(3))
    assert ids(waste.shipments(date_to=days_ago(80), limit=ALL)) == expect(rows, date_to=days_ago(80))
    assert waste.shipments(date_from=TODAY + dt.timedelta(days=1))["count"] == 0
    assert waste.shipments(date_from=TODAY, date_to=days_ago(1))["count"] == 0


@pytest.mark.parametrize("condition", [
    {"status": "rejected"}, {"status": "pending"}, {"status": "in_transit"}, {"status": "delivered"},
    {"has_contaminants": True}, {"has_contaminants": False},
    {"destination": "Hannover"}, {"carrier": "CityCart"}, {"risk_level": "high"},
    {"risk_level": "medium"}, {"has_contaminants": True, "status": "rejected"},
])
def test_shipment_filters(waste: WasteData, everything: dict[str, list[dict[str, Any]]],
                          condition: dict[str, Any]) -> None:
    expected = expect(everything["shipments"], **condition)
    assert expected, "the demo data should have rows for every filter value"
    assert ids(waste.shipments(limit=ALL, **condition)) == expected


def test_shipment_text_filters_ignore_case(waste: WasteData) -> None:
    assert ids(waste.shipments(destination="munich", limit=ALL)) == ids(waste.shipments(destination="Munich", limit=ALL))
    assert ids(waste.shipments(carrier="ecohaul", limit=ALL)) == ids(waste.shipments(carrier="EcoHaul", limit=ALL))
    assert waste.shipments(carrier="NoSuchCarrier")["count"] == 0


def test_facility_id_takes_one_id_or_a_list(waste: WasteData, everything: dict[str, list[dict[str, Any]]]) -> None:
    shipments, contaminants = everything["shipments"], everything["contaminants"]
    one = waste.shipments(facility_id="F002", limit=ALL)
    assert ids(one) == expect(shipments, facility_id="F002") != []
    pair = waste.shipments(facility_id=["F002", "F005"], limit=ALL)
    assert ids(pair) == expect(shipments, facility_ids={"F002", "F005"})
    assert {r["facility_id"] for r in pair["data"]} == {"F002", "F005"}
    assert waste.shipments(facility_id=[], limit=ALL)["count"] == 0  # no facilities, no shipments
    assert ids(waste.contaminants(facility_id="F005", limit=ALL)) == expect(contaminants, facility_id="F005")
    assert ids(waste.inspections(facility_id=["F001", "F003"], limit=ALL)) == expect(
        everything["inspections"], facility_ids={"F001", "F003"})


def test_contaminant_filters(waste: WasteData, everything: dict[str, list[dict[str, Any]]]) -> None:
    rows = everything["contaminants"]
    wanted = [s["id"] for s in everything["shipments"] if s["has_contaminants"]][:5]
    got = waste.contaminants(shipment_ids=wanted, limit=ALL)
    assert ids(got) == expect(rows, shipment_ids=set(wanted))
    assert {r["shipment_id"] for r in got["data"]} == set(wanted)
    assert waste.contaminants(shipment_ids=[])["count"] == 0
    for category in CATEGORIES:
        assert ids(waste.contaminants(category=category, limit=ALL)) == expect(rows, category=category)
    for risk in RISK_LEVELS:
        assert ids(waste.contaminants(risk_level=risk, limit=ALL)) == expect(rows, risk_level=risk)
    assert ids(waste.contaminants(date_from=days_ago(30), date_to=TODAY, limit=ALL)) == expect(
        rows, date_from=days_ago(30), date_to=TODAY)
    assert ids(waste.contaminants(category="hazardous", risk_level="high", limit=ALL)) == expect(
        rows, category="hazardous", risk_level="high") != []


def test_inspection_filters(waste: WasteData, everything: dict[str, list[dict[str, Any]]]) -> None:
    rows = everything["inspections"]
    for result in INSPECTION_RESULTS:
        assert ids(waste.inspections(result=result, limit=ALL)) == expect(rows, result=result) != []
    monday = TODAY - dt.timedelta(days=TODAY.weekday())
    assert ids(waste.inspections(date_from=monday, date_to=TODAY, limit=ALL)) == expect(
        rows, date_from=monday, date_to=TODAY) != []


def test_limit_and_newest_first(waste: WasteData) -> None:
    for method in (waste.shipments, waste.contaminants, waste.inspections):
        everything = method(limit=ALL)["data"]
        dates = [r["date"] for r in everything]
        assert dates == sorted(dates, reverse=True)
        first = method(limit=7)
        assert first["count"] == 7 and first["data"] == everything[:7]
        assert method()["count"] == min(100, len(everything))
        with pytest.raises(ValueError, match="limit"):
            method(limit=0)


def test_bad_values_are_named(waste: WasteData) -> None:
    with pytest.raises(ValueError, match="type 'dump'"):
        waste.facilities(type="dump")
    with pytest.raises(ValueError, match="date_from"):
        waste.shipments(date_from="last tuesday")
    with pytest.raises(ValueError, match="facility_id"):
        waste.shipments(facility_id=[1, 2])


# --------------------------------------------------------------------------- through the registry

def test_tools_take_iso_strings_and_check_arguments(registry: core.ToolRegistry, waste: WasteData) -> None:
    tool = registry.get("shipments_list")
    got = tool.call({"date_from": days_ago(7).isoformat(), "date_to": TODAY.isoformat(), "limit": 100})
    assert got == waste.shipments(date_from=days_ago(7), date_to=TODAY)
    with pytest.raises(ToolArgumentsError, match="status"):
        tool.call({"status": "lost"})
    with pytest.raises(ToolArgumentsError, match="date_from"):
        tool.call({"date_from": "2025-13-45"})
    with pytest.raises(ToolArgumentsError, match="colour"):
        tool.call({"colour": "red"})
    # The schema's bound refuses the call before the query would.
    with pytest.raises(ToolArgumentsError, match="limit: must be at least 1"):
        tool.call({"limit": -1})
    with pytest.raises(ValueError, match="limit must be a whole number of at least 1"):
        waste.shipments(limit=0)
    assert tool.call({"limit": 10**30})["count"] == waste.shipments(limit=ALL)["count"]


def test_a_chain_of_steps_by_reference(registry: core.ToolRegistry, waste: WasteData) -> None:
    facilities = registry.get("facilities_list").call({"location": "Hannover"})
    params = resolve_params({"facility_id": "${steps.f.data.*.id}", "date_from": TODAY.isoformat(),
                             "date_to": TODAY.isoformat()}, {"f": facilities})
    found = registry.get("contaminants_list").call(params)
    assert found["count"] > 0
    assert {r["facility_id"] for r in found["data"]} <= set(ids(facilities))
    assert found == waste.contaminants(facility_id=ids(facilities), date_from=TODAY, date_to=TODAY)


@pytest.mark.parametrize("tool_name", sorted(CONTRACT))
def test_returns_schema_allows_the_id_reference(registry: core.ToolRegistry, tool_name: str) -> None:
    returns = registry.get(tool_name).returns
    assert check_path(returns, parse_reference("${steps.s0.data.*.id}").path) is None
    assert check_path(returns, parse_reference("${steps.s0.count}").path) is None
    assert "no field 'colour'" in check_path(returns, parse_reference("${steps.s0.data.*.colour}").path)
