"""The Teams AI list-bot tools and the SAY tool."""

from __future__ import annotations

import datetime as dt
import sqlite3
import threading
from pathlib import Path

import pytest

import core
from core import Settings, ToolArgumentsError, ToolExecutionError
from tools import build_registry
from tools.lists import ListStore

LIST_TOOLS = ["createList", "addItem", "removeItem", "showList", "deleteList"]


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path, today=dt.date(2025, 10, 12))


@pytest.fixture
def registry(settings: Settings) -> core.ToolRegistry:
    return build_registry(settings, groups=["lists", "conversation"])


def call(registry: core.ToolRegistry, tool: str, **args: str) -> dict:
    return registry.get(tool).call(args)


def test_groups_and_schemas(registry: core.ToolRegistry) -> None:
    assert sorted(registry.names()) == sorted(LIST_TOOLS + ["say"])
    for name in LIST_TOOLS:
        tool = registry.get(name)
        assert tool.group == "lists"
        assert tool.description and tool.returns_description
        assert "list" in tool.required
        for prop in tool.parameters["properties"].values():
            assert prop["type"] == "string" and prop["description"]
    assert registry.get("addItem").required == ["list", "item"]
    assert registry.get("removeItem").required == ["list", "item"]
    assert list(registry.get("showList").returns["properties"]) == ["list", "items", "count"]


def test_create_add_show(registry: core.ToolRegistry) -> None:
    assert call(registry, "createList", list="Groceries") == {"list": "Groceries", "items": [], "count": 0}
    call(registry, "addItem", list="Groceries", item="milk")
    call(registry, "addItem", list="Groceries", item="eggs")
    shown = call(registry, "showList", list="Groceries")
    assert shown == {"list": "Groceries", "items": ["milk", "eggs"], "count": 2}


def test_creating_an_existing_list_keeps_it(registry: core.ToolRegistry) -> None:
    call(registry, "addItem", list="todo", item="call Anna")
    again = call(registry, "createList", list="TODO")
    assert again == {"list": "todo", "items": ["call Anna"], "count": 1}


def test_adding_to_a_missing_list_creates_it(registry: core.ToolRegistry) -> None:
    added = call(registry, "addItem", list="Hardware", item="screws")
    assert added == {"list": "Hardware", "items": ["screws"], "count": 1}
    assert call(registry, "showList", list="hardware")["items"] == ["screws"]


def test_names_ignore_case_and_spacing(registry: core.ToolRegistry) -> None:
    call(registry, "addItem", list="Groceries", item="milk")
    call(registry, "addItem", list="  groceries ", item="bread")
    assert call(registry, "showList", list="GROCERIES") == {
        "list": "Groceries", "items": ["milk", "bread"], "count": 2}


def test_duplicates_stay_and_remove_takes_the_first(registry: core.ToolRegistry) -> None:
    for item in ("milk", "eggs", "milk"):
        call(registry, "addItem", list="g", item=item)
    assert call(registry, "removeItem", list="g", item="Milk")["items"] == ["eggs", "milk"]
    assert call(registry, "removeItem", list="g", item="milk")["items"] == ["eggs"]


def test_remove_prefers_the_exact_spelling(registry: core.ToolRegistry) -> None:
    call(registry, "addItem", list="g", item="Apples")
    call(registry, "addItem", list="g", item="apples")
    assert call(registry, "removeItem", list="g", item="apples")["items"] == ["Apples"]


def test_removing_a_missing_item_fails_with_a_clear_message(registry: core.ToolRegistry) -> None:
    call(registry, "addItem", list="Groceries", item="milk")
    with pytest.raises(ToolExecutionError) as err:
        call(registry, "removeItem", list="Groceries", item="bread")
    message = str(err.value)
    assert "removeItem" in message and "'Groceries'" in message and "'bread'" in message
    assert "'milk'" in message
    assert call(registry, "showList", list="Groceries")["items"] == ["milk"]  # nothing changed


def test_missing_lists_are_named_with_the_ones_that_exist(registry: core.ToolRegistry) -> None:
    with pytest.raises(ToolExecutionError, match="no list named 'chores'.*no lists yet"):
        call(registry, "showList", list="chores")
    call(registry, "createList", list="Groceries")
    call(registry, "createList", list="Books")
    with pytest.raises(ToolExecutionError, match="existing lists: Books, Groceries"):
        call(registry, "removeItem", list="chores", item="dishes")
    with pytest.raises(ToolExecutionError, match="no list named 'chores'"):
        call(registry, "deleteList", list="chores")


def test_delete_list(registry: core.ToolRegistry) -> None:
    call(registry, "addItem", list="Groceries", item="milk")
    call(registry, "addItem", list="Groceries", item="eggs")
    assert call(registry, "deleteList", list="groceries") == {"list": "Groceries", "deleted": True, "count": 2}
    with pytest.raises(ToolExecutionError, match="no list named"):
        call(registry, "showList", list="Groceries")
    # A list created again under the same name starts empty: the old items went with it.
    assert call(registry, "createList", list="Groceries")["count"] == 0


def test_empty_names_and_items_are_refused(registry: core.ToolRegistry, tmp_path: Path) -> None:
    # The schema says "not blank", so the arguments are refused before the tool runs...
    with pytest.raises(ToolArgumentsError, match="list: must not be blank"):
        call(registry, "createList", list="   ")
    with pytest.raises(ToolArgumentsError, match="item: must not be blank"):
        call(registry, "addItem", list="Groceries", item="")
    # ...and the store refuses them too, for callers that do not go through a tool.
    with pytest.raises(ValueError, match="list name must not be empty"):
        ListStore(tmp_path / "lists.sqlite3").create("   ")
    with pytest.raises(ValueError, match="item must not be empty"):
        ListStore(tmp_path / "lists.sqlite3").add("Groceries", " ")
    with pytest.raises(ToolArgumentsError, match="item"):
        call(registry, "addItem", list="Groceries")


def test_lists_persist_in_the_data_dir(settings: Settings, tmp_path: Path) -> None:
    first = build_registry(settings, groups=["lists"])
    call(first, "addItem", list="Groceries", item="milk")
    second = build_registry(Settings(data_dir=settings.data_dir), groups=["lists"])
    assert call(second, "showList", list="Groceries")["items"] == ["milk"]
    assert (settings.data_dir / "lists.sqlite3").exists()
    conn = sqlite3.connect(settings.data_dir / "lists.sqlite3")
    assert conn.execute("SELECT item FROM items").fetchall() == [("milk",)]
    conn.close()
    elsewhere = build_registry(Settings(data_dir=tmp_path / "other"), groups=["lists"])
    with pytest.raises(ToolExecutionError):
        call(elsewhere, "showList", list="Groceries")


def test_concurrent_adds_lose_nothing(tmp_path: Path) -> None:
    store = ListStore(tmp_path / "lists.sqlite3")
    errors: list[BaseException] = []

    def add_many(worker: int) -> None:
        try:
            for n in range(20):
                store.add("shared", f"item {worker}-{n}")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=add_many, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    shown = store.show("shared")
    assert shown["count"] == 80 and len(set(shown["items"])) == 80
    assert store.names() == ["shared"]


# --------------------------------------------------------------------------- SAY

def test_say(registry: core.ToolRegistry) -> None:
    tool = registry.get("say")
    assert tool.group == "conversation"
    assert tool.description.startswith("Say something to the user")
    assert tool.required == ["message"]
    assert tool.parameters["properties"]["message"]["description"]
    assert tool.call({"message": "Your list has 2 items."}) == {"message": "Your list has 2 items."}
    # An empty SAY is a Teams AI plan's to make (it says nothing); citations come with the message.
    assert tool.call({"message": ""}) == {"message": ""}
    cited = [{"title": "Guide", "url": "https://example.org/g"}]
    assert tool.call({"message": "See [1].", "citations": cited}) == {"message": "See [1].", "citations": cited}
    with pytest.raises(ToolArgumentsError, match="message"):
        tool.call({})
