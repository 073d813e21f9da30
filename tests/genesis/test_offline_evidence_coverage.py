"""Every design the offline designer makes gives each testable requirement of its brief some evidence:
the requirements_covered check (which a model's GDD must pass too) holds for every request the reader
accepts, over the corpus, the example queries and the experiment's stream (a design only, no simulation)."""
from __future__ import annotations

from pathlib import Path

import pytest
from corpus.schema import load_corpus

from genesis.checks.context import CheckContext
from genesis.checks.gdd_checks import requirements_covered
from genesis.offline import brief_writer, gdd_writer
from genesis.offline.concepts import read

ROOT = Path(__file__).resolve().parents[2]


def _requests() -> list[str]:
    lines = []
    for path in (ROOT.parent / "shared" / "queries" / "examples.txt", ROOT / "genesis" / "experiment" / "default_queries.txt"):
        if path.is_file():
            lines += [ln.strip() for ln in path.read_text(encoding="utf-8").splitlines()
                      if ln.strip() and not ln.lstrip().startswith("#")]
    return sorted(set(lines) | {e.request for e in load_corpus()})


@pytest.mark.parametrize("request_text", _requests())
def test_every_testable_requirement_has_evidence(request_text):
    reading = read(request_text)
    if not reading.is_game:
        pytest.skip(f"refused: {reading.refusal}")
    brief = brief_writer.write_brief(request_text, reading)
    try:
        gdd = gdd_writer.design(brief)
    except ValueError as exc:      # a family the designer refuses is reported, not designed
        pytest.skip(str(exc))
    ok, detail = requirements_covered(CheckContext(brief=brief, gdd=gdd))
    assert ok, detail
