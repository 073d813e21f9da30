"""The five reference mini-games as benchmark tasks: each declares what its seed varies through a
mechanism the level really has, and the validity certificate holds (@slow: each plays ~20 games)."""
from __future__ import annotations

import pytest
import yaml

from engine import load_level
from genesis.certificate import certify
from genesis.models import Variation
from genesis.workspace import seed_kb

LEVELS = seed_kb() / "levels"
GAMES = ("TCP", "MFD", "FS-F", "FS-T", "SP")


def _mechanism_exists(level, how: str) -> bool:
    """Whether `how` ('<rule id>.<param>', '<rule id>: random', 'switches.spawn_jitter' or
    '<team id>.choose_target') names a seeded mechanism this level has."""
    head, _, rest = how.partition(":")
    name, _, param = head.strip().partition(".")
    rules = {r.id: r for r in level.config.rules}
    teams = {str(t.id): t for t in level.config.teams}
    if name == "switches":
        return param == "spawn_jitter" and level.config.switches.spawn_jitter > 0
    if name in teams:
        return param == "choose_target" and getattr(teams[name].controller, "choose_target", False)
    if name not in rules:
        return False
    if param:
        return param in rules[name].params
    return rest.strip().startswith("random") and "random" in level.rule_sources[name]


@pytest.mark.parametrize("game", GAMES)
def test_each_game_declares_its_seeded_variation(game):
    level = load_level(LEVELS / game / "level.json")
    variation = Variation.model_validate(level.config.metadata["variation"])
    assert variation.varies and variation.fixed_by is None
    for v in variation.varies:
        assert _mechanism_exists(level, v.how), f"{game}: {v.how!r} names no seeded mechanism of the level"
    meta = yaml.safe_load((LEVELS / game / "meta.yaml").read_text())
    assert meta["certification"]["changed"] and meta["certification"]["why"]


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_reference_game_is_certified(game):
    cert = certify(LEVELS / game / "level.json")
    failing = {k: c.detail for k, c in cert.checks.items() if not c.passed}
    assert cert.valid, (failing, cert.flags, cert.errors)
    assert cert.rungs["reference"].seeds_won == cert.seeds


def test_siege_reference_scouts_only_the_sites_the_briefing_names():
    """SP's reactor stands at a site drawn per seed: the reference may know the candidate sites the
    agent is told, never which one holds the reactor."""
    level = load_level(LEVELS / "SP" / "level.json")
    sites = next(r for r in level.config.rules if r.id == "static_fortification").params["sites"]
    assert level.config.metadata["reference"]["search"] == sites and len(sites) == 3
    assert all(f"({x:g}, {y:g})" in level.config.description for x, y in sites)
