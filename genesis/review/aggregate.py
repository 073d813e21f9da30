"""Human Preference per batch from review results, and its section of experiment.html.

A side's preference rate over a set of judgements is (wins + ties / 2) / judgements, so the two
sides' rates add up to 1. Human choices are pooled over reviewers; each model (and the offline
heuristic) is summarised apart and labelled, never mixed into the human figure.
"""
from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import jinja2
from markupsafe import Markup

from genesis.review.results import Judgement, ResultsError, ReviewResults, read_results
from genesis.templating import template_environment

HERE = Path(__file__).parent
REVIEWS_DIR = "reviews"


@dataclass
class Preference:
    batch: int | None            # None: every batch together
    theme: str | None
    n: int
    a: int
    b: int
    tie: int

    @property
    def rate_a(self) -> float | None:
        return round((self.a + self.tie / 2) / self.n, 3) if self.n else None

    @property
    def rate_b(self) -> float | None:
        return round((self.b + self.tie / 2) / self.n, 3) if self.n else None


@dataclass
class JudgeSummary:
    judge: str                   # "human (2 reviewers)", "model judgement: openai/gpt-4o", ...
    kind: str
    batches: list[Preference]
    overall: Preference


def _count(batch: int | None, theme: str | None, judgements: list[Judgement]) -> Preference:
    choices = [j.choice for j in judgements]
    return Preference(batch, theme, len(choices), choices.count("a"), choices.count("b"), choices.count("tie"))


def _latest(judgements: list[Judgement]) -> list[Judgement]:
    """One judgement per (reviewer, query): the latest (a results file edited by hand may repeat one)."""
    latest: dict[tuple[str, str, str], Judgement] = {}
    for j in sorted(judgements, key=lambda j: j.timestamp):
        latest[(j.kind, j.reviewer, j.key)] = j
    return list(latest.values())


def _summary(results: ReviewResults, judge: str, kind: str, judgements: list[Judgement]) -> JudgeSummary:
    items = {i.key: i for i in results.items}
    by_batch: dict[int | None, list[Judgement]] = defaultdict(list)
    themes: dict[int | None, str | None] = {}
    for j in judgements:
        item = items[j.key]
        by_batch[item.batch].append(j)
        themes[item.batch] = item.theme
    batches = [_count(b, themes[b], by_batch[b]) for b in sorted(by_batch, key=lambda b: (b is None, b or 0))]
    return JudgeSummary(judge, kind, batches, _count(None, None, judgements))


def summarise(results: ReviewResults) -> list[JudgeSummary]:
    """Humans pooled first, then one summary per model or heuristic judge; judges with nothing judged are left out."""
    known = {i.key for i in results.items}
    judgements = [j for j in _latest(results.judgements) if j.key in known]
    humans = [j for j in judgements if j.kind == "human"]
    out = []
    if humans:
        reviewers = len({j.reviewer for j in humans})
        out.append(_summary(results, f"human ({reviewers} reviewer{'s' if reviewers != 1 else ''})", "human", humans))
    for kind, label in (("model", "model judgement"), ("heuristic", "heuristic judgement, not a model")):
        for name in sorted({j.reviewer for j in judgements if j.kind == kind}):
            out.append(_summary(results, f"{label}: {name}", kind,
                                [j for j in judgements if j.kind == kind and j.reviewer == name]))
    return out


@dataclass
class ReviewView:
    results: ReviewResults
    link: str                    # the review page, relative to experiment.html
    summaries: list[JudgeSummary]


def find_reviews(experiment_dir: Path) -> tuple[list[ReviewView], list[str]]:
    """Every <experiment>/reviews/*/review.json, and the problems of those that cannot be read."""
    views, problems = [], []
    for path in sorted((Path(experiment_dir) / REVIEWS_DIR).glob("*/review.json")):
        try:
            results = read_results(path)
        except ResultsError as exc:
            problems.append(str(exc))
            continue
        views.append(ReviewView(results, os.path.relpath(path.with_suffix(".html"), experiment_dir), summarise(results)))
    return views, problems


def preference_section(experiment_dir: Path) -> Markup:
    """The Human Preference section of experiment.html (says so when no review exists yet)."""
    views, problems = find_reviews(experiment_dir)
    env = template_environment(HERE, autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True,
                               lstrip_blocks=True)
    return Markup(env.get_template("preference.html.j2").render(reviews=views, problems=problems))
