"""Your own tools from Python: a ``.py`` file, a module, or ``module:function``.

Which functions become tools:

- ``module:function`` calls that function as ``function(registry)`` (or
  ``function(registry, settings)``, the signature of the built-in groups): it registers what it
  wants, with ``registry.register(func, name=..., group=...)``.
- A file or module that defines ``register`` is loaded the same way, through its ``register``.
- Otherwise every public function *defined in* the file or module becomes a tool: its name does
  not start with ``_`` and it was not imported from elsewhere. Their group is the file's stem
  or the module's name.

Each tool is built by the same registry call as the built-ins (signature + docstring ->
schema). A source is all or nothing: if anything in it fails (a syntax error, an import error,
a function the registry refuses, a name another source already has), none of its tools are
added and one ``ToolDefinitionError`` names the file, the line and the function.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

from core import Settings, ToolDefinitionError, ToolRegistry

from ._load_deadline import load_within

DEMO_SOURCE = "the demo tools"  # the built-in groups' source, as ``tools`` names it (``tools.DEMO_SOURCE``)

__all__ = ["load_python_source", "merge_into"]


def load_python_source(source: str, registry: ToolRegistry, settings: Settings) -> list[str]:
    """Load the tools in ``source`` into ``registry``; their names. Raises ``ToolDefinitionError``
    (one line naming the file, line and function) and adds nothing when any of them fails, or
    when loading takes more than ``settings.tools_timeout`` seconds (see ``_load_deadline``)."""
    is_file = source.endswith(".py") or "/" in source or "\\" in source
    target, _, attr = (source, "", "") if is_file else source.partition(":")
    if is_file:
        path = Path(target).expanduser().resolve()
        module, label = _file_module_name(path), str(path)
    else:
        module, label = target, f"module {target}"
    staged, where = load_within(source, module, label, settings.tools_timeout,
                                lambda: _stage(is_file, target, attr, settings))
    return merge_into(registry, staged, f"file {where}" if is_file else f"module {target}", where)


def _stage(is_file: bool, target: str, attr: str, settings: Settings) -> tuple[ToolRegistry, str]:
    """The tools of a source in a registry of their own (nothing else sees them yet), and
    where they came from."""
    module = _import_file(Path(target)) if is_file else _import_module(target)
    where = getattr(module, "__file__", None) or target
    staged = ToolRegistry()
    register = getattr(module, attr or "register", None)
    if attr and not callable(register):
        raise ToolDefinitionError(f"{where}: has no function {attr!r} to register tools with")
    if callable(register):
        _call_register(register, staged, settings, where)
    else:
        group = Path(target).stem if is_file else target.rsplit(".", 1)[-1]
        functions = _public_functions(module)
        if not functions:
            raise ToolDefinitionError(f"{where}: defines no public functions and no register(registry)")
        for func in functions:
            try:
                staged.register(func, group=group)
            except ToolDefinitionError as exc:
                line = func.__code__.co_firstlineno
                raise ToolDefinitionError(f"{where}:{line}: function {func.__name__}: {_reason(exc)}") from None
    return staged, where


def merge_into(registry: ToolRegistry, staged: ToolRegistry, source: str, where: str) -> list[str]:
    """Add every tool of ``staged`` to ``registry``, or none if a name or group is taken."""
    taken = [tool.name for tool in staged if tool.name in registry]
    if taken:
        other = registry.get(taken[0])
        theirs, way_out = other.source or f"tool group {other.group!r}", "rename yours"
        if other.source == DEMO_SOURCE:
            theirs += f" (group {other.group!r}, loaded by --demo or PLAN_STUDIO_DEMO=true)"
            way_out = "rename yours, or leave the demo tools out"
        raise ToolDefinitionError(f"{where}: refused: a tool named {taken[0]!r} is already loaded from {theirs} "
                                  f"(tool names must be unique; {way_out})")
    for tool in staged:
        tool.source = tool.source or source
        registry.add(tool)
    registry.add_words_of(staged)
    return staged.names()


def _reason(exc: Exception) -> str:
    # The registry says "tool 'x': ..."; the message already names the function.
    text = str(exc)
    return text.split(": ", 1)[1] if text.startswith("tool '") and ": " in text else text


def _call_register(register: Callable[..., Any], staged: ToolRegistry, settings: Settings, where: str) -> None:
    try:
        takes = len(inspect.signature(register).parameters)
    except (TypeError, ValueError):
        takes = 1
    try:
        register(staged, settings) if takes >= 2 else register(staged)
    except ToolDefinitionError as exc:
        line, func = _tool_line(exc, staged)
        raise ToolDefinitionError(f"{where}{line}: {func}{_reason(exc)}") from None
    except Exception as exc:  # the author's register failed: say where, never a traceback
        raise ToolDefinitionError(f"{where}{_line_in(exc, where)}: {register.__name__}() failed: "
                                  f"{type(exc).__name__}: {exc}") from None


def _tool_line(exc: ToolDefinitionError, staged: ToolRegistry) -> tuple[str, str]:
    """The line and name of the function the registry refused, from the frames of the call."""
    for frame, _ in reversed(list(traceback.walk_tb(exc.__traceback__))):
        func = frame.f_locals.get("func") if frame.f_code.co_name in ("register", "build_python_tool") else None
        if callable(func) and hasattr(func, "__code__"):
            return f":{func.__code__.co_firstlineno}", f"function {func.__name__}: "
    return "", ""


def _line_in(exc: BaseException, filename: str) -> str:
    lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]
    return f":{lines[-1]}" if lines else ""


def _public_functions(module: ModuleType) -> list[Callable[..., Any]]:
    return [obj for name, obj in vars(module).items()
            if not name.startswith("_") and inspect.isfunction(obj) and obj.__module__ == module.__name__]


def _file_module_name(path: Path) -> str:
    # A name of its own per path, so two files called tools.py do not replace each other.
    return f"plan_studio_user_tools.{path.stem}_{hashlib.sha1(str(path).encode()).hexdigest()[:8]}"


def _import_file(path: Path) -> ModuleType:
    path = path.expanduser().resolve()
    if not path.is_file():
        raise ToolDefinitionError(f"{path}: no such tool file")
    name = _file_module_name(path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ToolDefinitionError(f"{path}: cannot be loaded as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pydantic look their module up while it loads
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        sys.modules.pop(name, None)
        raise ToolDefinitionError(f"{exc.filename or path}:{exc.lineno}: syntax error: {exc.msg}") from None
    except Exception as exc:
        sys.modules.pop(name, None)
        raise ToolDefinitionError(f"{path}{_line_in(exc, str(path))}: cannot be loaded: "
                                  f"{type(exc).__name__}: {exc}") from None
    return module


def _import_module(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except SyntaxError as exc:
        raise ToolDefinitionError(f"{exc.filename}:{exc.lineno}: syntax error: {exc.msg}") from None
    except ModuleNotFoundError as exc:
        if exc.name and name.startswith(exc.name):
            raise ToolDefinitionError(f"{name}: no such module (not a .py file either)") from None
        raise ToolDefinitionError(f"module {name}: cannot be loaded: {type(exc).__name__}: {exc}") from None
    except Exception as exc:
        where = exc.__traceback__ and traceback.extract_tb(exc.__traceback__)[-1]
        at = f" ({where.filename}:{where.lineno})" if where else ""
        raise ToolDefinitionError(f"module {name}{at}: cannot be loaded: {type(exc).__name__}: {exc}") from None
