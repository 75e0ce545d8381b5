"""The house: one folder per domain, dependencies pointing down, no import cycles (docs/architecture.md).

The layers are import-linter contracts in pyproject.toml; the cycle check reads every import of every
module, those inside functions included, so a cycle cannot hide behind a lazy import.
"""

from __future__ import annotations

from pathlib import Path

import grimp
import networkx as nx
import pytest
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[1]
# The error base (coded_errors/) lies below every package: any may import it, and it imports none.
ERROR_BASE = "coded_errors"
# What each package may import of the others: the contracts' layers, spelled out.
MAY_IMPORT = {
    ERROR_BASE: set(),
    "core": set(),
    "engines": set(),
    "matches": {"core", "engines"},
    "decks": {"core", "engines"},
    "tournaments": {"core", "engines", "matches", "decks"},
    "ratings": {"core", "engines", "matches", "decks"},
    "bots": {"core", "engines", "matches", "decks"},
    "api": {"core", "engines", "matches", "decks", "tournaments", "ratings", "bots"},
    "snakepit": {"core", "engines", "matches", "decks", "tournaments", "ratings", "bots", "api"},
}
PACKAGES = tuple(MAY_IMPORT)

# Where a newcomer looks for each domain, and what they find there.
DOMAINS = {
    "matches": {"Match", "MatchSeat", "MatchEvent", "Challenge", "ChallengeSeat"},
    "decks": {"Deck", "DeckVersion", "BanList"},
    "tournaments": {
        "Tournament", "TournamentEvent", "TournamentEntry", "TournamentTable", "TournamentStanding", "TournamentMatch",
        "TournamentSnapshot", "TournamentWebhook", "TournamentWebhookDelivery",
    },
    "ratings": {"Ladder", "LadderEntry", "LadderRound", "LadderMatch", "RatedMatch", "RatingChange", "LadderSeason"},
    "bots": {"Bot", "BotVersion", "BotSeat"},
}  # fmt: skip


@pytest.fixture(scope="module")
def import_graph() -> nx.DiGraph:
    graph = grimp.build_graph(*PACKAGES, include_external_packages=False)
    edges = nx.DiGraph()
    for module in graph.modules:
        edges.add_node(module)
        for imported in graph.find_modules_directly_imported_by(module):
            edges.add_edge(module, imported)
    return edges


def import_cycles(edges: nx.DiGraph) -> list[list[str]]:
    """Every set of modules that import each other round in a circle, each as one example cycle."""
    found = []
    for component in nx.strongly_connected_components(edges):
        if len(component) > 1:
            found.append(nx.find_cycle(edges.subgraph(component)))
    return [[a for a, _ in cycle] + [cycle[-1][1]] for cycle in found]


def test_the_cycle_check_finds_a_cycle_behind_three_modules():
    edges = nx.DiGraph(
        [("a.services", "a.tasks"), ("a.tasks", "a.store"), ("a.store", "a.services"), ("a.x", "a.store")]
    )
    cycles = import_cycles(edges)
    assert len(cycles) == 1 and set(cycles[0]) == {"a.services", "a.tasks", "a.store"}


def test_no_module_imports_itself_round_a_circle(import_graph):
    cycles = import_cycles(import_graph)
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(cycle) for cycle in cycles)


def test_each_package_imports_only_the_layers_below_it(import_graph):
    upward = sorted(
        f"{source} imports {target}"
        for source, target in import_graph.edges
        if (a := source.split(".")[0]) != (b := target.split(".")[0])
        and b not in MAY_IMPORT[a]
        and b != ERROR_BASE
    )
    assert not upward, "imports against the layers:\n" + "\n".join(upward)


def test_the_import_linter_contracts_are_kept(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True) == 0


def test_each_domain_lives_in_the_folder_named_after_it():
    from django.apps import apps

    for label, models in DOMAINS.items():
        config = apps.get_app_config(label)
        assert Path(config.path) == ROOT / label
        assert {model.__name__ for model in config.get_models()} == models
        for module in ("models", "services", "selectors", "admin"):
            assert (ROOT / label / f"{module}.py").is_file(), f"{label}/ has no {module}.py"
