"""The simulator benchmark's own levels: the 5000-unit skirmish is beyond what a level may start
with, so the bench raises that bound for its own level only; the melee is fought to an end."""
import tempfile
from pathlib import Path

import pytest

from engine.bench import RULE, bench_level, melee_figures
from engine.errors import LevelError
from engine.level import MAX_START_UNITS, load_level


def _load(units_per_side: int, **kw):
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "counter.lua").write_text(RULE, encoding="utf-8")
        return load_level(bench_level(units_per_side, per_anchor=25), base_dir=tmp, **kw)


def test_a_level_may_not_start_with_5000_units():
    assert 5000 > MAX_START_UNITS
    with pytest.raises(LevelError, match="5000 units in total"):
        _load(2500)


def test_the_bench_raises_the_bound_for_its_own_level():
    level = _load(2500, max_start_units=5000)
    assert len(level.placements) == 5000


@pytest.mark.slow
def test_melee_is_fought_to_an_end():
    melee = melee_figures(per_side=20)["melee_20v20"]
    assert melee["ended_by"] == "condition" and melee["deaths"] >= 20
    assert melee["game_seconds_per_cpu_second"] > 0


@pytest.mark.slow
def test_sandbox_figures_report_kill_latency_and_host_memory():
    from engine.bench import sandbox_kill_latencies

    figures = sandbox_kill_latencies(repeats=1)
    assert figures["kill_reason_budget_refill"] == "instruction budget exceeded"
    assert "bytes of text" in figures["kill_reason_shared_string_copies"]
    assert figures["kill_host_peak_kb_shared_string_copies"] < 16 * 1024
    assert all(f"kill_ms_{name}" in figures for name in ("runaway_loop", "memory_bomb", "budget_refill"))
    assert figures["order_flood_run_s"] < 20 and figures["peak_rss_mb"] < 512
