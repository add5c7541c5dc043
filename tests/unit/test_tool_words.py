"""The words a tool group teaches the embedded planner come from that group, through the
same ``register(registry, settings)`` hook built-in groups and plugins use (issue 16, item 8).

A registry without the demo tools plans with no demo words: no city is a place, no waste
phrase is a filter. A third-party group hands its own place names the same way ``tools/waste``
hands the demo cities.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Literal

import pytest

from core import Settings, ToolRegistry
from core.planners import EmbeddedPlanner
from core.planners.embedded._parse import parse
from tools import build_registry, load_python_source

T = dt.date(2025, 10, 12)

# A third-party tool with a place parameter, as a plugin would write it; its description names no place.
SITES_TOOL = '''
from typing import Literal

def sites_list(city: str | None = None, kind: Literal["park", "landfill"] | None = None,
               status: Literal["open", "in_transit"] | None = None, carrier: str | None = None,
               limit: int = 100) -> dict:
    """List sites.

    Args:
        city: City the site is in.
        kind: Kind of site.
        status: Site status.
        carrier: Who runs it.
        limit: Maximum number of sites to return.
    """
    return {"data": [], "count": 0}
'''


def _registry(tmp_path: Path, source: str, groups: list[str]) -> ToolRegistry:
    settings = Settings(data_dir=tmp_path, today=T)
    registry = build_registry(settings, groups=groups)
    path = tmp_path / "sites.py"
    path.write_text(source)
    load_python_source(str(path), registry, settings)
    return registry


def _params(plan) -> list[dict]:
    return [step.params for step in plan.steps]


def test_a_registry_without_the_waste_tools_knows_no_city(tmp_path: Path) -> None:
    registry = _registry(tmp_path, SITES_TOOL, ["lists", "writer"])
    assert "waste" not in registry.groups()
    planner = EmbeddedPlanner(registry)
    assert planner.vocabulary.cities == {}
    plan = planner.plan("sites in Berlin", today=T)
    assert _params(plan) == [{}]
    assert "berlin" in [w.lower() for w in plan.metadata.unread_words]  # type: ignore[attr-defined]


def test_a_registry_without_the_waste_tools_reads_no_waste_phrase(tmp_path: Path) -> None:
    """ "en route" (in_transit), "dumps" (landfill) and "carried by" are the demo domain's
    words for its own parameters; a tool of another group with parameters of the same names
    does not get them."""
    registry = _registry(tmp_path, SITES_TOOL, ["lists", "writer"])
    planner = EmbeddedPlanner(registry)
    parsed = parse("sites en route, dumps carried by Acme in München", planner.vocabulary, T)
    assert [m.filter for m in parsed.mentions if m.filter is not None] == []


# A third-party group that hands its own place names, the way ``tools/waste`` hands the demo cities.
SITES_GROUP = SITES_TOOL + '''

def register(registry, settings):
    from core import ToolWords
    registry.register(sites_list, group="sites")
    registry.add_words("sites", ToolWords(places=("Springfield", "Shelbyville"),
                                          place_spellings={"springfeld": "Springfield"},
                                          name_cues={"carrier": ("run by",)}))
'''


def test_a_third_party_group_hands_its_own_place_names(tmp_path: Path) -> None:
    registry = _registry(tmp_path, SITES_GROUP, ["lists", "writer"])
    planner = EmbeddedPlanner(registry)
    assert planner.plan("sites in springfeld", today=T).steps[0].params == {"city": "Springfield"}
    assert planner.plan("sites run by Acme in Shelbyville", today=T).steps[0].params == {
        "city": "Shelbyville", "carrier": "Acme"}
    assert planner.plan("sites in Berlin", today=T).steps[0].params == {}


def test_the_waste_group_hands_the_demo_cities(tmp_path: Path) -> None:
    registry = build_registry(Settings(data_dir=tmp_path, today=T), groups=["waste"])
    planner = EmbeddedPlanner(registry)
    assert planner.plan("landfills in München", today=T).steps[0].params == {
        "location": "Munich", "type": "landfill"}
    assert planner.plan("facilities in Dresden", today=T).steps[0].params == {"location": "Dresden"}


WASTE_WORDS_IN_MESSAGES = ("berlin", "munich", "leipzig", "hamburg", "hannover", "shipment", "facilit",
                           "contaminant", "inspection", "landfill", "risk", "near capacity", "date")


def _refusal(call) -> str:
    with pytest.raises(Exception) as caught:
        call()
    return str(caught.value).lower()


def test_messages_without_the_waste_tools_give_examples_of_this_registry(tmp_path: Path) -> None:
    """The examples in the planner's refusals come from the tools it plans with."""
    planner = EmbeddedPlanner(_registry(tmp_path, SITES_GROUP, ["lists", "writer"]))
    plan = planner.plan("sites in Springfield", today=T)
    messages = [_refusal(lambda: planner.plan(" ", today=T)),
                _refusal(lambda: planner.plan("the weather", today=T)),
                _refusal(lambda: planner.replan(plan, " ", today=T)),
                _refusal(lambda: planner.replan(plan, "frobnicate the widgets", today=T))]
    for message in messages:
        assert not [w for w in WASTE_WORDS_IN_MESSAGES if w in message], message
    assert "sites" in messages[0] and "sites" in messages[1]
    assert "springfield" in messages[2] or "shelbyville" in messages[2]
    assert "sites" in messages[3]


def test_core_names_no_city_of_the_demo_domain() -> None:
    """The demo cities and their other spellings live in ``tools/waste`` only."""
    from tools.waste._words import WASTE_WORDS

    names = {*(c.lower() for c in WASTE_WORDS.places), *WASTE_WORDS.place_spellings}
    core = Path(__file__).resolve().parents[2] / "core"
    found = [f"{path.relative_to(core.parent)}: {name}" for path in sorted(core.rglob("*.py"))
             for name in sorted(names) if re.search(rf"\b{re.escape(name)}\b", path.read_text().lower())]
    assert found == []


def test_a_registry_with_an_agents_declared_tools_keeps_the_groups_words(tmp_path: Path) -> None:
    """A review's registry (the studio's tools plus the agent's) plans with the same words."""
    from core import ToolDefinition, with_declared_tools

    base = build_registry(Settings(data_dir=tmp_path, today=T), groups=["waste"])
    declared = ToolDefinition(name="notes_list", description="List notes.", input_schema={"type": "object"})
    planner = EmbeddedPlanner(with_declared_tools(base, [declared]))
    assert planner.plan("facilities in Köln", today=T).steps[0].params == {"location": "Cologne"}


def test_add_words_refuses_what_is_not_tool_words() -> None:
    from core import ToolDefinitionError

    with pytest.raises(ToolDefinitionError, match="'sites'.*ToolWords, not dict"):
        ToolRegistry().add_words("sites", {"places": ["Springfield"]})  # type: ignore[arg-type]


@pytest.mark.parametrize("words, where", [
    ({"places": "Springfield"}, "places: give a list of phrases, not the text 'Springfield'"),
    ({"places": ("Springfield", " ")}, "places: ' ' is not a phrase"),
    ({"name_cues": {"carrier": ("run by", 3)}}, "name_cues\\['carrier'\\]: 3 is not a phrase"),
])
def test_tool_words_refuse_what_would_read_every_goal(words: dict, where: str) -> None:
    """A bare string would be read letter by letter, a blank phrase would match anywhere."""
    from core import ToolDefinitionError, ToolWords

    with pytest.raises(ToolDefinitionError, match=where):
        ToolWords(**words)
