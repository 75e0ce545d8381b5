"""tournaments/formats is a pure library: no Django / DRF / Celery, no clock, no global random."""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3] / "tournaments" / "formats"
FILES = sorted(ROOT.glob("*.py"))
FORBIDDEN = ("django", "rest_framework", "celery")


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_no_framework_imports(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        for name in names:
            assert name.split(".")[0] not in FORBIDDEN, f"{path.name} imports {name}"
        # Randomness only through an explicit random.Random.
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
        ):
            if node.func.value.id == "random" and node.func.attr != "Random":
                pytest.fail(f"{path.name}:{node.lineno} uses the global random.{node.func.attr}")


def test_package_imports():
    import tournaments.formats as formats

    assert callable(formats.swiss_pair_round)
