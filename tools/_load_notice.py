"""``LoadNotice``: a line about a tool source that loaded, less something it could not use.

``load_tools`` reports its sources in one list of lines. Most are failures (a server that
does not start, a file that does not import): a command asked to use that source must not
go on without it. A ``LoadNotice`` is the other kind: the source loaded and only a part of
it was left out (an MCP tool that only runs as an MCP task, say), so commands go on and
show it as a warning. It is a ``str``, so every place that shows the lines keeps working.
"""

from __future__ import annotations

__all__ = ["LoadNotice"]


class LoadNotice(str):
    """A load problem that is a warning, not a failure; see the module docstring."""

    __slots__ = ()
