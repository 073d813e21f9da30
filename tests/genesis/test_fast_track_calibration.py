"""Fast-track calibration: a stored design serves a new request when the concept signatures match and
the texts are similar enough. Measured on paraphrase pairs (must match) and near-misses (must not):
precision and recall of the match are printed and bounded."""
import numpy as np
import pytest

from genesis.kb.embedding import embed
from genesis.kb.library import FAST_TRACK_MIN_SCORE, signature
from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.offline.gdd_writer import design

# (stored request, new request, same game?)
PAIRS = [
    ("defend two fronts with staggered waves", "hold off staggered attack waves coming from two fronts", True),
    ("survive three waves from two directions, each larger than the last",
     "withstand 3 escalating waves attacking from 2 directions", True),
    ("protect 3 metal storages from raiders that attack every two minutes",
     "raiders hit your three metal storages every 2 minutes; keep them alive", True),
    ("build 6 assault bots within 10 minutes", "produce six assault bots in under 10 minutes", True),
    ("a free-for-all of four teams ranked by kills", "4-team free for all, ranking by kill count", True),
    ("a 2v2 team battle with fixed forces and no production", "two versus two battle, no production, fixed armies", True),
    ("destroy the fortified enemy base with artillery only", "siege a fortress using only artillery", True),
    ("capture and hold the zone in the middle of the map for 2 minutes",
     "take the central zone and keep it for two minutes", True),
    ("hold the bridge against three waves", "defend the river crossing from 3 attack waves", True),
    ("bombers raid your base at minute 3", "an air raid by bombers hits the base at 3 minutes", True),
    ("king of the hill: hold the centre, the enemy gets reinforcements every time you kill a squad",
     "hold the middle of the map; whenever you destroy an enemy squad, they get reinforcements", True),
    ("defend your base against waves", "survive a siege of your base by waves of bots", True),
    # near-misses: another number, target, metric, unit kind or goal
    ("defend two fronts with staggered waves", "defend three fronts with staggered waves", False),
    ("survive three waves from two directions, each larger than the last", "survive four waves from two directions", False),
    ("protect 3 metal storages from raiders that attack every two minutes",
     "protect 2 extractors from raiders attacking every minute", False),
    ("build 6 assault bots within 10 minutes", "build 6 light tanks within 10 minutes", False),
    ("a free-for-all of four teams ranked by kills", "a free-for-all of four teams ranked by damage dealt", False),
    ("hold the bridge against three waves", "hold the bridge against three waves of bombers", False),
    ("destroy the fortified enemy base with artillery only", "destroy the fortified enemy base", False),
    ("a 2v2 team battle with fixed forces and no production", "a 3v3 team battle with fixed forces and no production", False),
    ("king of the hill: hold the centre, the enemy gets reinforcements every time you kill a squad",
     "capture a neutral structure in the middle of the map", False),
    ("defend your base", "defend two allied bases", False),
    ("defend two fronts with staggered waves", "scout the map and find the enemy commander", False),
    ("defend your base against waves", "produce an economy of 10 extractors", False),
]


def _stored(query):
    """A committed design's signature and indexed text (query, summary, agent description)."""
    brief = write_brief(query, read(query), [])
    return signature(brief.concepts), f"{query}\n{brief.summary}\n{design(brief).agent_description}"


def _new(query):
    """A new request's signature and search text, as kb_match builds them."""
    brief = write_brief(query, read(query), [])
    return signature(brief.concepts), f"{brief.query}\n{brief.summary}"


@pytest.fixture(scope="module")
def scored():
    rows = []
    for stored, new, same in PAIRS:
        (sig_a, text_a), (sig_b, text_b) = _stored(stored), _new(new)
        a, b = embed([text_a, text_b])
        sim = float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))
        rows.append({"new": new, "same": same, "sig": sig_a == sig_b, "sim": sim})
    return rows


@pytest.mark.slow
def test_fast_track_match_precision_and_recall(scored):
    matched = [r for r in scored if r["sig"] and r["sim"] >= FAST_TRACK_MIN_SCORE]
    true_pos = sum(r["same"] for r in matched)
    precision = true_pos / len(matched) if matched else 1.0
    recall = true_pos / sum(r["same"] for r in scored)
    print(f"\nfast-track at similarity >= {FAST_TRACK_MIN_SCORE}: precision {precision:.2f}, recall {recall:.2f} "
          f"over {sum(r['same'] for r in scored)} paraphrases and {sum(not r['same'] for r in scored)} near-misses")
    for r in scored:
        if (r in matched) != r["same"]:
            print(f"  {'missed' if r['same'] else 'wrong'}: {r['new']!r} signature {'=' if r['sig'] else '!='}, "
                  f"similarity {r['sim']:.2f}")
    assert precision == 1.0          # a near-miss must never be served a stored design
    assert recall >= 0.8


def test_the_threshold_lies_in_the_measured_gap(scored):
    """Above every same-signature near-miss, at or below every same-signature paraphrase."""
    near_misses = [r["sim"] for r in scored if r["sig"] and not r["same"]]
    paraphrases = [r["sim"] for r in scored if r["sig"] and r["same"]]
    assert max(near_misses, default=0.0) < FAST_TRACK_MIN_SCORE <= min(paraphrases)
