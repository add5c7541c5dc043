"""Issue 27 ("1,000 pending reviews on Reviews, drawn in ≤ 1 s"), through AppTest: the Reviews
page draws a page of 50 from summaries, in a bounded number of store queries whatever the number
of reviews, and pages to the last; filters by agent and status. (The time it takes is measured in
``benchmarks/reviews_page.py``, not asserted here.)"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

import pytest
from sqlalchemy import event
from streamlit.testing.v1 import AppTest

from apptest_helpers import no_failures, texts
from core import load_plan
from core.storage._review_store import Reviews
from studio import get_services
from studio.ui._reviews_page import PAGE_SIZE

REVIEWS = "../pages/reviews.py"
PLAN = {"goal": "g", "steps": [{"id": "fac", "tool": "facilities_list", "params": {"location": "Berlin"}}]}


def seed(count: int, agents: int = 4) -> list[str]:
    """``count`` pending reviews, oldest first, from ``agents`` agents in turn; their ids."""
    store = get_services().store
    plan = load_plan(json.dumps(PLAN))
    return [store.submit_review(plan.model_copy(update={"goal": f"goal {n:04d}"}), agent=f"bot-{n % agents}",
                                fmt="native", original_text="{}").id for n in range(count)]


class Queries:
    """The SQL statements the store's engine runs, and the reviews loaded whole, while counting."""

    def __init__(self) -> None:
        self.statements: list[str] = []
        self.loads = 0

    @property
    def on_reviews(self) -> list[str]:
        return [s for s in self.statements if re.search(r"\bFROM review\b", s)]


@pytest.fixture
def queries(monkeypatch: pytest.MonkeyPatch) -> Iterator[Queries]:
    seen = Queries()
    engine = get_services().store._database.engine

    def note(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.statements.append(statement)

    real_get = Reviews.get

    def counting_get(self: Reviews, review_id: str) -> Any:
        seen.loads += 1
        return real_get(self, review_id)

    monkeypatch.setattr(Reviews, "get", counting_get)
    event.listen(engine, "before_cursor_execute", note)
    yield seen
    event.remove(engine, "before_cursor_execute", note)


def _cards(at: AppTest) -> list[str]:
    return [b.key.removeprefix("reviews.open.") for b in at.button if b.key and b.key.startswith("reviews.open.")]


def _draw(app: AppTest, queries: Queries) -> tuple[int, int]:
    queries.statements.clear()
    app.run()
    no_failures(app)
    return len(queries.statements), len(queries.on_reviews)


def test_a_thousand_pending_reviews_draw_a_page_in_bounded_queries(app: AppTest, queries: Queries) -> None:
    few = seed(10)
    app.switch_page(REVIEWS).run()
    no_failures(app)
    with_few = _draw(app, queries)
    ids = few + seed(990)
    with_many = _draw(app, queries)
    # The same queries with 1,000 reviews as with 10: a tally, the agents, one page of summaries,
    # and the navigation's count of what waits for a person ("Reviews (N)").
    assert with_many == with_few and with_many[1] <= 5, queries.on_reviews
    assert queries.loads == 0  # no review read whole to draw the list
    newest_first = ids[::-1]
    assert _cards(app) == newest_first[:PAGE_SIZE]
    shown = texts(app)
    assert "1,000 pending · 1,000 in all" in shown and "Page 1 of 20 · reviews 1–50 of 1,000" in shown

    app.button(key="reviews.page.next").click().run()
    assert _cards(app) == newest_first[PAGE_SIZE:2 * PAGE_SIZE] and "Page 2 of 20" in texts(app)
    app.button(key="reviews.page.last").click().run()
    no_failures(app)
    assert _cards(app) == newest_first[-PAGE_SIZE:] and "Page 20 of 20 · reviews 951–1,000 of 1,000" in texts(app)
    assert app.button(key="reviews.page.next").disabled and not app.button(key="reviews.page.previous").disabled


def test_the_list_filters_by_agent_and_status(app: AppTest) -> None:
    ids = seed(120, agents=3)
    store = get_services().store
    for review_id in ids[:6]:
        store.decide_review(review_id, approve=False, comment="no")
    app.switch_page(REVIEWS).run()
    app.button(key="reviews.page.last").click().run()  # a filter starts again at the first page
    app.selectbox(key="reviews.agent").set_value("bot-1").run()
    no_failures(app)
    bot_1 = [i for n, i in enumerate(ids) if n % 3 == 1]
    pending_first = [i for i in bot_1[::-1] if i not in ids[:6]] + [i for i in bot_1[::-1] if i in ids[:6]]
    assert _cards(app) == pending_first[:PAGE_SIZE] and "Page 1 of 1" not in texts(app)
    assert "reviews 1–40 of 40" not in texts(app)  # 40 fit one page: no pager
    app.selectbox(key="reviews.status").set_value("rejected").run()
    assert _cards(app) == [i for i in bot_1[::-1] if i in ids[:6]]
    app.selectbox(key="reviews.agent").set_value(None).run()
    assert _cards(app) == ids[:6][::-1]
