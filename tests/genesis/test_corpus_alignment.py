"""The measured alignment of the offline pipeline: every corpus request generated end to end (the batch
runner, 2 workers, a private copy of the seed KB) and each scenario folder checked by the independent
checker. Prints the table, writes the summary JSON under the test's tmp dir, and fails under 90%
aligned or on any silent substitution.

Slow (about 80 generations): `pytest -m slow tests/genesis/test_corpus_alignment.py -s`.
"""
import pytest

from corpus.measure import TARGET, generate, measure
from corpus.schema import load_corpus
from genesis.workspace import copy_seed

pytestmark = pytest.mark.slow


@pytest.mark.timeout(4 * 3600)
def test_the_corpus_is_aligned(tmp_path):
    entries = load_corpus()
    kb, rubrics = copy_seed(tmp_path / "seed")
    batch = tmp_path / "batch"
    generate(entries, batch, workers=2, kb_root=kb, rubrics_root=rubrics)
    summary = measure(entries, batch)
    (tmp_path / "corpus_summary.json").write_text(summary.model_dump_json(indent=1), encoding="utf-8")
    print(summary.table())
    print(f"summary: {tmp_path / 'corpus_summary.json'}")
    failing = [f"{r.id}: {r.failures}" for r in summary.rows if not r.aligned]
    assert summary.fraction >= TARGET, f"{summary.aligned}/{summary.total} aligned; failing:\n" + "\n".join(failing)
    assert summary.silent == 0, [r.id for r in summary.rows if r.silent]
