"""The Teams AI "list bot" actions as tools: named lists of items, kept in SQLite.

As in the Teams sample, adding to a list that does not exist yet creates it, and
creating a list that exists leaves it as it is. List names match without regard to case
or surrounding spaces ("Groceries" and " groceries" are one list); a list keeps the
spelling it was created with. Asking for a list or an item that is not there is an
error that names what is missing and what exists, so the step fails with that message.
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from typing_extensions import TypedDict

from core import ADDITIVE, DESTRUCTIVE, IDEMPOTENT, READ_ONLY, NonBlank, Settings, ToolRegistry, private_sqlite

__all__ = ["ListStore", "ListView", "DeletedList", "register"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS lists (
    key TEXT PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS items (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    list_key TEXT NOT NULL REFERENCES lists(key) ON DELETE CASCADE,
    item TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS items_list ON items(list_key);
"""


class ListView(TypedDict):
    list: str
    items: list[str]
    count: int


class DeletedList(TypedDict):
    list: str
    deleted: bool
    count: int


def _clean(value: str, what: str) -> str:
    text = " ".join(value.split())
    if not text:
        raise ValueError(f"{what} must not be empty")
    return text


def _list_name(value: str) -> tuple[str, str]:
    """A list's name as kept, and the key it matches by (case and spaces aside)."""
    name = _clean(value, "list name")
    return name, name.casefold()


class ListStore:
    """Named lists in one SQLite file; every call opens its own connection, so the store
    can be used from several threads and processes at once."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def _connect(self) -> sqlite3.Connection:
        private_sqlite(self.path)  # lists are the user's own: 0600, like the plan store
        conn = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        conn.execute("PRAGMA foreign_keys = ON")
        conn.executescript(_SCHEMA)
        return conn

    def _view(self, conn: sqlite3.Connection, key: str) -> ListView:
        name = conn.execute("SELECT name FROM lists WHERE key = ?", (key,)).fetchone()[0]
        items = [r[0] for r in conn.execute("SELECT item FROM items WHERE list_key = ? ORDER BY id", (key,))]
        return {"list": name, "items": items, "count": len(items)}

    def _require(self, conn: sqlite3.Connection, key: str, name: str) -> None:
        if conn.execute("SELECT 1 FROM lists WHERE key = ?", (key,)).fetchone() is None:
            names = [r[0] for r in conn.execute("SELECT name FROM lists ORDER BY key")]
            known = f"existing lists: {', '.join(names)}" if names else "there are no lists yet"
            raise ValueError(f"there is no list named {name!r} ({known})")

    @contextmanager
    def _connection(self, *, write: bool = False) -> Iterator[sqlite3.Connection]:
        """A connection for one call; to ``write``, inside one immediate transaction, committed
        when the block ends normally (closing without COMMIT rolls back)."""
        conn = self._connect()
        try:
            if write:
                conn.execute("BEGIN IMMEDIATE")
            yield conn
            if write:
                conn.execute("COMMIT")
        finally:
            conn.close()

    def names(self) -> list[str]:
        with self._connection() as conn:
            return [r[0] for r in conn.execute("SELECT name FROM lists ORDER BY key")]

    def create(self, name: str) -> ListView:
        return self.add(name, None)

    def add(self, name: str, item: str | None) -> ListView:
        """The list ``name`` after ``item`` is added to its end (none: only made if it is new)."""
        name, key = _list_name(name)
        item = None if item is None else _clean(item, "item")
        with self._connection(write=True) as conn:
            conn.execute("INSERT OR IGNORE INTO lists (key, name) VALUES (?, ?)", (key, name))
            if item is not None:
                conn.execute("INSERT INTO items (list_key, item) VALUES (?, ?)", (key, item))
            return self._view(conn, key)

    def remove(self, name: str, item: str) -> ListView:
        name, key = _list_name(name)
        item = _clean(item, "item")
        with self._connection(write=True) as conn:
            self._require(conn, key, name)
            rows = conn.execute("SELECT id, item FROM items WHERE list_key = ? ORDER BY id", (key,)).fetchall()
            # Exact spelling first; failing that, the first item equal but for case.
            match = next((i for i, text in rows if text == item), None)
            if match is None:
                match = next((i for i, text in rows if text.casefold() == item.casefold()), None)
            if match is None:
                view = self._view(conn, key)
                held = ", ".join(repr(i) for i in view["items"]) or "nothing"
                raise ValueError(f"list {view['list']!r} has no item {item!r} (it holds {held})")
            conn.execute("DELETE FROM items WHERE id = ?", (match,))
            return self._view(conn, key)

    def show(self, name: str) -> ListView:
        name, key = _list_name(name)
        with self._connection() as conn:
            self._require(conn, key, name)
            return self._view(conn, key)

    def delete(self, name: str) -> DeletedList:
        name, key = _list_name(name)
        with self._connection(write=True) as conn:
            self._require(conn, key, name)
            view = self._view(conn, key)
            conn.execute("DELETE FROM lists WHERE key = ?", (key,))
            return {"list": view["list"], "deleted": True, "count": view["count"]}


def register(registry: ToolRegistry, settings: Settings) -> None:
    store = ListStore(Path(settings.data_dir) / "lists.sqlite3")

    def createList(list: NonBlank) -> ListView:
        """Create a new, empty named list; a list that already exists is left as it is.

        Args:
            list: Name of the list, e.g. groceries or to-do.

        Returns:
            {"list": name, "items": [item], "count": N}: the list after the call.
        """
        return store.create(list)

    def addItem(list: NonBlank, item: NonBlank) -> ListView:
        """Add an item to the end of a named list, creating the list if it does not exist.

        Args:
            list: Name of the list to add to.
            item: The item to add, e.g. milk.

        Returns:
            {"list": name, "items": [item], "count": N}: the list after the item was added.
        """
        return store.add(list, item)

    def removeItem(list: NonBlank, item: NonBlank) -> ListView:
        """Remove an item from a named list; fails if the list or the item is not there.

        Args:
            list: Name of the list to remove from.
            item: The item to remove (case does not matter); the first match is removed.

        Returns:
            {"list": name, "items": [item], "count": N}: the list after the item was removed.
        """
        return store.remove(list, item)

    def showList(list: NonBlank) -> ListView:
        """Show the items of a named list, in the order they were added.

        Args:
            list: Name of the list to show.

        Returns:
            {"list": name, "items": [item], "count": N}.
        """
        return store.show(list)

    def deleteList(list: NonBlank) -> DeletedList:
        """Delete a named list and all of its items; fails if there is no such list.

        Args:
            list: Name of the list to delete.

        Returns:
            {"list": name, "deleted": true, "count": N} where N is how many items it held.
        """
        return store.delete(list)

    # What each call does to the stored lists: an executor may repeat or parallelise by it.
    effects = {createList: IDEMPOTENT, addItem: ADDITIVE, removeItem: DESTRUCTIVE, showList: READ_ONLY,
               deleteList: DESTRUCTIVE}
    for func, said in effects.items():
        registry.register(func, group="lists", effects=said)
