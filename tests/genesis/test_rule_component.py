"""A library rule is reused by its id and params; only a new rule needs a purpose to be written from."""
import pytest
from pydantic import ValidationError

from genesis.models import RuleComponent


def test_a_library_rule_needs_no_purpose():
    comp = RuleComponent(id="waves", kind="spawn", library_rule="staggered_waves", params={"team": 1})
    assert comp.purpose == ""


@pytest.mark.parametrize("purpose", ["", "   "])
def test_a_new_rule_without_a_purpose_is_refused_with_its_id(purpose):
    with pytest.raises(ValidationError, match="'shelling'.*needs a purpose"):
        RuleComponent(id="shelling", kind="spawn", purpose=purpose)
