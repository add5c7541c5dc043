"""Module-level mutable state: none but the documented registries below.

A store of a module (a dict, list or set that functions add to, or a name they rebind with
``global``) is state every caller in the process shares, behind every object's back. State a
use case owns belongs to an object the services hold; what must be one per process (a child
process to stop at exit, a thread that cannot be killed) is listed here with its reason, and a
new one fails until it is either moved into an object or listed.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ["core", "tools", "studio", "pages"]
_MUTATORS = {"append", "add", "update", "pop", "popitem", "clear", "setdefault", "remove", "discard", "extend",
             "insert", "move_to_end", "appendleft", "popleft"}
_CONTAINERS = {"dict", "list", "set", "defaultdict", "OrderedDict", "WeakKeyDictionary", "WeakValueDictionary",
               "WeakSet", "deque", "Counter"}

DOCUMENTED = {
    # Extension points: what plugins register, read by every loader and validator in the process.
    "core.hooks:_manager": "the plugin manager (pluggy): the one list of extension points, process-wide",
    "core.hooks:_ready": "whether the built-in plugins and the entry points are loaded into the manager",
    "core.hooks:_collected": "each add-hook's answer, kept until a plugin is registered or unregistered",
    "core.hooks:_problems": "the plugins that could not be loaded, one line each, for the Tools page and the CLI",
    "core.hooks:_failed": "(plugin, hook) pairs that raised: each logged once, not on every step",
    # Caches of what does not change while the process lives.
    "core.schema._untrusted:_BOUNDED": "the jsonschema validator classes built once per draft and options",
    "core.schema._untrusted:_RECENT_SCHEMAS": "the last 256 schemas' answers, so a schema is checked once",
    "core.llm._client:_WARM": "the model servers this process has reached: the first call waits longer",
    "studio.workbench._onramp:_KEPT": "the example goals of each tool set (weakly kept, for a day): planned once for "
                                      "every session, and at start by the warm-up",
    # One per process by nature.
    "core.storage._values:_last_time": "the store's clock: stamps stay in order across every store in the process",
    "tools._load_deadline:_stuck": "tool-group loads that overran: a thread cannot be killed, only not started again",
    "tools._mcp_connection:_OPEN": "the MCP servers (child processes) this process started, stopped at exit",
    # The run engine's, one per process because DBOS and the threads under it are.
    "core.durable._runtime:_state": "DBOS's one launch per process (its location, queues, executor)",
    "core.durable._workflow:_bound": "the store and tools DBOS's workflow functions run against: DBOS calls "
                                     "them by name with serializable arguments only, and launches once per process",
    "core.run._step_call:_POOL": "the daemon threads that call sync tools for every run: daemon, so a tool that never "
                                   "returns cannot hold the process at exit (ADR 0005)",
    "core.run._step_call:_event_loop": "the one event loop async tools are awaited on, for every run",
    "core.run._step_call:_loop_lock": "guards _event_loop's start",
    "core.traces._setup:_checked": "whether this process read the OTEL_* variables (tracing is set up once per process)",
    "core.traces._setup:_provider": "the process's one TracerProvider: its batch exporter thread and queue are per process",
    "core.traces._setup:_tracer": "the tracer of that provider, None when tracing is off",
    "studio.ui._drafts:_holders": "which session of this process holds a tab's draft",
    "studio.workbench._durable_handle:_made": "one DurableRuns per store in the process: DBOS launches once per process",
}


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_container(value: ast.expr) -> bool:
    if isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)):
        return True
    func = value.func if isinstance(value, ast.Call) else None
    return getattr(func, "id", getattr(func, "attr", None)) in _CONTAINERS


def module_stores(root: Path, packages: list[str]) -> set[str]:
    """``module:name`` for each module-level name a function of its module mutates: a container
    it adds to, removes from or sets items of, or any name it rebinds with ``global``."""
    found = set()
    for path in (f for package in packages for f in sorted((root / package).rglob("*.py"))):
        tree = ast.parse(path.read_text(), filename=str(path))
        top: dict[str, ast.expr] = {}
        for node in tree.body:
            if isinstance(node, ast.Assign):
                top.update((t.id, node.value) for t in node.targets if isinstance(t, ast.Name))
            elif isinstance(node, ast.AnnAssign) and node.value is not None and isinstance(node.target, ast.Name):
                top[node.target.id] = node.value
        containers = {name for name, value in top.items() if _is_container(value)}
        names = set()
        functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for node in (n for function in functions for n in ast.walk(function)):
            if isinstance(node, ast.Global):
                names.update(node.names)
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
                targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
                names.update(t.value.id for t in targets
                             if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name))
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr in _MUTATORS and isinstance(node.func.value, ast.Name)):
                names.add(node.func.value.id)
        module = _module_name(path, root)
        found.update(f"{module}:{name}" for name in names if name in containers or name in top)
    return found


def test_module_level_state_is_only_the_documented_registries():
    found = module_stores(ROOT, PACKAGES)
    assert sorted(found - set(DOCUMENTED)) == [], "new module-level state: move it into an object, or list it"
    assert sorted(set(DOCUMENTED) - found) == [], "listed but gone: take it off DOCUMENTED"


def test_the_registry_rule_sees_module_state(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(
        "import collections\n"
        "KNOWN = {'a': 1}\n"  # a constant: read, never changed
        "_seen = set()\n_queue = collections.deque()\n_by_id: dict = {}\n_count = 0\n_local = []\n"
        "def note(x):\n"
        "    global _count\n"
        "    _count += 1\n"
        "    _seen.add(x)\n    _queue.append(x)\n    _by_id[x] = KNOWN['a']\n"
        "    _local_copy = list(_local)\n    _local_copy.append(x)\n")
    assert module_stores(tmp_path, ["pkg"]) == {"pkg.m:_seen", "pkg.m:_queue", "pkg.m:_by_id", "pkg.m:_count"}
