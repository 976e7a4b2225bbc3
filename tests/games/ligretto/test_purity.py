"""The Ligretto rules and bots are pure: no Django, no clock, no global random (G1)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import games.ligretto

HERE = Path(games.ligretto.__file__).parent
ALLOWED = {"__future__", "random", "dataclasses", "typing", "games.engine", "games.sentences"}


@pytest.mark.parametrize("name", ["rules.py", "bots.py"])
def test_G1_it_imports_nothing_impure_and_uses_only_seeded_randoms(name):
    tree = ast.parse((HERE / name).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            modules = [node.module or ""]
        else:
            modules = []
        for module in modules:
            assert module in ALLOWED, f"{name} imports {module}"
            assert not module.startswith(("django", "time", "datetime"))
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "random"
        ):
            assert node.attr in ("Random",), f"{name} uses random.{node.attr}"
