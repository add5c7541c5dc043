"""The SDK's MCP client session, with a tool's result checked against its output schema in
bounded time.

``mcp.ClientSession.call_tool`` checks structured content against the server's
``outputSchema`` with plain ``jsonschema``, whose ``pattern`` runs on Python's backtracking
``re``: a server declaring ``"pattern": "^(a+)+$"`` and answering ``"a" * 40 + "!"`` would hold
the GIL for hours, freezing the studio with it. The server's schema is untrusted, so the check
goes through ``core.schema._untrusted`` as the input check does: patterns in linear time (or
within a budget), the whole check within ``CHECK_SECONDS``. A result that does not fit, or
whose check was cut short, fails the call as the SDK's own check would.
"""

from __future__ import annotations

from typing import Any

from mcp import ClientSession, types

from core._limits import shown
from core.schema._untrusted import bounded_validator, check_against

__all__ = ["BoundedClientSession"]


class BoundedClientSession(ClientSession):
    """``ClientSession`` whose output-schema check is bounded in time."""

    async def validate_tool_result(self, name: str, result: types.CallToolResult) -> None:
        if name not in self._tool_output_schemas:
            await self.list_tools()  # as the SDK does: the listing may be newer than the call
        schema: dict[str, Any] | None = self._tool_output_schemas.get(name)
        if schema is None:
            return
        if result.structured_content is None and "structured_content" not in result.model_fields_set:
            raise RuntimeError(f"Tool {name} has an output schema but did not return structured content")
        errors, cut_short = check_against(bounded_validator(schema), result.structured_content)
        if errors:
            where = "".join(f"[{part!r}]" for part in errors[0].absolute_path)
            raise RuntimeError(f"Invalid structured content returned by tool {name}{where}: "
                               f"{shown(errors[0].message)}")
        if cut_short is not None:
            where = "".join(f"[{part!r}]" for part in cut_short.path)
            raise RuntimeError(f"The result of tool {name}{where} could not be checked against its output "
                               f"schema: {cut_short.message}")
