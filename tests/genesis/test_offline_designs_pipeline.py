"""Full offline generations of the new design families (named sides in order, doubling waves, capture
and hold, an 8-team free-for-all): each comes out PLAYABLE with every new requirement verified by
its expectations in the validation runs. The brief is the brief writer's with the concept fields
and requirement ids set by hand, as the reader is to set them.

Slow (a full generation with simulations each): run with `pytest -m slow tests/genesis/test_offline_designs_pipeline.py`.
"""
import json

import pytest

from genesis.offline import brief_writer
from genesis.pipeline.runner import start
from genesis.workspace import copy_seed
from tests.genesis.offline_design_helpers import brief_for

pytestmark = pytest.mark.slow

FAMILIES = {
    "in turn from west, north and east": (
        "defend against attacks in turn from west, north and east",
        {"directions": "attacks come from the west, north and east", "front_order": "west, then north, then east",
         "front_times": "west at 1:00, north at 2:30, east at 4:00"}, {},
        dict(directions=["w", "n", "e"], direction_times=[60.0, 150.0, 240.0], wave_times=[60.0, 150.0, 240.0], fronts=3,
             staggered=True)),
    "doubling waves": (
        "survive waves that double in size three times",
        {"growth": "each wave twice the last"}, {},
        # the reader is to see "double" as growth: no staggered schedule of equal waves
        dict(escalating=True, growth_factor=2.0, waves=3, wave_times=[], drop=("wave_times", "staggered"))),
    "capture and hold": (
        "capture the centre and hold it for 90 seconds before minute 5",
        {"capture_win": "holding the zone wins", "hold_zone": "hold the zone for 90 seconds",
         "deadline": "hold it before minute 5"}, {"deadline": "idle"},
        dict(archetype="capture", hold_time=90.0, deadline=300.0)),
    "8-way free-for-all": (
        "an 8-way free-for-all for 4 minutes",
        {"team_count": "exactly 8 teams", "ffa_no_allies": "no alliances"}, {}, dict(teams=8)),
}


@pytest.mark.timeout(900)
@pytest.mark.parametrize("family", list(FAMILIES))
def test_family_is_playable_with_every_new_requirement_verified(family, tmp_path, monkeypatch):
    query, reqs, on, concepts = FAMILIES[family]
    brief = brief_for(query, reqs, on, **concepts)
    monkeypatch.setattr(brief_writer, "write_brief", lambda *args, **kwargs: brief)
    kb, rubrics = copy_seed(tmp_path / "kb")
    outcome = start(query, out=tmp_path / "out", kb_root=kb, rubrics_root=rubrics, options={"frozen": True})
    v = json.loads((outcome.out_dir / "validation.json").read_text())
    status = {r["id"]: (r["status"], r.get("detail", "")[:300]) for r in v["requirements"]}
    assert v["playable"], (v.get("reason"), status)
    for rid in reqs:
        assert status[rid][0] == "verified", (rid, status[rid])
