"""gdd.md: every field of the GDD as readable text, no raw Python or JSON structures."""
from __future__ import annotations

import re

from genesis.models import GDD
from genesis.pipeline.docs import gdd_markdown, plain

GDD_DOC = {
    "title": "Hold the ford", "competency": "spatial_temporal_reasoning", "summary": "Hold the ford.",
    "agent_description": "Keep the storage alive.",
    "map": {"generate": {"width": 64, "height": 48, "seed": 3, "water_density": 0.1}},
    "teams": [{"id": 0, "name": "Guards", "role": "player", "controller": {"type": "agent"}, "allies": [2],
               "metal": 200, "units": [{"type": "metal_storage", "x": 10.5, "y": 20.5, "tag": "objective"},
                                        {"type": "light_tank", "count": 4, "at": "ford"}]},
              {"id": 1, "name": "Raiders", "role": "enemy",
               "controller": {"type": "ai", "behaviour": "waves", "target": {"x": 32, "y": 24}, "interval": 45}}],
    "rule_components": [{"id": "waves", "purpose": "raids", "kind": "spawn", "library_rule": "staggered_waves",
                         "params": {"times": [30.0, 90.0], "units": {"light_bot": 4}, "targets": [[10.5, 20.5]]},
                         "requirement_ids": ["raids"]}],
    "fog_of_war": True, "production": False, "time_limit": 240,
    "conditions": [{"kind": "survive_until", "team": 0, "time": 240}],
    "requirements": [{"id": "raids", "text": "two raids", "expect": [
        {"event": "spawn", "where": {"source": "rule"}, "time_clusters": {"min": 2, "gap": 20}}]}],
    "win_paths": ["survive"], "loss_paths": ["storage destroyed"], "reference_strategy": "defend",
    "strategy_params": {"protect_tag": "objective", "home": [10.5, 20.5]},
}


def test_every_field_is_readable_text():
    md = gdd_markdown(GDD.model_validate(GDD_DOC))
    assert not re.search(r"[{}]|\[\s*[-\d'\"\[{]|'\w+':", md), md     # no dict or list literal anywhere
    for text in ("generated map (width = 64; height = 48; seed = 3; cliff_density = 0.08; water_density = 0.1",
                 "controller `ai`/waves (target = (x = 32; y = 24); first_at = 0; interval = 45; min_group = 1; choose_target = False)", "allies T2", "200 metal, 0 energy",
                 "1x metal_storage at (10.5, 20.5) [objective]", "4x light_tank at ford",
                 "params: times = 30, 90; units = (light_bot = 4); targets = (10.5, 20.5)",
                 "- kind = survive_until; team = 0; time = 240",
                 "expect: event = spawn; where = (source = rule); time_clusters = (gap = 20; min = 2)",
                 "Reference strategy: `defend` (protect_tag = objective; home = 10.5, 20.5)",
                 "time limit: 240 s", "Fog of war: on"):
        assert text in md, text


def test_plain_values():
    assert plain({"name": "crossroads"}) == "name = crossroads"
    assert plain([]) == "none" and plain(None) == "none" and plain(2.50) == "2.5"
