"""Semantic Kernel's WriterPlugin as tools: text written by the configured model.

The names and parameters follow the plugin (``ShortPoem(input)``, ``Translate(input,
language)``) so Semantic Kernel plans import unchanged. With no model configured a call
fails with "No model configured: ...", and the step shows exactly that.
"""

from __future__ import annotations

from core import READ_ONLY, NonBlank, Settings, ToolRegistry
from core.llm import ModelClient

__all__ = ["register"]

_POEM = ("You write short, light poems. Turn what the user gives you into a poem of four to "
         "eight lines. Answer with the poem only.")
_TRANSLATE = ("You are a translator. Translate the user's text into {language}. Keep its meaning, "
              "tone and formatting. Answer with the translation only.")


def register(registry: ToolRegistry, settings: Settings) -> None:
    client = ModelClient(settings)

    def ShortPoem(input: NonBlank) -> str:  # noqa: N802 (Semantic Kernel's function name)
        """Turn the input into a short poem.

        Args:
            input: What the poem is about: a scenario, a topic, or text from an earlier step.

        Returns:
            The poem, as plain text.
        """
        return _write(client, _POEM, input, "write a poem about")

    def Translate(input: NonBlank, language: NonBlank) -> str:  # noqa: N802
        """Translate the input into another language.

        Args:
            input: The text to translate.
            language: The language to translate into, e.g. German, French, Japanese.

        Returns:
            The translated text.
        """
        if not language.strip():
            raise ValueError("language is empty: say which language to translate into")
        return _write(client, _TRANSLATE.format(language=language.strip()), input, "translate")

    for func in (ShortPoem, Translate):
        registry.register(func, group="writer", effects=READ_ONLY)  # text from a model; nothing stored


def _write(client: ModelClient, instructions: str, text: str, task: str) -> str:
    if not text.strip():
        raise ValueError(f"input is empty: nothing to {task}")
    reply = client.chat([{"role": "system", "content": instructions},
                         {"role": "user", "content": text}]).strip()
    if not reply:
        raise RuntimeError("the model returned no text")
    return reply
