"""A driver reaching the cluster through Ray Client (ray://) waits for the head's client server."""
from __future__ import annotations

import pytest

from genesis.batch import ray_pool
from genesis.batch.ray_pool import RayPool, RayUnavailable


class FlakyRay:
    """ray.init fails `failures` times with Ray Client's own error, then connects."""

    def __init__(self, failures: int):
        self.failures, self.calls = failures, 0

    def init(self, **kwargs) -> None:
        self.calls += 1
        if self.calls <= self.failures:
            raise ConnectionError("ray client connection timeout")


def _pool(tmp_path, address: str) -> RayPool:
    return RayPool(address, None, tmp_path, None, 1, env={}, deadline_s=60)


def test_a_ray_client_address_is_tried_again_until_its_server_answers(tmp_path):
    ray = FlakyRay(failures=2)
    _pool(tmp_path, "ray://head:10001")._connect(ray)
    assert ray.calls == 3


def test_a_ray_client_address_that_never_answers_is_one_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(ray_pool, "CLIENT_CONNECT_S", 0.0)
    with pytest.raises(RayUnavailable, match="cannot reach the Ray cluster ray://head:10001"):
        _pool(tmp_path, "ray://head:10001")._connect(FlakyRay(failures=99))


def test_a_cluster_address_is_not_retried(tmp_path):
    ray = FlakyRay(failures=1)
    with pytest.raises(RayUnavailable):
        _pool(tmp_path, "auto")._connect(ray)
    assert ray.calls == 1
