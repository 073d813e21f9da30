"""Infrastructure failures: something a generation depends on (the KB's chroma server or committer,
a lock, the worker running it) failed, so the run says nothing about its scenario. Such a run is
recorded as `infra_error`, left out of Playability and generated again (with backoff within a
batch, and by the next run of the batch)."""
from __future__ import annotations


class InfraError(Exception):
    """A service a generation needs failed or stayed unreachable: no verdict on the scenario."""


# A batch retries an infra_error query this many times within one run, waiting retry_delay(n) before
# retry n (1-based); what still fails is left as infra_error for the next run of the batch.
BATCH_RETRIES = 3
RETRY_BASE_S = 5.0
RETRY_MAX_S = 60.0


def retry_delay(attempt: int, base_s: float = RETRY_BASE_S, max_s: float = RETRY_MAX_S) -> float:
    """Seconds to wait before retry `attempt` (1, 2, ...): doubling from `base_s`, at most `max_s`."""
    return min(max_s, base_s * 2 ** max(0, attempt - 1))
