"""What the Plan JSON panel makes of its text: Plan Studio's JSON, or a plan in any other
format pasted into it (the seed JSON ``plan-studio plan`` prints, SK XML, a Teams plan,
LLMCompiler text), read as the format its content looks like and said so.

Native JSON is always tried first, and its error stands when the text looks like nothing
else (or like seed JSON that seed cannot read either: a user editing native JSON wants
native's words); a text that looks like another format and does not read is reported in
that format's terms.
"""

from __future__ import annotations

from core import FORMATS, Plan, PlanFormatError, ToolRegistry, load_plan
from core.formats import detect_format

__all__ = ["read_panel_text"]


def read_panel_text(text: str, registry: ToolRegistry) -> tuple[Plan, str | None]:
    """The plan in ``text`` and, when it was not native JSON, the notice naming the format it
    was read as. Raises ``PlanFormatError`` saying what is wrong."""
    try:
        return load_plan(text, "native"), None
    except PlanFormatError as native_error:
        likely = detect_format(text)
        if likely is None or likely == "native":
            raise
        label = FORMATS[likely].label
        try:
            plan = load_plan(text, likely, registry)
        except PlanFormatError as exc:
            if likely == "seed":
                raise native_error from None
            message = str(exc).removeprefix(f"{exc.format}: ")
            raise PlanFormatError(likely, f"Read as {label}: {message}") from None
    return plan, f"Read as {label}; the Plan JSON now shows it as Plan Studio JSON."
