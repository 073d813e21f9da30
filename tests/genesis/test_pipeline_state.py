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
    assert slugify("   !!!") == "scenario"
