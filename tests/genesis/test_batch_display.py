"""The batch's progress lines."""
from __future__ import annotations

import io

from rich.console import Console

from genesis.batch.display import RichBatchView
from genesis.batch.records import QueryRecord
from genesis.batch.summary import BatchSummary


def test_a_query_that_came_through_an_outage_says_how_many_retries_it_took(tmp_path):
    said = io.StringIO()
    view = RichBatchView(Console(file=said, width=200))
    view.begin(BatchSummary(name="b", file="q.txt", status="running", started="now", workers=1, model="offline",
                            total_queries=2, queries=[]), tmp_path, 2)
    for index, retries in ((0, 2), (1, 0)):
        view.query_finished(QueryRecord(index=index, query=f"query {index}", slug=f"q{index}", status="playable",
                                        playable=True, verdict="CERTIFIED", wall_s=3.0, infra_retries=retries))
    view.stop()
    lines = [line for line in said.getvalue().splitlines() if "CERTIFIED" in line]
    assert "(3 s, after 2 infra retries)" in lines[0] and "retr" not in lines[1]
