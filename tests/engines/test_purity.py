"""engines/ is our scalachess: no Django, no clock, no global random, no I/O, no environment.

Every .py file under engines/ is parsed (never imported) and walked for what an engine must not do.
Reading a catalogue shipped inside a package through `importlib.resources` is the one I/O allowed:
it is data that travels with the code, the same on every machine.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINES = Path(__file__).resolve().parents[2] / "engines"
TEST_GAMES = Path(__file__).resolve().parents[1] / "games"  # held to the same rules as shipped ones

FORBIDDEN_PACKAGES = {"django", "rest_framework", "celery"}
# `random.Random(seed)` is a generator a caller owns; everything else in `random` is the global one.
GLOBAL_RANDOM = {
    "random", "choice", "choices", "randint", "randrange", "shuffle", "sample", "uniform", "seed",
    "getrandbits", "gauss", "normalvariate", "triangular", "betavariate", "expovariate",
    "gammavariate", "lognormvariate", "vonmisesvariate", "paretovariate", "weibullvariate",
    "randbytes", "binomialvariate", "getstate", "setstate", "SystemRandom",
}  # fmt: skip
CLOCK_OF_MODULE = {
    "time": {"time", "time_ns", "monotonic", "monotonic_ns", "perf_counter", "perf_counter_ns",
             "localtime", "gmtime", "ctime", "asctime", "sleep"},
}  # fmt: skip
CLOCK_METHODS = {"now", "utcnow", "today"}  # datetime.now(), datetime.datetime.utcnow(), date.today()
ENVIRONMENT = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}
OPEN_OF_MODULE = {"io": {"open", "open_code"}, "os": {"open", "fdopen", "popen"}, "codecs": {"open"}}
FILE_METHODS = {"read_text", "read_bytes", "write_text", "write_bytes", "open"}
ALLOWED_RESOURCES = "importlib.resources"


def dotted(node: ast.AST) -> str | None:
    """`a.b.c` for a chain of attributes on a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def problems(source: str, filename: str = "<source>") -> list[str]:
    """Every forbidden thing in `source`, as "line: what"."""
    tree = ast.parse(source, filename)
    found: list[str] = []
    uses_resources = False
    local_random: set[str] = set()  # names bound by `from random import ...`
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                root = alias.name.split(".")[0]
                if root in FORBIDDEN_PACKAGES:
                    found.append(f"{node.lineno}: imports {alias.name}")
                if alias.name.startswith(ALLOWED_RESOURCES):
                    uses_resources = True
        elif isinstance(node, ast.ImportFrom) and node.module:
            root = node.module.split(".")[0]
            names = {alias.name for alias in node.names}
            if root in FORBIDDEN_PACKAGES:
                found.append(f"{node.lineno}: imports from {node.module}")
            if node.module == "random":
                bad = names & (GLOBAL_RANDOM | {"*"})
                if bad:
                    found.append(f"{node.lineno}: imports the global random's {', '.join(sorted(bad))}")
                local_random |= bad
            if node.module in CLOCK_OF_MODULE and names & (CLOCK_OF_MODULE[node.module] | {"*"}):
                found.append(f"{node.lineno}: imports the clock from {node.module}")
            if node.module == "os" and names & (ENVIRONMENT | {"*"}):
                found.append(f"{node.lineno}: imports the environment from os")
            if node.module in OPEN_OF_MODULE and names & OPEN_OF_MODULE[node.module]:
                found.append(f"{node.lineno}: imports a file opener from {node.module}")
            if node.module == ALLOWED_RESOURCES or (node.module == "importlib" and "resources" in names):
                uses_resources = True
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            name = dotted(node)
            if name in {"os.environ", "os.environb"}:
                found.append(f"{node.lineno}: reads the environment ({name})")
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = dotted(func)
        if isinstance(func, ast.Name):
            if func.id == "open":
                found.append(f"{node.lineno}: calls open()")
            if func.id in local_random:
                found.append(f"{node.lineno}: calls the global random's {func.id}()")
            continue
        if not isinstance(func, ast.Attribute):
            continue
        owner = dotted(func.value)
        if owner == "random" and func.attr in GLOBAL_RANDOM:
            found.append(f"{node.lineno}: calls random.{func.attr}()")
        if owner == "random" and func.attr == "Random" and not node.args and not node.keywords:
            found.append(f"{node.lineno}: makes an unseeded random.Random()")
        if owner in CLOCK_OF_MODULE and func.attr in CLOCK_OF_MODULE[owner]:
            found.append(f"{node.lineno}: reads the clock ({name}())")
        if func.attr in CLOCK_METHODS and owner is not None and owner.split(".")[-1] in {"datetime", "date"}:
            found.append(f"{node.lineno}: reads the clock ({name}())")
        if owner == "os" and func.attr in ENVIRONMENT:
            found.append(f"{node.lineno}: reads the environment (os.{func.attr}())")
        if owner in OPEN_OF_MODULE and func.attr in OPEN_OF_MODULE[owner]:
            found.append(f"{node.lineno}: opens a file ({name}())")
        elif func.attr in FILE_METHODS and not uses_resources:
            # Outside a module reading its catalogue through importlib.resources, this is file I/O.
            found.append(f"{node.lineno}: file I/O (.{func.attr}())")
    return found


def engine_files() -> list[Path]:
    files = [*ENGINES.rglob("*.py"), *TEST_GAMES.rglob("*.py")]
    return sorted(path for path in files if "__pycache__" not in path.parts)


def test_there_are_engine_files() -> None:
    assert {ENGINES / "protocol.py", TEST_GAMES / "cup_dice" / "rules.py"} <= set(engine_files())


@pytest.mark.parametrize("path", engine_files(), ids=lambda path: str(path.relative_to(ENGINES.parent)))
def test_engine_module_is_pure(path: Path) -> None:
    assert problems(path.read_text(encoding="utf-8"), str(path)) == []


# The checker itself: each snippet must be caught, and the allowed ones must pass.
@pytest.mark.parametrize(
    "source",
    [
        "import django",
        "from django.db import models",
        "import rest_framework.serializers",
        "from celery import shared_task",
        "import random\nrandom.random()",
        "import random\nx = random.choice([1, 2])",
        "import random\nrandom.shuffle(items)",
        "import random\nrandom.seed(4)",
        "from random import randint",
        "import random\nrng = random.Random()",
        "import random\nrng = random.SystemRandom()",
        "import time\ntime.time()",
        "from time import time",
        "import datetime\ndatetime.datetime.now()",
        "from datetime import datetime\ndatetime.utcnow()",
        "from datetime import date\ndate.today()",
        "open('catalogue.json')",
        "import io\nio.open('x')",
        "from pathlib import Path\nPath('x').read_text()",
        "import os\nos.environ['DEBUG']",
        "import os\nos.environ.get('DEBUG')",
        "import os\nos.getenv('DEBUG')",
        "from os import environ",
    ],
)
def test_checker_catches(source: str) -> None:
    assert problems(source) != []


@pytest.mark.parametrize(
    "source",
    [
        "import random\ndef act(rng: random.Random):\n    return rng.choice([1, 2])",
        "import random\nrng = random.Random(7)",
        "from importlib.resources import files\n"
        "DATA = files('engines.ragnguns').joinpath('catalogue.json').read_text(encoding='utf-8')",
        "import importlib.resources\n"
        "with importlib.resources.files(__package__).joinpath('catalogue.json').open('rb') as f:\n    pass",
        "from importlib import resources\nTEXT = (resources.files(__package__) / 'cards.json').read_text()",
        "from importlib import import_module\nimport_module('engines.ratsnake')",
    ],
)
def test_checker_allows(source: str) -> None:
    assert problems(source) == []
