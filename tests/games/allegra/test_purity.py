"""Allegra purity (G1): the rules and bots import no Django, no clock, no global random."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import games.allegra

PKG = Path(games.allegra.__file__).parent
FORBIDDEN = {"django", "time", "datetime", "secrets", "uuid", "os"}


@pytest.mark.parametrize("name", ["rules.py", "bots.py"])
def test_G1_rules_and_bots_are_pure(name: str) -> None:
    tree = ast.parse((PKG / name).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                assert alias.name.split(".")[0] not in FORBIDDEN, alias.name
        elif isinstance(node, ast.ImportFrom):
            mod = (node.module or "").split(".")[0]
            assert mod not in FORBIDDEN, node.module
            if mod == "random":
                assert all(a.name == "Random" for a in node.names), "only random.Random"
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "random"
        ):
            # Module-level random functions share global state; only seeded instances are allowed.
            assert node.attr == "Random", f"random.{node.attr} at line {node.lineno}"
