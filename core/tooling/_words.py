"""The words a tool group teaches planners, beyond what its tools' schemas say.

A schema names a tool's parameters and their allowed values; it cannot say which places a
place parameter takes, that "en route" means the status ``in_transit``, or that "carried by"
is followed by a carrier. A plugin says so for its tool groups through the ``tool_words`` hook
(``core.hooks``; the built-in groups alike), and the registry that loads a group keeps its words
(``registry.add_words``, which a ``--tools`` file's ``register`` may also call), so core knows no
domain's words and a registry without a group plans without its words. The embedded planner
reads every group's words from the registry it plans with.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from .._errors import ToolDefinitionError

__all__ = ["ToolWords"]


@dataclass(frozen=True)
class ToolWords:
    """One tool group's words for the embedded planner. Every field is optional."""

    # Place names the group's place parameters (those whose description says "city") take.
    places: tuple[str, ...] = ()
    # Other spellings of those places, lowercase, to the place they mean.
    place_spellings: Mapping[str, str] = field(default_factory=dict)
    # Phrases meaning a parameter's value, by parameter name then value (an enum value counts
    # only where a tool's enum allows it; a boolean parameter's values are True and False).
    value_phrases: Mapping[str, Mapping[object, tuple[str, ...]]] = field(default_factory=dict)
    # Nouns that name one value of a tool's ``type``/``kind`` enum on their own, by value.
    kind_words: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # Nouns said after a ``type``/``kind`` value that make it name the tool's rows.
    kind_nouns: tuple[str, ...] = ()
    # Cue phrases that put the name after them into a parameter, by parameter name.
    name_cues: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # Nouns feedback uses for parameters ("remove the <noun> filter"), to the parameters meant.
    param_nouns: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # A word the planner reads must be a phrase: a bare string where a list is due would
        # be read letter by letter, and a blank one would match everywhere in every goal.
        _phrases("places", self.places)
        _phrases("kind_nouns", self.kind_nouns)
        _phrases("place_spellings", self.place_spellings)
        _phrases("place_spellings", self.place_spellings.values())
        for name in ("kind_words", "name_cues", "param_nouns"):
            for key, said in getattr(self, name).items():
                _phrases(f"{name}[{key!r}]", said)
        for param, by_value in self.value_phrases.items():
            for value, said in by_value.items():
                _phrases(f"value_phrases[{param!r}][{value!r}]", said)


def _phrases(where: str, words: Iterable[Any]) -> None:
    if isinstance(words, str):
        raise ToolDefinitionError(f"ToolWords {where}: give a list of phrases, not the text {words!r}")
    for word in words:
        if not isinstance(word, str) or not word.strip():
            raise ToolDefinitionError(f"ToolWords {where}: {word!r} is not a phrase (a non-blank string)")
