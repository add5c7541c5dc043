"""A group: one segment of a goal that names an entity, with what qualifies and filters it.

Its own module because both the plan builder and the sharing of qualifiers across a list of
entities (``_embedded_shared``) work on groups, and the builder calls the sharing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ._parse import Mention

__all__ = ["Group"]


@dataclass
class Group:
    primary: Mention
    qualifiers: list[Mention] = field(default_factory=list)
    filters: list[Mention] = field(default_factory=list)
    then: bool = False
    link: bool = False
    add: bool = False
    # Entities and filters said before the part, in a sentence of their own ("Last week, ...").
    leading: list[Mention] = field(default_factory=list)
