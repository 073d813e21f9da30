"""Template environments share a bytecode cache: a new environment (as in a new process) renders a
template without compiling it, and an edited template is compiled again."""
from __future__ import annotations

import pytest

from genesis.templating import template_environment


def test_a_new_environment_reuses_the_compiled_template_until_its_source_changes(tmp_path, monkeypatch):
    (tmp_path / "page.j2").write_text("hello {{ name }}", encoding="utf-8")
    assert template_environment(tmp_path).get_template("page.j2").render(name="a") == "hello a"

    fresh = template_environment(tmp_path)
    monkeypatch.setattr(fresh, "compile", lambda *a, **kw: pytest.fail("compiled again"))
    assert fresh.get_template("page.j2").render(name="b") == "hello b"

    (tmp_path / "page.j2").write_text("bye {{ name }}", encoding="utf-8")
    edited = template_environment(tmp_path)
    assert edited.get_template("page.j2").render(name="c") == "bye c"
