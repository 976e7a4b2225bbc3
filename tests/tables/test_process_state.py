"""Process state in `tables/`: none. Every module-level name that holds mutable state, found
by reading the source (ast), fails here, and so does a module-level name of `tables/` that
code elsewhere sets (`owners.leaving = True`).

Issue 44: no module global holds live rooms, owners, writers or caches. They are parts of the
one live server object (tables.server.LiveServer), built at start-up by the tables app and
handed in, and every test gets a fresh one (tests/conftest.py). Constants (UPPER_CASE names
bound once, never rebound) are not state.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.any_store

ROOT = Path(__file__).resolve().parents[2]
TABLES = ROOT / "tables"

MUTABLE_CALLS = {
    "dict",
    "list",
    "set",
    "OrderedDict",
    "defaultdict",
    "deque",
    "Counter",
    "WeakSet",
    "WeakValueDictionary",
    "WeakKeyDictionary",
    "ThreadPoolExecutor",
}

# What truly cannot move yet, each with why: none.
REMAINING: dict[str, str] = {}


def _mutable(value: ast.expr) -> bool:
    if isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)):
        return True
    if isinstance(value, ast.Call):
        func = value.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        # A call of a class of the project's own (a registry, a holder) is state too.
        return name in MUTABLE_CALLS or (name[:1].isupper() and name not in STATELESS)
    return False


# Calls whose result holds nothing that changes as the site runs.
STATELESS = {"TypeVar", "Library", "Signal", "JSONDecoder", "getLogger"}
MUTATORS = {"append", "add", "update", "setdefault", "pop", "popitem", "clear", "extend"}


def _mutated(tree: ast.Module) -> set[str]:
    """Module names a function changes in place (x[k] = v, x.append(...), x += ...)."""
    names: set[str] = set()
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if (
                isinstance(node, ast.Subscript)
                and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name)
            ):
                names.add(node.value.id)
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.attr in MUTATORS
            ):
                names.add(node.func.value.id)
    return names


def _state(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    mutated = _mutated(tree)
    found: set[str] = set()
    for node in tree.body:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign) and _mutable(node.value):
            targets = list(node.targets)
        elif isinstance(node, ast.AnnAssign) and node.value is not None and _mutable(node.value):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Name):
                name = target.id
                if name == "__all__" or (name.isupper() and name not in mutated):
                    continue  # a constant table (CARD_COLOURS, _PARTICLES), never changed
                found.add(name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            found.update(node.names)
    return found


def test_no_module_holds_process_state_beyond_the_known_list():
    found = {
        f"{path.relative_to(ROOT)}:{name}"
        for path in sorted(TABLES.rglob("*.py"))
        if "migrations" not in path.parts
        for name in _state(path)
    }
    new = sorted(found - set(REMAINING))
    assert not new, (
        "module-level process state in tables/ (make it a part of tables.server.LiveServer):\n"
        + "\n".join(new)
    )
    gone = sorted(set(REMAINING) - found)
    assert not gone, "no longer there: take it off REMAINING:\n" + "\n".join(gone)


def test_the_scan_sees_a_cache_a_registry_and_a_global(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        "from collections import OrderedDict\n"
        "CARD_COLOURS = {'r': 'red'}\n"
        "_memo: OrderedDict[int, str] = OrderedDict()\n"
        "_rooms = Rooms(None)\n"
        "_LABELS: dict[str, str] = {}\n"
        "_count = 0\n"
        "def bump(k):\n"
        "    global _count\n"
        "    _count += 1\n"
        "    _LABELS[k] = k\n"
    )
    assert _state(module) == {"_memo", "_rooms", "_count", "_LABELS"}


def _set_from_outside(path: Path) -> set[str]:
    """`module.name = value` in `path`, where `module` is a module of `tables/` it imports."""
    tree = ast.parse(path.read_text())
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tables"):
            modules.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            modules.update(
                alias.asname or alias.name
                for alias in node.names
                if alias.name.startswith("tables")
            )
    found: set[str] = set()
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            if (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id in modules
            ):
                found.add(f"{target.value.id}.{target.attr}")
    return found


def test_no_module_of_tables_is_set_from_outside():
    packages = ["cardgames", "api", "social", "chat", "moderation", "tournaments", "daily"]
    packages += ["lobby", "tables"]
    found = {
        f"{path.relative_to(ROOT)}: {name}"
        for package in packages
        for path in sorted((ROOT / package).rglob("*.py"))
        if "migrations" not in path.parts
        for name in _set_from_outside(path)
    }
    told = "a module of tables/ set from outside (a part's field instead):\n"
    assert not found, told + "\n".join(sorted(found))


def test_the_outside_scan_sees_a_flag_set_on_a_module(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        "from tables.live import owners\n"
        "from somewhere import thing\n"
        "def stop():\n"
        "    owners.leaving = True\n"
        "    thing.leaving = True\n"
    )
    assert _set_from_outside(module) == {"owners.leaving"}
