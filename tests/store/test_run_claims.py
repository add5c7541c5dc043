"""Issue 27, hole 2, in the store: a claim on a run is a compare-and-set only one of many takers
at once wins (SQLite and PostgreSQL: the same statements under each one's write lock); a claim
whose holder is gone or whose lease ran out is taken; only its own token renews or releases it."""

from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path

from core.storage import PlanStore

LEASE = dt.timedelta(seconds=60)


def test_of_eight_takers_at_once_exactly_one_holds_the_run(store_location: str | Path) -> None:
    with PlanStore(store_location) as store:
        barrier, claims = threading.Barrier(8), []

        def take(number: int) -> None:
            barrier.wait()
            claims.append(store.claims.take("run-1", holder=f"host:{number}:x", lease=LEASE, gone=lambda h: False))

        threads = [threading.Thread(target=take, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        winners = [c for c in claims if c.taken]
        assert len(claims) == 8 and len(winners) == 1
        assert {c.holder for c in claims} == {winners[0].holder}  # each loser is told who has it
        assert store.claims.holder("run-1").holder == winners[0].holder


def test_a_gone_holder_or_a_lapsed_lease_is_taken_over_and_only_the_token_releases(store_location) -> None:
    with PlanStore(store_location) as store:
        first = store.claims.take("run-1", holder="host:1:a", lease=LEASE, gone=lambda h: False)
        assert first.taken
        assert not store.claims.take("run-1", holder="host:2:b", lease=LEASE, gone=lambda h: False).taken
        second = store.claims.take("run-1", holder="host:2:b", lease=LEASE, gone=lambda h: h == "host:1:a")
        assert second.taken and second.token != first.token
        assert not store.claims.renew("run-1", first.token, LEASE)  # no longer the first's
        store.claims.release("run-1", first.token)
        assert store.claims.holder("run-1").holder == "host:2:b"
        assert store.claims.renew("run-1", second.token, dt.timedelta(seconds=-1))  # its lease now over
        third = store.claims.take("run-1", holder="host:3:c", lease=LEASE, gone=lambda h: False)
        assert third.taken
        store.claims.release("run-1", third.token)
        assert store.claims.holder("run-1") is None
