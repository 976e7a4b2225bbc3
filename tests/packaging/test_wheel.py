"""The package as installed, not as checked out: a wheel built from the tree holds every app.

Built with pip (the build backend in its own isolated environment), installed into a target
folder without dependencies, then imported by a fresh interpreter that cannot see the checkout.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.packaging

ROOT = Path(__file__).resolve().parents[2]
LEFT_OUT = (".git", ".venv", "build", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis",
            "staticfiles", "node_modules", "*.sqlite3")  # fmt: skip
APPS = [
    "cardgames",
    "games",
    "tables",
    "lobby",
    "chat",
    "moderation",
    "tournaments",
    "api",
    "daily",
    "social",
]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the installed wheel (and only that)."""
    wheels, target = tmp_path_factory.mktemp("wheels"), tmp_path_factory.mktemp("site")
    # From a copy of the tree: setuptools would reuse a build/ folder left in the checkout,
    # and with it files the package list no longer names.
    source = tmp_path_factory.mktemp("tree") / "cardgames"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*LEFT_OUT))
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "-w", wheels, source], check=True, timeout=300)
    (wheel,) = wheels.glob("cardgames-*.whl")
    subprocess.run(
        [*pip, "install", "--no-deps", "--target", target, wheel], check=True, timeout=120
    )
    return target


def test_the_wheel_packages_every_app_of_the_layers():
    # The import-linter layers name every top-level package: the wheel must list them all.
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    layers = config["tool"]["importlinter"]["contracts"][0]["layers"]
    assert sorted(layers) == sorted(APPS)


def test_every_app_imports_from_the_installed_wheel(installed: Path, tmp_path: Path):
    code = f"""
import importlib, json, os, sys
sys.path.insert(0, {str(installed)!r})
os.environ["DJANGO_SETTINGS_MODULE"] = "cardgames.settings"
import django
django.setup()
from django.apps import apps
files = {{name: importlib.import_module(name).__file__ for name in {APPS!r}}}
files.update({{c.name: c.module.__file__ for c in apps.get_app_configs()}})
print(json.dumps(files))
"""
    # -I: no current folder, no PYTHONPATH, no user site: only the target and the venv's libs.
    done = subprocess.run(
        [sys.executable, "-I", "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "SECRET_KEY": "wheel-test", "DEBUG": "True"},
    )
    assert done.returncode == 0, done.stderr
    files = json.loads(done.stdout.strip().splitlines()[-1])
    ours = {name: path for name, path in files.items() if name.split(".")[0] in APPS}
    assert set(APPS) <= set(ours)
    for name, path in ours.items():
        assert Path(path).is_relative_to(installed), f"{name} came from {path}, not the wheel"
