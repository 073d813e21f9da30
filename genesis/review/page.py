"""Writes the review page (review.html, self-contained) and its results file (review.json) side by side."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import jinja2
from markupsafe import Markup

from genesis.fileio import atomic_write_text
from genesis.review.media import Media, media_for
from genesis.review.pairs import Entry, Pair, Review
from genesis.review.results import ResultsError, ReviewResults, read_results, write_results
from genesis.templating import template_environment

HERE = Path(__file__).parent
PAGE_NAME = "review.html"


@dataclass
class PairView:
    item: object
    a: Entry
    b: Entry
    media_a: Media
    media_b: Media


def results_path(page: Path) -> Path:
    return page.with_suffix(".json")


def default_out(review: Review) -> Path:
    """<parent of A>/reviews/<A>-vs-<B>/review.html: for two configurations of one experiment,
    <experiment>/reviews/..., where experiment.html looks for review results."""
    a, b = Path(review.a.path), Path(review.b.path)
    return a.parent / "reviews" / f"{a.name}-vs-{b.name}" / PAGE_NAME


def _results(review: Review, path: Path) -> ReviewResults:
    """A fresh results document, or the existing one for this comparison with its judgements kept."""
    fresh = ReviewResults(a=review.a, b=review.b, items=[p.item for p in review.pairs])
    if not path.exists():
        return fresh
    old = read_results(path)
    if (old.a.path, old.b.path) != (review.a.path, review.b.path):
        raise ResultsError(f"{path} holds the results of another comparison ({old.a.path} vs {old.b.path}): "
                           "choose another --out")
    keys = {i.key for i in fresh.items}
    fresh.items += [i for i in old.items if i.key not in keys]   # their judgements stay valid
    fresh.judgements = old.judgements
    return fresh


def _views(review: Review, cache: Path) -> list[PairView]:
    views = []
    for n, p in enumerate(review.pairs, 1):
        views.append(PairView(p.item, p.a, p.b,
                              media_for(p.a, cache / f"q{n}-a", "A: replay of the reference run (seed 0)"),
                              media_for(p.b, cache / f"q{n}-b", "B: replay of the reference run (seed 0)")))
    return views


def render_page(review: Review, results: ReviewResults, views: list[PairView], blind: bool = False) -> str:
    """`blind` keeps which folder or configuration is A and which is B out of the page's text (its data still
    names them, for the saved results)."""
    env = template_environment(HERE, autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True,
                               lstrip_blocks=True)
    data = results.model_dump_json().replace("<", "\\u003c")   # no string can close the script element
    return env.get_template("review.html.j2").render(
        a=review.a, b=review.b, pairs=views, blind=blind, unpaired=review.unpaired or {"a": [], "b": []},
        results_json=Markup(data), review_js=Markup((HERE / "review.js").read_text(encoding="utf-8")))


def write_review(review: Review, page: Path, blind: bool = False) -> tuple[Path, Path]:
    """review.html at `page`, and review.json beside it (created, or kept with its judgements).
    Missing maps and replays are made in `<page folder>/cache/`. Raises ResultsError."""
    page = Path(page)
    page.parent.mkdir(parents=True, exist_ok=True)
    json_path = results_path(page)
    results = _results(review, json_path)
    views = _views(review, page.parent / "cache")
    atomic_write_text(page, render_page(review, results, views, blind))
    write_results(json_path, results)
    return page, json_path
