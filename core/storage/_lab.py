"""The Lab's records: experiments (opaque JSON the studio writes, under a name and a version
counter) and each tool's fingerprint as the studio last saw it.

An experiment is replaced whole on each save, but only from the version it was opened at: a
save naming another ``expected_version`` is refused with ``ExperimentConflict`` and nothing is
written, so two tabs editing one experiment cannot silently overwrite each other.
"""

from __future__ import annotations

import datetime as dt
import secrets
from dataclasses import dataclass
from typing import Mapping

from sqlalchemy import delete
from sqlmodel import select

from .._errors import ExperimentConflict, StorageError
from ._engine import Database
from ._lab_tables import LabExperimentRow, LabToolSeenRow
from ._values import found, now, reason

__all__ = ["LabStore", "SavedExperiment"]


@dataclass(frozen=True)
class SavedExperiment:
    id: str
    name: str
    version: int
    updated_at: dt.datetime
    content: str = ""  # empty in listings


class LabStore:
    def __init__(self, database: Database) -> None:
        self._db = database

    def save(self, name: str, content: str, *, experiment_id: str | None = None,
             expected_version: int | None = None) -> SavedExperiment:
        """A new experiment (``experiment_id`` None), or the next version of one; with
        ``expected_version``, refused when the latest is another (``ExperimentConflict``)."""
        try:
            name.encode("utf-8"), content.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise StorageError(f"cannot save the experiment: {reason(exc)}") from exc
        at = now()
        with self._db.session("save the experiment", write=True) as session:
            if experiment_id is None:
                experiment_id = self._new_id(session)
                row = LabExperimentRow(id=experiment_id, name=name, version=1, created_at=at, updated_at=at,
                                       content=content)
            else:
                row = found(session.get(LabExperimentRow, experiment_id), f"no experiment with id {experiment_id!r}")
                if expected_version is not None and row.version != expected_version:
                    raise ExperimentConflict(experiment_id, row.name, expected=expected_version, latest=row.version,
                                             saved_at=row.updated_at)
                row.name, row.content, row.version, row.updated_at = name, content, row.version + 1, at
            session.add(row)
            return SavedExperiment(row.id, row.name, row.version, at, content)

    def load(self, experiment_id: str) -> SavedExperiment:
        with self._db.session("load the experiment") as session:
            row = found(session.get(LabExperimentRow, experiment_id), f"no experiment with id {experiment_id!r}")
            return SavedExperiment(row.id, row.name, row.version, row.updated_at, row.content)

    def list(self, *, limit: int = 200) -> list[SavedExperiment]:
        """Experiments, the most recently saved first, without their content."""
        query = (select(LabExperimentRow.id, LabExperimentRow.name, LabExperimentRow.version,
                        LabExperimentRow.updated_at)
                 .order_by(LabExperimentRow.updated_at.desc(), LabExperimentRow.id).limit(limit))  # type: ignore[attr-defined]
        with self._db.session("list experiments") as session:
            return [SavedExperiment(*row) for row in session.exec(query).all()]

    def delete(self, experiment_id: str) -> None:
        with self._db.session("delete the experiment", write=True) as session:
            session.exec(delete(LabExperimentRow).where(LabExperimentRow.id == experiment_id))  # type: ignore[call-overload]

    def seen_tools(self) -> dict[str, str]:
        """Each tool's fingerprint as last remembered."""
        with self._db.session("read the tools last seen") as session:
            return {row.name: row.digest for row in session.exec(select(LabToolSeenRow)).all()}

    def remember_tools(self, fingerprints: Mapping[str, str]) -> None:
        """Keep ``fingerprints`` as the tools last seen, replacing what was kept."""
        at = now()
        with self._db.session("remember the tools", write=True) as session:
            session.exec(delete(LabToolSeenRow))  # type: ignore[call-overload]
            session.add_all(LabToolSeenRow(name=name, digest=digest, seen_at=at) for name, digest in fingerprints.items())

    @staticmethod
    def _new_id(session) -> str:  # type: ignore[no-untyped-def]
        while True:
            candidate = secrets.token_hex(4)
            if session.get(LabExperimentRow, candidate) is None:
                return candidate
