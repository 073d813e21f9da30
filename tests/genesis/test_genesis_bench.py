"""`genesis bench` states its targets and says whether the measured figures meet them."""
from __future__ import annotations

import pytest

from genesis.bench import TARGETS, targets_met


def _figures(cold_s: float, fast_s: float, cold_cpu: float, fast_cpu: float) -> dict:
    return {"cold": {"wall_s": cold_s, "cpu_s": cold_cpu}, "fast_track": {"wall_s": fast_s, "cpu_s": fast_cpu},
            "fast_to_cold_wall": round(fast_s / cold_s, 3), "fast_to_cold_cpu": round(fast_cpu / cold_cpu, 3)}


def test_the_targets_are_a_certified_cold_generation_in_10_s_and_a_fast_track_at_most_a_fifth_of_it():
    assert TARGETS["cold_max_s"] == 10.0 and TARGETS["fast_to_cold_max"] == 0.2


def test_each_target_is_judged_against_the_measured_figures():
    assert targets_met(_figures(4.9, 0.9, 8.0, 1.2)) == {"cold": True, "fast_track": True, "fast_to_cold": True,
                                                         "fast_to_cold_cpu": True}
    slow = targets_met(_figures(12.5, 3.0, 14.0, 1.4))
    assert slow == {"cold": False, "fast_track": True, "fast_to_cold": False, "fast_to_cold_cpu": True}
    assert not targets_met(_figures(4.0, 11.0, 8.0, 9.0))["fast_track"]


def test_the_median_round_is_judged_and_an_even_count_takes_the_lower_middle():
    from genesis.bench import median_round

    rounds = [_figures(w, 0.5, 8.0, 0.5) for w in (6.1, 4.2, 9.8)]
    assert median_round(rounds)["cold"]["wall_s"] == 6.1
    assert median_round(rounds[:2])["cold"]["wall_s"] == 4.2
    assert median_round(rounds[1:2]) is rounds[1]


def test_a_failed_round_is_a_clear_error_with_its_output(monkeypatch):
    import subprocess

    import pytest

    from genesis import bench

    failed = subprocess.CompletedProcess([], 1, stdout="", stderr="Traceback ...\nOSError: disk full")
    monkeypatch.setattr(subprocess, "run", lambda *a, **kw: failed)
    with pytest.raises(bench.BenchError, match=r"(?s)round 1 failed \(exit 1\): Traceback .*disk full"):
        bench.run_bench(rounds=2)


@pytest.mark.slow
def test_the_fresh_process_figures_are_what_a_user_waits_for():
    """`genesis new` in a fresh process: exit 0 (the suite's GENESIS_CERTIFICATE=off reaches it, so PLAYABLE with the
    certificate skipped), wall time covering the generation; the empty query exit 2."""
    from genesis.bench import fresh_process_bench

    figures = fresh_process_bench()
    assert figures["exit_code"] == 0 and figures["verdict"] in ("CERTIFIED", "PLAYABLE (certificate skipped)")
    assert figures["wall_s"] > figures["generation_time_s"] > 0 and figures["outside_generation_s"] > 0
    # the simulation workers' CPU is counted with the command's; the start-up comes before the generation
    assert figures["cpu_s"] > 0 and 0 < figures["first_model_call_s"] < figures["outside_generation_s"]
    assert figures["load_average"] >= 0
    assert figures["empty_query_exit_code"] == 2 and figures["empty_query_wall_s"] < figures["wall_s"]


def test_the_first_model_call_starts_its_latency_before_its_record(tmp_path):
    from datetime import datetime, timezone

    from genesis.bench import first_model_call_s

    launched = datetime(2026, 1, 1, 12, 0, 0, tzinfo=timezone.utc).timestamp()
    transcript = tmp_path / "transcript.jsonl"
    transcript.write_text('{"ts": "2026-01-01T12:00:03.500+00:00", "call": 1, "latency_ms": 250.0}\n'
                          '{"ts": "2026-01-01T12:00:09.000+00:00", "call": 2, "latency_ms": 10.0}\n', encoding="utf-8")
    assert first_model_call_s(transcript, launched) == 3.25
    transcript.write_text("not json\n", encoding="utf-8")
    assert first_model_call_s(transcript, launched) is None
    assert first_model_call_s(tmp_path / "missing.jsonl", launched) is None
