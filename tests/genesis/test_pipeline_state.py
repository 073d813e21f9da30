from genesis.pipeline.runner import slugify
from genesis.pipeline.state import add_times


def test_retried_stage_times_add_up():
    t = add_times({}, {"gdd": 1.5})
    t = add_times(t, {"gdd_review": 0.5})
    t = add_times(t, {"gdd": 2.0})
    assert t == {"gdd": 3.5, "gdd_review": 0.5}


def test_slug_never_ends_with_a_dash():
    slug = slugify("a" * 59 + " b")
    assert len(slug) <= 60 and not slug.endswith("-")
    assert slugify("defend two fronts, with waves!") == "defend-two-fronts-with-waves"


def test_queries_the_words_cannot_tell_apart_get_distinct_folders():
    queries = ["   !!!", "???", "défendre deux fronts", "defendre deux fronts", "дві хвилі", "три хвилі",
               "两条战线", "三波攻击", "a" * 70 + " x", "a" * 70 + " y"]
    slugs = [slugify(q) for q in queries]
    assert len(set(slugs)) == len(queries)
    assert slugs[0].startswith("scenario-") and slugs[4].startswith("scenario-")
    assert all(len(s) <= 60 and s.isascii() and not s.endswith("-") for s in slugs)
    assert slugify("дві хвилі") == slugify("дві хвилі")  # stable: a re-run finds its folder


def test_the_compiled_graph_draws_only_the_real_transitions():
    from types import SimpleNamespace

    from genesis.pipeline.graph import ROUTES, build

    graph = build(SimpleNamespace(), None).get_graph()
    edges = {(e.source, e.target) for e in graph.edges}
    expected = {(src, dst) for src, targets in ROUTES.items() for dst in targets}
    expected |= {("__start__", "clarify"), ("finalize", "__end__")}
    assert edges == expected
    assert ("review_gdd", "write_rules") not in edges and ("clarify", "evolve") not in edges
    assert "gate_level" in graph.draw_mermaid()
