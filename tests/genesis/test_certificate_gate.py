"""The validity certificate inside the loop: a level-gate criterion, a GDD variation check, the offline
PM's levers, and a verdict that says NOT CERTIFIED (exit 4, nothing committed to the KB)."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from genesis.checks.certificate_checks import certificate
from genesis.checks.context import CheckContext
from genesis.checks.gdd_checks import variation_declared
from genesis.models import GDD, Brief, SeedVariation
from genesis.offline.gdd_writer import design
from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.offline.pm_brain import CHEAP_WIN, VARY_MORE, WEAKER, meta_feedback
from genesis.pipeline.finalize import verdict_label
from tests.genesis.pipeline_fixtures import seed_dirs, tree_hash  # noqa: F401 (fixture)

FAILING = {"valid": False, "checks": {"replay": {"passed": True, "detail": "same"},
                                      "open_loop": {"passed": False, "detail": "blind replay won 5/5 seeds"},
                                      "no_cheap_win": {"passed": False, "detail": "rush won 5/5 seeds"}},
           "flags": [], "errors": [], "levers": ["vary which front each wave hits"]}


def test_the_certificate_criterion_fails_with_the_failing_checks_and_the_levers():
    ok, why = certificate(CheckContext(certificate=FAILING))
    assert not ok and "open_loop: blind replay won 5/5" in why and "rush won 5/5" in why
    assert "Levers: vary which front" in why and "replay" not in why.split("Levers")[0].replace("blind replay", "")
    assert certificate(CheckContext(certificate={**FAILING, "valid": True, "difficulty": "hard"}))[0]
    assert not certificate(CheckContext(certificate=None))[0]
    ok, why = certificate(CheckContext(certificate={"skipped": "GENESIS_CERTIFICATE=off"}))
    assert ok and "not certified" in why


def test_the_offline_pm_rolls_back_to_the_design_with_the_lever_each_failing_check_points_to():
    def decide(reason):
        verdict = {"passed": False, "criteria": [{"id": "certificate", "kind": "check:certificate", "passed": False,
                                                  "mandatory": True, "reason": reason}]}
        return meta_feedback({"stage": "level", "verdict": verdict, "attempts": 1, "budget": 3})

    mf = decide("not certified: seeds_matter: the level plays the same game on every seed; open_loop: won 5/5")
    assert (mf.decision, mf.target_stage) == ("rollback", "gdd") and VARY_MORE in mf.guidance
    assert CHEAP_WIN not in mf.guidance and WEAKER not in mf.guidance
    mf = decide("not certified: no_cheap_win: rush won 5/5 seeds")
    assert CHEAP_WIN in mf.guidance and VARY_MORE not in mf.guidance
    mf = decide("not certified: reference_wins: reference won 3/5 seeds")
    assert WEAKER in mf.guidance


def _gdd(query: str) -> tuple[Brief, GDD]:
    brief = write_brief(query, read(query))
    return brief, design(brief)


def test_variation_declared_accepts_real_mechanisms_and_rejects_invented_ones():
    brief, gdd = _gdd("defend two fronts with staggered waves")
    ok, why = variation_declared(CheckContext(brief=brief, gdd=gdd))
    assert ok, why
    comp = gdd.rule_components[0]
    bad = gdd.model_copy(deep=True)
    bad.variation.varies[0].how = f"{comp.id}.no_such_param"
    ok, why = variation_declared(CheckContext(brief=brief, gdd=bad))
    assert not ok and "no_such_param" in why
    bad.variation.varies[0].how = "the weather"
    assert not variation_declared(CheckContext(brief=brief, gdd=bad))[0]
    empty = gdd.model_copy(deep=True)
    empty.variation.varies = []
    ok, why = variation_declared(CheckContext(brief=brief, gdd=empty))
    assert not ok and "varies is empty" in why
    # a fixed drill must quote the request
    empty.variation.fixed_by = "waves at exactly 0:30 from the north"
    assert not variation_declared(CheckContext(brief=brief, gdd=empty))[0]
    empty.variation.fixed_by = "Staggered   waves"
    ok, why = variation_declared(CheckContext(brief=brief, gdd=empty))
    assert ok and why.startswith("fixed drill")


@pytest.mark.parametrize("status,cert,label", [
    ("playable", {"valid": True}, "CERTIFIED"),
    ("playable", {"skipped": "GENESIS_CERTIFICATE=off"}, "PLAYABLE (certificate skipped)"),
    ("not_certified", {"valid": False}, "NOT CERTIFIED"),
    ("playable", {"valid": False}, "NOT CERTIFIED"),
    ("failed", None, "NOT PLAYABLE"),
    ("refused", None, "REFUSED"),
])
def test_the_verdict_label(status, cert, label):
    assert verdict_label(status, cert) == label


def test_a_level_that_plays_but_is_not_certified_exits_4_and_leaves_the_kb_untouched(tmp_path, seed_dirs, monkeypatch):
    """With the certificate on, a level whose certificate cannot hold (its variation removed) stops NOT
    CERTIFIED: its folder keeps the verdict and the failing check, the KB is unchanged, exit 4."""
    from genesis.cli import app
    from genesis.offline import gdd_writer

    kb, rubrics = seed_dirs
    before = tree_hash(kb)
    real = gdd_writer.design

    def unvaried(brief, guidance=None):
        """Never varies anything, yet declares a variation through a real param, so only the
        certificate, which plays the level on every seed, can see that the seed changes nothing."""
        gdd = real(brief, guidance)
        for comp in gdd.rule_components:
            for knob in ("shuffle", "jitter", "avoid_repeat", "random_sides"):
                comp.params.pop(knob, None)
        comp = gdd.rule_components[0]
        gdd.variation.fixed_by = None
        gdd.variation.varies = [SeedVariation(what="nothing really", how=f"{comp.id}.{next(iter(comp.params))}",
                                              observe="nothing")]
        return gdd

    monkeypatch.setattr(gdd_writer, "design", unvaried)
    monkeypatch.setenv("GENESIS_CERTIFICATE", "on")
    monkeypatch.setenv("GENESIS_KB_DIR", str(kb))
    monkeypatch.setenv("GENESIS_RUBRICS_DIR", str(rubrics))
    out = tmp_path / "scenario"
    result = CliRunner().invoke(app, ["new", "hold the bridge against three waves", "--out", str(out)])
    v = json.loads((out / "validation.json").read_text())
    assert result.exit_code == 4, result.output
    assert v["status"] == "not_certified" and v["playable"] and not v["certified"] and v["verdict"] == "NOT CERTIFIED"
    assert not v["certificate"]["valid"] and not v["certificate"]["checks"]["seeds_matter"]["passed"]
    assert "NOT CERTIFIED" in result.output and "not committed" in result.output
    assert (out / "report.html").is_file()
    assert tree_hash(kb) == before
