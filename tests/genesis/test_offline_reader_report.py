"""The report shows the request clause by clause: each clause marked by its status (colour, legend,
the why on hover and in a list)."""
from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.report import write_report
from tests.genesis.browser import AVAILABLE, Browser
from tests.genesis.test_report import make_scenario

QUERY = "defend the base, attacks come from several directions while the enemy casts spells on your turrets"


class _Clauses(HTMLParser):
    def __init__(self):
        super().__init__()
        self.spans: list[tuple[str, str, str]] = []     # (status, hover, text)
        self._open: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "span" and "clause" in classes and a.get("title"):
            self._open = [classes[1], a["title"], ""]

    def handle_data(self, data):
        if self._open is not None:
            self._open[2] += data

    def handle_endtag(self, tag):
        if tag == "span" and self._open is not None:
            self.spans.append(tuple(self._open))
            self._open = None


@pytest.fixture(scope="module")
def clause_report(tmp_path_factory) -> Path:
    folder = make_scenario(tmp_path_factory.mktemp("clauses") / "scenario")
    brief = write_brief(QUERY, read(QUERY))
    (folder / "brief.json").write_text(json.dumps(brief.model_dump(mode="json")))
    return write_report(folder)


def test_each_clause_is_marked_with_its_status_and_why(clause_report):
    html = clause_report.read_text()
    parser = _Clauses()
    parser.feed(html)
    statuses = [s for s, _, _ in parser.spans]
    assert "".join(t for _, _, t in parser.spans) == QUERY
    assert statuses == ["honoured", "assumed", "not_honoured"]
    hover = dict((s, h) for s, h, _ in parser.spans)
    assert "survive_win" in hover["honoured"] and "read as 3" in hover["assumed"]
    assert "spells" in hover["not_honoured"] and "not honoured" in hover["not_honoured"]
    assert "The request, clause by clause" in html and 'class="legend' in html
    assert html.count('class="chip bad">not honoured') == 1            # listed with its why


def test_a_report_of_a_brief_without_clauses_shows_no_clause_section(tmp_path):
    folder = make_scenario(tmp_path / "scenario")
    assert 'id="clauses"' not in write_report(folder).read_text()


@pytest.mark.skipif(not AVAILABLE, reason="chromium or websocket-client missing")
def test_the_clause_colours_render_and_differ(clause_report, tmp_path):
    browser = Browser(clause_report.resolve().as_uri(), tmp_path / "profile")
    try:
        browser.wait_for("document.querySelectorAll('p.clauses .clause').length")
        colours = browser.eval("""[...document.querySelectorAll('p.clauses .clause')].map(
            e => getComputedStyle(e).backgroundColor)""")
        browser.eval("document.getElementById('clauses').scrollIntoView()")
        browser.screenshot(tmp_path / "clauses.png")
    finally:
        browser.close()
    assert len(colours) == 3 and len(set(colours)) == 3 and "rgba(0, 0, 0, 0)" not in colours
