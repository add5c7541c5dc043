"""Signed links used (revision 0011, ``store.links``): a nonce is claimed once, on SQLite and on
PostgreSQL, also by many claims at once; a claim given back can be made again."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from core.storage import PlanStore


def test_a_link_is_claimed_once_even_by_many_at_once(store_location: str | Path) -> None:
    with PlanStore(store_location) as store:
        assert store.links.get("n1") is None
        with ThreadPoolExecutor(8) as pool:
            earlier = list(pool.map(lambda i: store.links.claim("n1", kind="step", subject="run1", step_id="s2",
                                                                by=f"user:{i}"), range(16)))
        winners = [i for i, use in enumerate(earlier) if use is None]
        assert len(winners) == 1
        use = store.links.get("n1")
        assert (use.kind, use.subject, use.step_id, use.used_by) == ("step", "run1", "s2", f"user:{winners[0]}")
        assert all(e == use for e in earlier if e is not None)


def test_a_claim_given_back_can_be_made_again(store_location: str | Path) -> None:
    with PlanStore(store_location) as store:
        assert store.links.claim("n2", kind="review", subject="r1", by="user:a") is None
        store.links.release("n2")
        assert store.links.get("n2") is None
        assert store.links.claim("n2", kind="review", subject="r1", by="user:b") is None
        assert store.links.get("n2").used_by == "user:b"
