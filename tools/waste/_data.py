"""The demo data: a deterministic SQLite database of facilities, shipments, contaminants
and inspections, with dates counted back from "today".

Everything is drawn from one ``random.Random(seed)`` in a fixed order, and every draw
depends on how many days back a row lies, never on the calendar date itself. So the same
seed gives the same data shifted to whatever "today" is: "today", "yesterday" and "last
week" always have rows, and pinning today (``--today``) makes the data reproducible to
the byte.

The guarantees the demo relies on are built in, not left to chance: every city has at
least two facilities, every facility type appears, several facilities (including ones in
Berlin and Hannover) are near capacity, every day has shipments, and today has
contaminated shipments, some of them at Hannover facilities.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import sqlite3
import tempfile
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["WasteData", "generate_database", "DEFAULT_SEED", "CITIES", "FACILITY_TYPES",
           "CARRIERS", "CATEGORIES", "RISK_LEVELS", "SHIPMENT_STATUSES", "INSPECTION_RESULTS",
           "NEAR_CAPACITY", "HISTORY_DAYS"]

DEFAULT_SEED = 7
HISTORY_DAYS = 90  # shipments and inspections lie on today and the 89 days before it
NEAR_CAPACITY = 0.9
_SQLITE_MAX = 2**63 - 1

CITIES = ("Berlin", "Hannover", "Munich", "Hamburg", "Leipzig", "Dresden", "Cologne")
FACILITY_TYPES = ("recycling", "sorting", "composting", "incineration", "landfill")
CARRIERS = ("EcoHaul", "GreenLine", "CityCart", "RiverFreight")
CATEGORIES = ("plastic", "metal", "glass", "hazardous", "organic", "electronic")
RISK_LEVELS = ("low", "medium", "high")
SHIPMENT_STATUSES = ("pending", "in_transit", "delivered", "rejected")
INSPECTION_RESULTS = ("passed", "failed")

# Berlin and Hannover get the most sites: the demo's goals mostly ask about them.
_FACILITIES_PER_CITY = {"Berlin": 4, "Hannover": 4, "Munich": 3, "Hamburg": 3,
                        "Leipzig": 2, "Dresden": 2, "Cologne": 2}
_NEAR_CAPACITY_PER_CITY = {"Berlin": 2, "Hannover": 2, "Munich": 1, "Hamburg": 1}

_DISTRICTS = {
    "Berlin": ["Spandau", "Marzahn", "Neukölln", "Reinickendorf", "Lichtenberg"],
    "Hannover": ["Linden", "Lahe", "Misburg", "Anderten", "Badenstedt"],
    "Munich": ["Freimann", "Riem", "Pasing", "Moosach"],
    "Hamburg": ["Billbrook", "Harburg", "Wilhelmsburg", "Stellingen"],
    "Leipzig": ["Plagwitz", "Engelsdorf", "Lindenau"],
    "Dresden": ["Reick", "Klotzsche", "Pieschen"],
    "Cologne": ["Niehl", "Porz", "Ehrenfeld"],
}
_TYPE_NAMES = {"recycling": "Recycling Plant", "sorting": "Sorting Center",
               "composting": "Composting Site", "incineration": "Waste-to-Energy Plant",
               "landfill": "Landfill"}
# Yearly intake in tonnes, by kind of site.
_CAPACITY_RANGE = {"recycling": (20_000, 90_000), "sorting": (30_000, 120_000),
                   "composting": (8_000, 45_000), "incineration": (150_000, 600_000),
                   "landfill": (200_000, 1_200_000)}

# Some carriers are sloppier than others, so "which carriers have the highest
# contamination rates?" has an answer worth showing.
_CONTAMINATION_RATE = {"EcoHaul": 0.10, "GreenLine": 0.08, "CityCart": 0.22, "RiverFreight": 0.17}

_SUBSTANCES: dict[str, list[tuple[str, str]]] = {
    "plastic": [("PVC film", "medium"), ("Polystyrene foam", "low"), ("Black plastic trays", "low"),
                ("Multilayer food pouches", "low"), ("Agricultural film", "medium")],
    "metal": [("Aerosol cans (pressurised)", "high"), ("Aluminium foil with food residue", "low"),
              ("Steel strapping", "medium"), ("Copper cable offcuts", "low")],
    "glass": [("Ceramic and porcelain shards", "medium"), ("Window glass", "low"),
              ("Heat-resistant cookware glass", "medium"), ("Mirror glass", "low")],
    "hazardous": [("Lithium-ion batteries", "high"), ("Asbestos fragments", "high"),
                  ("Paint solvents", "high"), ("Used motor oil", "medium"),
                  ("Mercury thermometers", "high"), ("Pesticide containers", "high")],
    "organic": [("Food waste in dry recyclables", "low"), ("Garden waste with soil", "low"),
                ("Animal by-products", "medium"), ("Wet cardboard with mould", "low")],
    "electronic": [("Circuit boards", "medium"), ("Fluorescent tubes", "high"),
                   ("Small household appliances", "medium"), ("Mobile phones", "medium"),
                   ("Toner cartridges", "low")],
}
# Batteries and solvents turn up far more often than asbestos in mixed waste.
_CATEGORY_WEIGHTS = {"plastic": 30, "metal": 15, "glass": 12, "hazardous": 18, "organic": 15,
                     "electronic": 10}

_INSPECTORS = ("Anna Becker", "Jonas Weber", "Lena Hoffmann", "Mehmet Yilmaz", "Sofia Richter",
               "Tobias Schulz", "Clara Neumann")
_PASSED_NOTES = ("All permits and intake logs in order.", "Minor housekeeping issues, no action required.",
                 "Fire safety equipment serviced and documented.", "Weighbridge calibration verified.",
                 "Storage areas within permitted limits.", "Staff training records complete.")
_FAILED_NOTES = ("Storage area above permitted capacity.", "Fire extinguishers overdue for service.",
                 "Hazardous waste stored without labels.", "Leachate monitoring records incomplete.",
                 "Intake log missing entries for the past week.", "Dust emissions above permitted level.",
                 "Battery fire risk: lithium-ion cells found in the tipping hall.")

_SCHEMA = """
CREATE TABLE facilities (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, location TEXT NOT NULL, type TEXT NOT NULL,
    capacity_tonnes REAL NOT NULL, utilization REAL NOT NULL);
CREATE TABLE shipments (
    id TEXT PRIMARY KEY, date TEXT NOT NULL, facility_id TEXT NOT NULL REFERENCES facilities(id),
    destination TEXT NOT NULL, carrier TEXT NOT NULL, status TEXT NOT NULL,
    has_contaminants INTEGER NOT NULL, risk_level TEXT NOT NULL, weight_kg REAL NOT NULL);
CREATE TABLE contaminants (
    id TEXT PRIMARY KEY, shipment_id TEXT NOT NULL REFERENCES shipments(id),
    facility_id TEXT NOT NULL REFERENCES facilities(id), date TEXT NOT NULL,
    category TEXT NOT NULL, substance TEXT NOT NULL, risk_level TEXT NOT NULL);
CREATE TABLE inspections (
    id TEXT PRIMARY KEY, facility_id TEXT NOT NULL REFERENCES facilities(id), date TEXT NOT NULL,
    result TEXT NOT NULL, inspector TEXT NOT NULL, notes TEXT NOT NULL);
CREATE INDEX shipments_date ON shipments(date);
CREATE INDEX contaminants_date ON contaminants(date);
CREATE INDEX inspections_date ON inspections(date);
"""

_COLUMNS = {
    "facilities": ("id", "name", "location", "type", "capacity_tonnes", "utilization"),
    "shipments": ("id", "date", "facility_id", "destination", "carrier", "status",
                  "has_contaminants", "risk_level", "weight_kg"),
    "contaminants": ("id", "shipment_id", "facility_id", "date", "category", "substance",
                     "risk_level"),
    "inspections": ("id", "facility_id", "date", "result", "inspector", "notes"),
}

Row = tuple[Any, ...]


# --------------------------------------------------------------------------- generation

def _facilities(rng: random.Random) -> list[Row]:
    types = list(FACILITY_TYPES)
    rng.shuffle(types)
    rows: list[Row] = []
    start = 0  # types run round-robin across cities, so all five appear and no city repeats one
    for city in CITIES:
        count = _FACILITIES_PER_CITY[city]
        districts = rng.sample(_DISTRICTS[city], count)
        near = set(rng.sample(range(count), _NEAR_CAPACITY_PER_CITY.get(city, 0)))
        for i in range(count):
            kind = types[(start + i) % len(types)]
            low, high = _CAPACITY_RANGE[kind]
            capacity = float(round(rng.uniform(low, high) / 500) * 500)
            utilization = round(rng.uniform(0.90, 0.99) if i in near else rng.uniform(0.38, 0.87), 2)
            name = f"{city}-{districts[i]} {_TYPE_NAMES[kind]}"
            rows.append((f"F{len(rows) + 1:03d}", name, city, kind, capacity, utilization))
        start += count
    return rows


def _status(rng: random.Random, days_ago: int, contaminated: bool, risk: str) -> str:
    if days_ago == 0:
        return rng.choice(("pending", "pending", "in_transit"))
    if days_ago <= 2:
        return rng.choice(("pending", "in_transit", "in_transit", "delivered"))
    reject_chance = {"high": 0.55, "medium": 0.3, "low": 0.12}[risk] if contaminated else 0.03
    return "rejected" if rng.random() < reject_chance else "delivered"


def _findings(rng: random.Random) -> list[tuple[str, str, str]]:
    """One to three (category, substance, risk) findings for a contaminated shipment."""
    categories = list(_CATEGORY_WEIGHTS)
    weights = list(_CATEGORY_WEIGHTS.values())
    found = []
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
        category = rng.choices(categories, weights)[0]
        substance, risk = rng.choice(_SUBSTANCES[category])
        found.append((category, substance, risk))
    return found


def _shipments_and_contaminants(rng: random.Random, today: dt.date,
                                facilities: Sequence[Row]) -> tuple[list[Row], list[Row]]:
    hannover = [f for f in facilities if f[2] == "Hannover"]
    elsewhere = [f for f in facilities if f[2] != "Hannover"]
    shipments: list[Row] = []
    contaminants: list[Row] = []
    # Oldest day first so shipment ids rise with the date.
    for days_ago in range(HISTORY_DAYS - 1, -1, -1):
        day = (today - dt.timedelta(days=days_ago)).isoformat()
        for n in range(rng.randint(5, 8)):
            # Today's first three shipments are contaminated, two of them at Hannover: the
            # demo goals "contaminants detected today" and "today's contaminants in
            # Hannover" must never come back empty, nor the same.
            forced = days_ago == 0 and n < 3
            facility = rng.choice((hannover if n < 2 else elsewhere) if forced else facilities)
            carrier = rng.choice(CARRIERS)
            contaminated = forced or rng.random() < _CONTAMINATION_RATE[carrier]
            findings = _findings(rng) if contaminated else []
            risk = max((r for _, _, r in findings), key=RISK_LEVELS.index, default="low")
            status = _status(rng, days_ago, contaminated, risk)
            weight = round(rng.uniform(800, 24_000), 1)
            shipment_id = f"S{len(shipments) + 1:05d}"
            shipments.append((shipment_id, day, facility[0], facility[2], carrier, status,
                               int(contaminated), risk, weight))
            for category, substance, finding_risk in findings:
                contaminants.append((f"C{len(contaminants) + 1:04d}", shipment_id, facility[0], day,
                                     category, substance, finding_risk))
    return shipments, contaminants


def _inspections(rng: random.Random, today: dt.date, facilities: Sequence[Row]) -> list[Row]:
    rows: list[Row] = []
    for days_ago in range(HISTORY_DAYS - 1, -1, -1):
        day = (today - dt.timedelta(days=days_ago)).isoformat()
        count = rng.choice((0, 1, 2, 2, 2, 3))
        if days_ago <= 7:  # "this week's inspections" always has something to show
            count = max(count, 1)
        for _ in range(count):
            facility = rng.choice(facilities)
            fail_chance = 0.4 if facility[5] >= NEAR_CAPACITY else 0.12
            result = "failed" if rng.random() < fail_chance else "passed"
            notes = rng.choice(_FAILED_NOTES if result == "failed" else _PASSED_NOTES)
            rows.append((f"I{len(rows) + 1:04d}", facility[0], day, result,
                         rng.choice(_INSPECTORS), notes))
    return rows


def generate_database(path: Path, today: dt.date, seed: int = DEFAULT_SEED) -> None:
    """Write the demo database to ``path``, with dates counted back from ``today``.

    The file is built under a temporary name beside ``path`` and moved into place in one
    step, so a process opening ``path`` sees either no file or a complete database.
    """
    path = Path(path)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # the data folder is private
    rng = random.Random(seed)
    facilities = _facilities(rng)
    shipments, contaminants = _shipments_and_contaminants(rng, today, facilities)
    inspections = _inspections(rng, today, facilities)
    tables = {"facilities": facilities, "shipments": shipments, "contaminants": contaminants,
              "inspections": inspections}

    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        conn = sqlite3.connect(tmp_name)
        try:
            conn.executescript(_SCHEMA)
            with conn:
                for table, rows in tables.items():
                    columns = _COLUMNS[table]
                    marks = ", ".join("?" for _ in columns)
                    conn.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)
        finally:
            conn.close()
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise


# --------------------------------------------------------------------------- queries

def _iso(value: dt.date | str | None, name: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip()).isoformat()
        except ValueError:
            pass
    raise ValueError(f"{name} must be a date in ISO format YYYY-MM-DD (got {value!r})")


def _ids(value: str | Iterable[str] | None, name: str) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    ids = list(value)
    bad = [v for v in ids if not isinstance(v, str)]
    if bad:
        raise ValueError(f"{name} must be an id or a list of ids (got {bad[0]!r})")
    return ids


def _choice(value: str | None, name: str, allowed: Sequence[str]) -> str | None:
    if value is not None and value not in allowed:
        raise ValueError(f"{name} {value!r} is not one of: {', '.join(allowed)}")
    return value


class _Query:
    """A WHERE clause built from optional filters; values always go in as parameters."""

    def __init__(self) -> None:
        self.clauses: list[str] = []
        self.params: list[Any] = []

    def add(self, clause: str, value: Any) -> None:
        if value is not None:
            self.clauses.append(clause)
            self.params.append(value)

    def add_in(self, column: str, values: list[str] | None) -> None:
        # One JSON parameter instead of one placeholder per id: no limit on list length.
        if values is not None:
            self.clauses.append(f"{column} IN (SELECT value FROM json_each(?))")
            self.params.append(json.dumps(values))

    def where(self) -> str:
        return f"WHERE {' AND '.join(self.clauses)}" if self.clauses else ""


class WasteData:
    """Read access to the demo database of one data directory.

    ``today`` is a date or a function returning one; with a function (as ``for_settings``
    gives when today is not pinned) a long-running app moves to a fresh database when the
    date changes, so "today" in a plan and in the data stay the same day. Each thread reads
    through its own connection, so one instance can serve Streamlit's threads at once.
    """

    def __init__(self, data_dir: Path, today: dt.date | Callable[[], dt.date],
                 seed: int = DEFAULT_SEED) -> None:
        self.data_dir = Path(data_dir)
        self._today = today
        self.seed = seed
        self._local = threading.local()

    @classmethod
    def for_settings(cls, settings: Any, seed: int = DEFAULT_SEED) -> "WasteData":
        """The database in ``settings.data_dir`` for ``settings.effective_today()``,
        generated on first use."""
        data = cls(settings.data_dir, settings.effective_today, seed)
        data.ensure()
        return data

    @property
    def today(self) -> dt.date:
        return self._today() if callable(self._today) else self._today

    @property
    def path(self) -> Path:
        return self.data_dir / f"demo-waste-{self.today.isoformat()}.sqlite3"

    def ensure(self) -> Path:
        """The database file for today, generated if it is not there yet."""
        today = self.today
        path = self.data_dir / f"demo-waste-{today.isoformat()}.sqlite3"
        if not path.exists():
            generate_database(path, today, self.seed)
        return path

    def _connection(self) -> sqlite3.Connection:
        """This thread's read-only connection to today's file, opened once per file.

        Opening a connection per query (and SQLite reading the schema again) took most of a
        query's time: a 200-step plan opened 200. A file generated anew (another day, or
        replaced) has another inode or mtime, so it gets a connection of its own.
        """
        path = self.ensure()
        stat = path.stat()
        key = (path, stat.st_ino, stat.st_mtime_ns)
        if getattr(self._local, "key", None) != key:
            old = getattr(self._local, "conn", None)
            if old is not None:
                old.close()
            # Read-only: a query can never change the demo file.
            self._local.conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
            self._local.key = key
        return self._local.conn

    def _select(self, table: str, query: _Query, order: str, limit: int) -> dict[str, Any]:
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(f"limit must be a whole number of at least 1 (got {limit!r})")
        columns = _COLUMNS[table]
        sql = f"SELECT {', '.join(columns)} FROM {table} {query.where()} ORDER BY {order} LIMIT ?"
        # SQLite's integers stop at 2**63 - 1; no table comes near, so a larger limit
        # means "all of them", as the schema (at least 1, no maximum) promises.
        fetched = self._connection().execute(sql, [*query.params, min(limit, _SQLITE_MAX)]).fetchall()
        rows = [dict(zip(columns, row)) for row in fetched]
        if table == "shipments":
            for row in rows:
                row["has_contaminants"] = bool(row["has_contaminants"])
        return {"data": rows, "count": len(rows)}

    def facilities(self, location: str | None = None, type: str | None = None,
                   near_capacity: bool | None = None, limit: int = 100) -> dict[str, Any]:
        query = _Query()
        query.add("location = ? COLLATE NOCASE", location.strip() if location else location)
        query.add("type = ?", _choice(type, "type", FACILITY_TYPES))
        if near_capacity is not None:
            query.add("utilization >= ?" if near_capacity else "utilization < ?", NEAR_CAPACITY)
        return self._select("facilities", query, "id", limit)

    def shipments(self, date_from: dt.date | None = None, date_to: dt.date | None = None,
                  status: str | None = None, has_contaminants: bool | None = None,
                  facility_id: str | list[str] | None = None, destination: str | None = None,
                  carrier: str | None = None, risk_level: str | None = None,
                  limit: int = 100) -> dict[str, Any]:
        query = _Query()
        query.add("date >= ?", _iso(date_from, "date_from"))
        query.add("date <= ?", _iso(date_to, "date_to"))
        query.add("status = ?", _choice(status, "status", SHIPMENT_STATUSES))
        query.add("has_contaminants = ?", None if has_contaminants is None else int(has_contaminants))
        query.add_in("facility_id", _ids(facility_id, "facility_id"))
        query.add("destination = ? COLLATE NOCASE", destination.strip() if destination else destination)
        query.add("carrier = ? COLLATE NOCASE", carrier.strip() if carrier else carrier)
        query.add("risk_level = ?", _choice(risk_level, "risk_level", RISK_LEVELS))
        return self._select("shipments", query, "date DESC, id DESC", limit)

    def contaminants(self, shipment_ids: list[str] | None = None,
                     facility_id: str | list[str] | None = None,
                     date_from: dt.date | None = None, date_to: dt.date | None = None,
                     risk_level: str | None = None, category: str | None = None,
                     limit: int = 100) -> dict[str, Any]:
        query = _Query()
        query.add_in("shipment_id", _ids(shipment_ids, "shipment_ids"))
        query.add_in("facility_id", _ids(facility_id, "facility_id"))
        query.add("date >= ?", _iso(date_from, "date_from"))
        query.add("date <= ?", _iso(date_to, "date_to"))
        query.add("risk_level = ?", _choice(risk_level, "risk_level", RISK_LEVELS))
        query.add("category = ?", _choice(category, "category", CATEGORIES))
        return self._select("contaminants", query, "date DESC, id DESC", limit)

    def inspections(self, date_from: dt.date | None = None, date_to: dt.date | None = None,
                    facility_id: str | list[str] | None = None, result: str | None = None,
                    limit: int = 100) -> dict[str, Any]:
        query = _Query()
        query.add("date >= ?", _iso(date_from, "date_from"))
        query.add("date <= ?", _iso(date_to, "date_to"))
        query.add_in("facility_id", _ids(facility_id, "facility_id"))
        query.add("result = ?", _choice(result, "result", INSPECTION_RESULTS))
        return self._select("inspections", query, "date DESC, id DESC", limit)
