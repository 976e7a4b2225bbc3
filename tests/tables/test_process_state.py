"""Process state in `tables/`: every module-level name that holds mutable state, found by
reading the source (ast), must be one this list names, with why it is still there.

Issue 44 asks for none holding live rooms, owners, writers or caches (one live server object
built at start-up and handed in instead); that move is not made yet. Until it is, this test
keeps the list from growing: a new module-level dict, list, set, cache or registry in
`tables/`, or a new name a function rebinds with `global`, fails here. Constants (UPPER_CASE
names bound once, never rebound) are not state.
"""

from __future__ import annotations

import ast
from pathlib import Path

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

# Still here (issue 44's live server object would hold them): module path:name -> what it is.
REMAINING = {
    "tables/driver.py:_background": "the driver's background tasks",
    "tables/driver.py:_driver": "this process's bot driver",
    "tables/driver.py:_driver_task": "the driver's task",
    "tables/driver.py:_heartbeat_task": "the presence heartbeat's task",
    "tables/languages.py:_memo": "readers' languages per place (pruned past MEMO_PRUNE_AT)",
    "tables/languages.py:_reading": "readings under way",
    "tables/languages.py:_reader": "the one thread that reads them",
    "tables/languages.py:_generation": "bumped by forget",
    "tables/languages.py:_cache": "the cache it reads through",
    "tables/play.py:_waiting": "threads' answers awaited from the loop",
    "tables/play.py:_abandoned": "set once at a stop",
    "tables/replay.py:_memo": "the last 16 replays built",
    "tables/sockets.py:_open": "the open table sockets (weak)",
    "tables/live/owners.py:_apply_move": "the registry's apply, handed in at start-up",
    "tables/live/owners.py:_owners": "rooms' owners as last read",
    "tables/live/owners.py:_on_released": "callbacks for released rooms",
    "tables/live/owners.py:_inbox": "this process's forwarded-move inbox",
    "tables/live/owners.py:handed_over": "set at a graceful stop",
    "tables/live/rooms.py:_rooms": "the live rooms' registry",
    "tables/live/render.py:_LABELS": "JSON labels of view fields (a few dozen)",
    "tables/live/store.py:written": "transactions written each way (tests read it)",
}


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
    assert not new, "module-level process state in tables/ (hand it in instead):\n" + "\n".join(new)
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
