"""The pipeline loads with the garbage collector off and stays out of its walks for the run, then is collectable."""
from __future__ import annotations

import gc

import pytest

from genesis.import_gc import long_lived


def test_the_load_runs_without_the_collector_and_what_it_made_is_frozen_for_the_block_only():
    seen = {}

    def load():
        seen["collector_on"] = gc.isenabled()
        return [[i] for i in range(1000)]

    assert gc.isenabled() and gc.get_freeze_count() == 0
    with long_lived(load) as loaded:
        assert seen["collector_on"] is False and gc.isenabled()
        assert len(loaded) == 1000 and gc.get_freeze_count() >= 1000
    assert gc.get_freeze_count() == 0 and gc.isenabled()


def test_a_failed_load_turns_the_collector_back_on_and_freezes_nothing():
    def load():
        raise ImportError("no such module")

    with pytest.raises(ImportError):
        with long_lived(load):
            pass
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_a_collector_turned_off_before_stays_off():
    gc.disable()
    try:
        with long_lived(lambda: None):
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
