"""The terminal summary of `genesis new` prints evidence verbatim: details quote lists such as
['sw', 'n'] that rich would otherwise read as markup and drop."""
import io
from pathlib import Path
from types import SimpleNamespace

from rich.console import Console

from genesis import cli


def test_evidence_and_not_honoured_lines_keep_their_brackets(monkeypatch):
    out = io.StringIO()
    monkeypatch.setattr(cli, "console", Console(file=out, width=300, color_system=None))
    validation = {"backend": {"designer": "offline"}, "generation_time_s": 1.0,
                  "requirements": [{"text": "attacks come from [the named sides]", "passed": True,
                                    "detail": "sectors ['sw', 'n'] in that order; type=any of ['light_bot']"}],
                  "unsupported": ["[bold]not markup[/bold]"]}
    code = cli._report(SimpleNamespace(status="playable", validation=validation, out_dir=Path("scn")))
    text = out.getvalue()
    assert code == 0
    assert "sectors ['sw', 'n'] in that order; type=any of ['light_bot']" in text
    assert "[the named sides]" in text and "[bold]not markup[/bold]" in text


def _summary(monkeypatch, certificate) -> str:
    out = io.StringIO()
    monkeypatch.setattr(cli, "console", Console(file=out, width=300, color_system=None))
    validation = {"backend": {"designer": "offline"}, "generation_time_s": 1.0, "requirements": [],
                  "certificate": certificate}
    assert cli._report(SimpleNamespace(status="playable", validation=validation, out_dir=Path("scn"))) == 0
    return out.getvalue()


def test_the_summary_says_whether_the_validity_certificate_holds_and_why_not(monkeypatch):
    failed = {"valid": False, "flags": ["trivial: the random agent wins every seed"],
              "checks": {"replay": {"passed": True, "detail": "same"},
                         "open_loop": {"passed": False, "detail": "blind replay won 3/3 seeds [same game]"}}}
    text = _summary(monkeypatch, failed)
    assert ("validity certificate: not valid (open_loop: blind replay won 3/3 seeds [same game]; "
            "trivial: the random agent wins every seed)") in text and "replay: same" not in text
    assert "validity certificate: valid" in _summary(monkeypatch, {"valid": True, "checks": {}, "flags": []})
    assert "validity certificate: valid, difficulty hard" in _summary(
        monkeypatch, {"valid": True, "checks": {}, "flags": [], "difficulty": "hard"})
    # a level that is not certified has no difficulty band, only where its ladder stood
    text = _summary(monkeypatch, {**failed, "difficulty": "medium"})
    assert "difficulty medium" not in text and "ladder alone would read medium, not a difficulty" in text
    assert "validity certificate skipped (GENESIS_CERTIFICATE=off)" in _summary(
        monkeypatch, {"skipped": "GENESIS_CERTIFICATE=off"})


def test_a_partly_honoured_clause_is_printed_as_partly_honoured_never_as_not_honoured(monkeypatch):
    out = io.StringIO()
    monkeypatch.setattr(cli, "console", Console(file=out, width=300, color_system=None))
    why = "the map's river runs west to east: the home bank is the south bank"
    validation = {"backend": {"designer": "offline"}, "generation_time_s": 1.0, "requirements": [],
                  "clauses": [{"text": "on the west bank, ", "status": "partial", "why": why},
                              {"text": "with a day-night cycle.", "status": "not_honoured", "why": "no day or night"},
                              {"text": "Defend it.", "status": "honoured", "why": ""}],
                  "unsupported": [why, "\"with a day-night cycle\": no day or night", "a 30-second game is raised"]}
    cli._report(SimpleNamespace(status="playable", validation=validation, out_dir=Path("scn")))
    text = out.getvalue()
    assert f'partly honoured: "on the west bank": {why}' in text and why not in text.replace(
        f'partly honoured: "on the west bank": {why}', "")
    assert 'not honoured: "with a day-night cycle": no day or night' in text
    assert "not honoured: a 30-second game is raised" in text and "Defend it" not in text
