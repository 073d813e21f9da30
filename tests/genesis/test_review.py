"""`genesis review`: pairing, the page, results and their merge, the save server, the judges, the
per-batch Human Preference and its section in experiment.html, and bad input."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from genesis import workspace
from genesis.experiment.queries import load_stream, take
from genesis.experiment.report import write_outputs
from genesis.experiment.runner import run_experiment
from genesis.report.map_picture import write_map_picture
from genesis.review.aggregate import preference_section, summarise
from genesis.review.judge import TRANSCRIPT, heuristic, judge
from genesis.review.page import write_review
from genesis.review.pairs import ReviewInputError, collect
from genesis.review.results import Item, Judgement, ResultsError, ReviewResults, Side, read_results
from genesis.review.server import ReviewServer
from genesis.simulate import SimJob, run_job
from http_stub import StubServer, ok

SEED = workspace.seed_kb()
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def media(tmp_path_factory) -> Path:
    """map.png and replay.json of the MFD reference level's seed-0 reference run, made once."""
    folder = tmp_path_factory.mktemp("media")
    level = folder / "level.json"
    _copy_level(folder)
    run = run_job(SimJob(str(level), 0, "reference", replay_path=str(folder / "replay.json")))
    assert run.ok, run.error
    write_map_picture(level, folder / "map.png")
    return folder


def _copy_level(folder: Path) -> None:
    level = json.loads((SEED / "levels" / "MFD" / "level.json").read_text())
    level["rules"][0]["script"] = "rules/staggered_waves.lua"
    (folder / "rules").mkdir(parents=True, exist_ok=True)
    shutil.copy(SEED / "rules" / "staggered_waves" / "rule.lua", folder / "rules" / "staggered_waves.lua")
    (folder / "level.json").write_text(json.dumps(level))


def make_folder(folder: Path, query: str, media: Path | None, playable: bool = True,
                evidence: tuple[str, ...] = ("verified", "verified")) -> Path:
    """A scenario folder as `genesis new` writes it (brief, validation with evidence, level, map, replay)."""
    folder.mkdir(parents=True, exist_ok=True)
    _copy_level(folder)
    reqs = [{"id": f"r{i}", "text": f"requirement {i} of {query}"} for i in range(len(evidence))]
    (folder / "brief.json").write_text(json.dumps({
        "query": query, "title": query.capitalize(), "summary": f"Summary of {query}.",
        "win_conditions": ["survive until 3:20"], "loss_conditions": ["a storage is destroyed"],
        "enemy_behaviour": ["waves from the north"], "requirements": reqs, "unsupported": []}))
    (folder / "validation.json").write_text(json.dumps({
        "status": "playable" if playable else "not_playable", "playable": playable, "query": query,
        "reason": "all stage verdicts passed" if playable else "stopped at stage level: iteration budget spent",
        "requirements": [{**r, "status": s, "passed": s == "verified", "detail": f"evidence for {r['id']}: {s}"}
                         for r, s in zip(reqs, evidence)],
        "simulation_runs": [{"policy": "reference", "seed": 0, "winners": [0], "reason": "survived", "duration": 200}]}))
    if media is not None:
        shutil.copy(media / "replay.json", folder / "replay.json")
        shutil.copy(media / "map.png", folder / "map.png")
    return folder


def _fake_task(media: Path):
    """Stands in for a generation: writes the scenario folder; Agent w/ SE wins batch 2's first query."""
    def task_fn(task) -> dict:
        playable = task.config == "agent_se" or task.index == 1
        make_folder(Path(task.out_dir), task.query, media, playable=playable,
                    evidence=("verified", "verified") if playable else ("verified", "failed"))
        validator = {"playable": playable, "criteria": [{"id": "winnable", "passed": playable, "detail": "x"}]}
        return {"config": task.config, "batch": task.batch, "index": task.index, "query": task.query,
                "out_dir": task.out_dir, "status": "playable" if playable else "not_playable",
                "claimed_playable": playable, "generation_time_s": 1.0, "elapsed_s": 1.0, "calls": 3,
                "prompt_tokens": 10, "completion_tokens": 5, "fast_tracked": False, "iterations": 1,
                "rubric_versions": None, "error": None, "playable": playable, "validator": validator,
                "task_wall_s": 0.0, "generation_cpu_s": 1.0, "validation_cpu_s": 1.0}
    return task_fn


@pytest.fixture(scope="module")
def experiment(tmp_path_factory, media) -> Path:
    """A 2-batch x 2-query experiment of Agent w/ SE and Agent w/o SE, laid out by the real runner."""
    out = tmp_path_factory.mktemp("exp") / "exp"
    record = run_experiment(out, take(load_stream(), 2, 2), configs=["agent_se", "agent_no_se"], workers=0,
                            task_fn=_fake_task(media))
    write_outputs(record, out)
    return out


# ---- pairing --------------------------------------------------------------------------------------
def test_configurations_are_paired_by_query_with_batch_and_validator(experiment):
    stream = take(load_stream(), 2, 2)
    shutil.copytree(experiment / "agent_se", experiment.parent / "lone" / "agent_se")
    extra = make_folder(experiment.parent / "lone" / "agent_se" / "b3-q1", "only one side has this", None)
    review = collect(experiment / "agent_se", experiment / "agent_no_se")
    assert (review.a.label, review.b.label, review.kind) == ("Agent w/ SE", "Agent w/o SE", "experiment")
    assert [(p.item.batch, p.item.query) for p in review.pairs] == [(b + 1, q) for b, batch in enumerate(stream)
                                                                     for q in batch.queries]
    assert review.pairs[0].item.theme == stream[0].theme
    assert review.pairs[0].a.validator["playable"] is True and review.pairs[0].b.validator["playable"] is False
    assert review.pairs[0].b.requirements[1].status == "failed"
    assert review.experiment_dir == experiment.resolve()
    lone = collect(experiment.parent / "lone" / "agent_se", experiment / "agent_no_se")
    assert lone.unpaired["a"] == ["only one side has this"] and len(lone.pairs) == 4
    assert lone.experiment_dir is None and extra.exists()


def test_bad_folders_are_named_in_one_line(tmp_path, media):
    good = make_folder(tmp_path / "good", "hold the line", None)
    (tmp_path / "empty").mkdir()
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "brief.json").write_text("{not json")
    cases = {"no such folder": (tmp_path / "missing", good), "has no brief.json": (tmp_path / "empty", good),
             "is not JSON": (tmp_path / "broken", good), "same folder": (good, good)}
    for message, (a, b) in cases.items():
        with pytest.raises(ReviewInputError, match=message):
            collect(a, b)


# ---- the page -------------------------------------------------------------------------------------
def test_page_is_self_contained_and_shows_both_sides(tmp_path, media):
    hostile = "defend </script><script>alert(1)</script> the base"
    a = make_folder(tmp_path / "a", hostile, media)
    b = make_folder(tmp_path / "b", hostile, media, playable=False, evidence=("verified", "failed"))
    page, results_file = write_review(collect(a, b), tmp_path / "out" / "review.html")
    html = page.read_text()
    assert "<script>alert(1)" not in html.replace("\\u003c", "<").split('id="review-results">')[0]
    assert html.count("</script>") == 2                         # the results data and the page script only
    assert re.findall(r'<img[^>]+src="(?!data:image/png;base64,)', html) == []      # pictures are embedded
    assert "http://" not in html and "https://" not in html
    srcdocs = re.findall(r'data-srcdoc="([^"]*)"', html)
    assert len(srcdocs) == 2 and all("replay-data" in s and "rp-play" in s for s in srcdocs)  # the replay widget
    assert "PLAYABLE" in html and "NOT PLAYABLE" in html and "evidence for r1: failed" in html
    assert "Summary of defend" in html and "survive until 3:20" in html
    results = read_results(results_file)
    assert [i.query for i in results.items] == [hostile] and results.judgements == []
    assert str(a) in html                                                       # its folder, named
    blind = write_review(collect(a, b), tmp_path / "blind" / "review.html", blind=True)[0].read_text()
    visible = blind.split('id="review-results"')[0]
    assert str(a) not in visible and str(b) not in visible and "hidden" in visible and "PLAYABLE" in visible


def test_a_folder_without_replay_or_map_gets_them_made_in_the_review_cache(tmp_path):
    a = make_folder(tmp_path / "a", "hold the ridge", None)
    b = make_folder(tmp_path / "b", "hold the ridge", None)
    (b / "level.json").unlink()
    page, _ = write_review(collect(a, b), tmp_path / "out" / "review.html")
    html = page.read_text()
    assert len(re.findall(r'data-srcdoc="', html)) == 1 and "no replay: no level to run" in html
    assert (tmp_path / "out" / "cache" / "q1-a" / "replay.json").exists()
    assert not (a / "replay.json").exists() and not (a / "map.png").exists()   # the scenario folder is untouched


def test_rewriting_a_page_keeps_its_judgements_and_refuses_another_comparison(tmp_path, media):
    a, b = make_folder(tmp_path / "a", "q", media), make_folder(tmp_path / "b", "q", media)
    c = make_folder(tmp_path / "c", "q", media)
    page, results_file = write_review(collect(a, b), tmp_path / "out" / "review.html")
    results = read_results(results_file)
    results.replace("ann", "human", [Judgement(key="pair", choice="b", timestamp=T0, reviewer="ann")])
    results_file.write_text(results.model_dump_json())
    write_review(collect(a, b), page)
    assert [j.choice for j in read_results(results_file).judgements] == ["b"]
    with pytest.raises(ResultsError, match="another comparison"):
        write_review(collect(a, c), page)


# ---- results, merge and aggregation ---------------------------------------------------------------
def _results() -> ReviewResults:
    items = [Item(key=f"b{b}: q{i}", query=f"q{i}", batch=b, theme=f"theme {b}") for b in (1, 2) for i in (1, 2)]
    return ReviewResults(a=Side(label="Agent w/ SE", path="/a"), b=Side(label="Agent w/o SE", path="/b"), items=items)


def _j(key: str, choice: str, who: str, kind: str = "human", minutes: int = 0) -> Judgement:
    return Judgement(key=key, choice=choice, timestamp=T0 + timedelta(minutes=minutes), reviewer=who, kind=kind)


def test_preference_per_batch_pools_humans_and_keeps_models_apart():
    r = _results()
    r.replace("ann", "human", [_j("b1: q1", "a", "ann"), _j("b1: q2", "tie", "ann"), _j("b2: q1", "b", "ann"),
                               _j("b2: q1", "a", "ann", minutes=5)])          # changed her mind: the latest counts
    r.replace("bob", "human", [_j("b1: q1", "b", "bob"), _j("b2: q2", "a", "bob")])
    r.replace("gpt", "model", [_j(i.key, "b", "gpt", "model") for i in r.items])
    human, model = summarise(r)
    assert human.judge == "human (2 reviewers)" and model.judge == "model judgement: gpt"
    b1, b2 = human.batches
    assert (b1.batch, b1.theme, b1.n, b1.a, b1.b, b1.tie) == (1, "theme 1", 3, 1, 1, 1)
    assert (b1.rate_a, b1.rate_b) == (0.5, 0.5)
    assert (b2.n, b2.a, b2.b, b2.rate_a) == (2, 2, 0, 1.0)
    assert (human.overall.n, human.overall.rate_a) == (5, 0.7)
    assert [p.rate_b for p in model.batches] == [1.0, 1.0] and model.overall.n == 4


def test_merge_replaces_only_that_reviewers_queries_and_rejects_unknown_ones():
    r = _results()
    r.replace("ann", "human", [_j("b1: q1", "a", "ann"), _j("b1: q2", "a", "ann")])
    r.replace("ann", "model", [_j("b1: q1", "b", "ann", "model")])
    r.replace("ann", "human", [_j("b1: q1", "tie", "ann", minutes=1)])
    r.replace("ann", "human", [_j("b1: q2", "b", "ann", minutes=-1)])    # arrived late: the newer choice stays
    assert sorted((j.kind, j.key, j.choice) for j in r.judgements) == [
        ("human", "b1: q1", "tie"), ("human", "b1: q2", "a"), ("model", "b1: q1", "b")]
    with pytest.raises(ResultsError, match="does not have"):
        r.replace("ann", "human", [_j("b9: nope", "a", "ann")])
    with pytest.raises(ResultsError, match="holds a judgement by"):
        r.replace("ann", "human", [_j("b1: q1", "a", "bob")])


def test_experiment_html_gets_the_human_preference_section(experiment):
    assert "No review yet" in str(preference_section(experiment))
    review = collect(experiment / "agent_se", experiment / "agent_no_se")
    page, results_file = write_review(review, experiment / "reviews" / "se-vs-nose" / "review.html")
    r = read_results(results_file)
    keys = [i.key for i in r.items]
    r.replace("ann", "human", [_j(keys[0], "a", "ann"), _j(keys[1], "a", "ann"), _j(keys[2], "b", "ann")])
    results_file.write_text(r.model_dump_json())
    record = json.loads((experiment / "experiment.json").read_text())
    _, html_path = write_outputs(record, experiment)
    html = html_path.read_text()
    section = html.split('id="human-preference"')[1].split("<h2>")[0]
    assert 'href="reviews/se-vs-nose/review.html"' in section and "human (1 reviewer)" in section
    rows = re.findall(r"<tr><td class=\"l\">(B\d[^<]*|all)</td>\s*<td>(\d+)</td><td>(\d+)</td><td>(\d+)</td>"
                      r"<td>(\d+)</td>\s*<td>(\d+)%</td><td>(\d+)%</td></tr>", section)
    theme1 = take(load_stream(), 1, 1)[0].theme
    assert rows[0] == (f"B1: {theme1}", "2", "2", "0", "0", "100", "0")
    assert rows[1][1:] == ("1", "0", "1", "0", "0", "100") and rows[2][0] == "all" and rows[2][5] == "67"


# ---- save server ----------------------------------------------------------------------------------
def _post(url: str, body: bytes) -> tuple[int, dict]:
    req = urllib.request.Request(url, data=body, method="POST", headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_server_saves_choices_and_rejects_bad_posts(tmp_path, media):
    a, b = make_folder(tmp_path / "a", "q", media), make_folder(tmp_path / "b", "q", media)
    page, results_file = write_review(collect(a, b), tmp_path / "out" / "review.html")
    saved = []
    with ReviewServer(page, on_saved=saved.append) as server:
        base = server.url.rsplit("/", 1)[0]
        with urllib.request.urlopen(server.url) as resp:
            assert resp.read() == page.read_bytes()
        good = {"reviewer": "ann", "judgements": [{"key": "pair", "choice": "b", "timestamp": T0.isoformat(),
                                                   "reviewer": "ann", "kind": "human"}]}
        assert _post(base + "/results", json.dumps(good).encode()) == (200, {"saved": 1, "file": "review.json"})
        bad_key = {**good, "judgements": [{**good["judgements"][0], "key": "other"}]}
        as_model = {**good, "judgements": [{**good["judgements"][0], "kind": "model"}]}
        for body in (b"not json", json.dumps(bad_key).encode(), json.dumps(as_model).encode(),
                     json.dumps({**good, "judgements": [{**good["judgements"][0], "choice": "c"}]}).encode()):
            status, reply = _post(base + "/results", body)
            assert status == 400 and reply["error"]
        assert _post(base + "/elsewhere", b"{}")[0] == 404
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(base + "/../../etc/passwd")
    assert [(j.reviewer, j.choice) for j in read_results(results_file).judgements] == [("ann", "b")]
    assert len(saved) == 1


# ---- judges ---------------------------------------------------------------------------------------
def test_offline_judge_is_a_labelled_heuristic(tmp_path, media):
    a = make_folder(tmp_path / "a", "q", media, playable=False, evidence=("failed", "verified"))
    b = make_folder(tmp_path / "b", "q", media)
    review = collect(a, b)
    _, results_file = write_review(review, tmp_path / "out" / "review.html")
    results, failures = judge(review, results_file, "genesis/offline")
    (j,) = read_results(results_file).judgements
    assert failures == [] and (j.kind, j.reviewer, j.choice) == ("heuristic", "genesis/offline", "b")
    assert j.rationale.startswith("heuristic, not a judgement of quality")
    assert summarise(results)[0].judge == "heuristic judgement, not a model: genesis/offline"
    c = make_folder(tmp_path / "c", "q", media)
    (c / "validation.json").unlink()                 # an E2E pass: requirements nobody checked are no failure
    e2e = collect(a.parent / "b", c)
    assert heuristic(e2e.pairs[0]).choice == "tie"
    assert heuristic(collect(a, c).pairs[0]).choice == "tie"    # no verdict on c: nothing to prefer it by


def test_model_judge_goes_through_litellm_and_is_labelled(tmp_path, media):
    a = make_folder(tmp_path / "a", "q", media)
    b = make_folder(tmp_path / "b", "q", media, playable=False, evidence=("verified", "failed"))
    review = collect(a, b)
    _, results_file = write_review(review, tmp_path / "out" / "review.html")
    answer = json.dumps({"choice": "a", "rationale": "B fails requirement 1."})
    with StubServer([ok("no json here"), ok(answer)]) as server:      # the first reply is retried
        results, failures = judge(review, results_file, "openai/stub", api_base=server.url)
    prompt = json.dumps(server.requests[0]["messages"])
    assert "evidence for r1: failed" in prompt and "Pipeline verdict: NOT PLAYABLE" in prompt
    (j,) = read_results(results_file).judgements
    assert (j.kind, j.reviewer, j.choice, j.rationale) == ("model", "openai/stub", "a", "B fails requirement 1.")
    assert failures == [] and summarise(results)[0].judge == "model judgement: openai/stub"
    calls = [json.loads(line) for line in (results_file.parent / TRANSCRIPT).read_text().splitlines()]
    assert [c["ok"] for c in calls] == [False, True] and calls[0]["skill"] == "judge_preference"


# ---- command line ---------------------------------------------------------------------------------
def _genesis(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from genesis.cli import main; main()", *args],
                          capture_output=True, text=True, timeout=300)


def test_cli_bad_input_exits_2_with_one_line(tmp_path, media):
    good = make_folder(tmp_path / "good", "q", media)
    (tmp_path / "nobrief").mkdir()
    for args, needle in (([str(tmp_path / "missing"), str(good)], "no such folder"),
                         ([str(tmp_path / "nobrief"), str(good)], "has no brief.json"),
                         ([str(good), str(good), "--out", str(tmp_path / "r.txt")], "same folder")):
        res = _genesis("review", *args)
        assert res.returncode == 2, res.stderr
        assert len(res.stderr.strip().splitlines()) == 1 and needle in res.stderr and "Traceback" not in res.stderr


def test_cli_writes_the_page_and_judges_offline(tmp_path, media):
    a, b = make_folder(tmp_path / "g" / "a", "q", media), make_folder(tmp_path / "g" / "b", "q", media)
    res = _genesis("review", str(a), str(b), "--judge", "genesis/offline")
    assert res.returncode == 0, res.stderr
    page = tmp_path / "g" / "reviews" / "a-vs-b" / "review.html"
    assert res.stdout.strip() == str(page.resolve()) or Path(res.stdout.strip()).resolve() == page.resolve()
    assert "heuristic judgement by genesis/offline: 1 of 1" in " ".join(res.stderr.split())
    assert [j.kind for j in read_results(page.with_suffix(".json")).judgements] == ["heuristic"]
    bad_out = _genesis("review", str(a), str(b), "--out", str(tmp_path / "r.txt"))
    assert bad_out.returncode == 2 and "name an .html file" in bad_out.stderr


def test_cli_open_serves_the_page_and_a_save_refreshes_experiment_html(experiment, tmp_path):
    exp = tmp_path / "exp"
    shutil.copytree(experiment, exp, ignore=shutil.ignore_patterns("reviews", "kb", "rubrics"))
    env = {**os.environ, "BROWSER": "true"}          # webbrowser "opens" the page with true(1)
    proc = subprocess.Popen([sys.executable, "-c", "from genesis.cli import main; main()", "review",
                             str(exp / "agent_se"), str(exp / "agent_no_se"), "--open"],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    try:
        url, seen = None, []
        while url is None:
            line = proc.stderr.readline()
            assert line, f"the command ended before serving: {''.join(seen)}"
            seen.append(line)
            m = re.search(r"serving (http://127\.0\.0\.1:\d+/review\.html)", line)
            url = m.group(1) if m else None
        page = exp / "reviews" / "agent_se-vs-agent_no_se" / "review.html"
        with urllib.request.urlopen(url) as resp:
            assert resp.read() == page.read_bytes()
        key = read_results(page.with_suffix(".json")).items[0].key
        body = {"reviewer": "ann", "judgements": [{"key": key, "choice": "a", "timestamp": T0.isoformat(),
                                                   "reviewer": "ann", "kind": "human"}]}
        assert _post(url.rsplit("/", 1)[0] + "/results", json.dumps(body).encode())[0] == 200
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    section = (exp / "experiment.html").read_text().split('id="human-preference"')[1].split("<h2>")[0]
    assert "Agent w/ SE (A) vs Agent w/o SE (B)" in section and "human (1 reviewer)" in section
    assert [j.reviewer for j in read_results(page.with_suffix(".json")).judgements] == ["ann"]
