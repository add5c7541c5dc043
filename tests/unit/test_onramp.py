"""The on-ramp's pieces without a page: example goals from whatever tools are loaded, a step in
plain words, a finished run summed up, and the model's answer streamed piece by piece."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Literal

import pytest
from typing_extensions import TypedDict

from core import BackgroundRun, Executor, ModelSynthesizer, Run, Settings, StepRun, StepStatus, ToolRegistry
from core.formats import plan_from_seed
from core.llm import ModelClient
from core.planners import EmbeddedPlanner, example_goals, first_sentence
from studio.ui._text import md_escape
from studio.ui.plan._answer_panel import answer_pieces
from studio.workbench import step_sentence, summarize_run
from tools import build_registry
from toy_tools import toy_registry

TODAY = dt.date(2026, 3, 2)
ROOT = Path(__file__).resolve().parents[2]
# Words of the demo domain that product code of the on-ramp must not carry.
DEMO_WORDS = re.compile(r"facilit|shipment|contamin|inspection|Berlin|Munich|Hamburg|waste", re.I)


class Book(TypedDict):
    id: str
    title: str


class Books(TypedDict):
    data: list[Book]
    count: int


def library_registry() -> ToolRegistry:
    """A user's own tools, nothing like the demo: books and their loans."""
    registry = ToolRegistry()

    @registry.register(effects="read-only")
    def books_search(genre: Literal["poetry", "crime"] | None = None, limit: int = 10) -> Books:
        """Find books in the catalogue. Slow on Mondays.

        Args:
            genre: Genre of the book.
            limit: Maximum rows.
        """
        return Books(data=[Book(id="B1", title="Odes")], count=1)

    @registry.register(effects="read-only")
    def loans_list(book_id: str | list[str] | None = None) -> Books:
        """List loans of books.

        Args:
            book_id: One book id or several.
        """
        return Books(data=[], count=0)

    return registry


def writer_registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.register
    def add_numbers(a: int, b: int) -> int:
        """Add two numbers. Returns their sum.

        Args:
            a: First.
            b: Second.
        """
        return a + b

    return registry


@pytest.mark.parametrize("registry", [build_registry(Settings(), demo=True), toy_registry(), library_registry()],
                         ids=["demo", "toy", "library"])
def test_each_example_goal_plans_offline_with_the_tools_it_names(registry):
    examples = example_goals(registry, today=TODAY)
    assert 1 <= len(examples) <= 3
    planner = EmbeddedPlanner(registry)
    for example in examples:
        plan = planner.plan(example.goal, today=TODAY)
        assert tuple(s.tool for s in plan.steps) == example.tools
        assert example.about == first_sentence(registry.get(example.tools[-1]).description)
    assert len({e.tools[-1] for e in examples}) == len(examples)  # each lists something else


def test_a_users_own_tools_give_examples_in_their_words_and_none_of_the_demos():
    examples = example_goals(library_registry(), today=TODAY)
    goals = [e.goal for e in examples]
    assert goals[0] == "List loans from books"  # the chain over book_id first
    assert "Find poetry books" in goals  # the description's verb, the genre enum's first value
    assert not any(DEMO_WORDS.search(g) for g in goals)
    assert examples[1].about == "Find books in the catalogue."


def test_tools_the_embedded_planner_cannot_plan_with_give_their_own_first_sentence():
    assert [(e.goal, e.tools) for e in example_goals(writer_registry(), today=TODAY)] == [
        ("Add two numbers", ("add_numbers",))]
    assert example_goals(ToolRegistry(), today=TODAY) == []
    assert example_goals(toy_registry(), today=TODAY, limit=1)[0].tools == ("sites_list", "visits_list")


def test_the_on_ramps_product_code_names_no_demo_words():
    for path in ["core/planners/embedded/_starters.py", "studio/workbench/_onramp.py",
                 "studio/workbench/_plain_words.py", "studio/ui/plan/_onramp.py", "studio/ui/plan/_answer_panel.py"]:
        assert not DEMO_WORDS.search((ROOT / path).read_text()), path


PLAN = plan_from_seed({"steps": [
    {"tool": "sites_list", "params": {"city": "Berlin"}},
    {"tool": "explode", "params": {"reason": "disk full"}},
    {"tool": "visits_list", "params": {"site_id": "${step[1].data.*.id}"}, "depends_on": [1]},
    {"tool": "visits_list", "params": {"site_id": "${step[0].data.*.id}", "note": "checked"}, "depends_on": [0]},
    {"tool": "no_such_tool", "params": {"a_b": 1, "cC": "x" * 80, "d": [1, 2], "e": True, "f": None}},
]}, goal="Berlin sites and their visits")


def test_a_step_reads_as_a_sentence_from_its_tools_description_and_key_params():
    registry = toy_registry()
    said = [step_sentence(registry, PLAN, s.id) for s in PLAN.steps]
    assert said[0] == "List sites: city Berlin."
    assert said[1] == "Always fails, to test failure handling: reason disk full."
    assert said[3] == "List visits of sites: site id from step 0, note checked."
    # An unknown tool reads by its name; long values are cut, empty ones left out, past three "and N more".
    assert said[4] == f"No such tool: a b 1, c c {'x' * 39}…, d 1, 2, and 1 more."


@pytest.fixture(scope="module")
def finished_run() -> Run:
    plan = PLAN.model_copy(update={"steps": PLAN.steps[:4]})
    return Executor(toy_registry(), approve_writes=False).execute(plan)


def test_the_summary_counts_steps_and_rows_shows_the_final_rows_and_says_what_failed_and_why(finished_run):
    summary = summarize_run(finished_run)
    assert summary.headline == "4 steps: 2 succeeded, 1 failed, 1 skipped · 4 rows"
    assert summary.final == "Step 3 · visits_list" and summary.final_rows == 2
    assert summary.top_rows == [{"id": "V-S0", "city": "checked"}, {"id": "V-S2", "city": "checked"}]
    assert [(f.step, f.status, f.reason) for f in summary.failures] == [
        ("Step 1 · explode", "failed", "explode failed: disk full"),
        ("Step 2 · visits_list", "skipped", "skipped: depends on step 1 (explode), which did not succeed")]


def test_a_summary_with_nothing_succeeded_or_a_text_result_says_so():
    plan = plan_from_seed({"steps": [{"tool": "explode"}, {"tool": "say", "params": {"message": "hi"}}]}, goal="g")
    nothing = Run.for_plan(plan)
    nothing.steps[plan.steps[0].id] = StepRun(step_id=plan.steps[0].id, status=StepStatus.failed, error=None)
    summary = summarize_run(nothing)
    assert summary.final is None and summary.rows == 0 and summary.headline == "2 steps: 1 failed, 1 pending"
    assert [f.reason for f in summary.failures] == ["no reason recorded"]
    said = Run.for_plan(plan)
    said.steps[plan.steps[1].id] = StepRun(step_id=plan.steps[1].id, status=StepStatus.succeeded, result="Hello")
    summary = summarize_run(said)
    assert (summary.final, summary.final_rows, summary.final_text) == ("Step 1 · say", None, "Hello")


def test_the_models_answer_streams_from_a_run_in_pieces_escaped_until_the_run_ends(finished_run, tmp_path,
                                                                                   llm_server):
    answer = "Berlin has 2 sites: see https://x.example/a_b. The *explode* step failed (disk full)."
    llm_server.reply(answer, chunks=[answer[:20], answer[20:50], answer[50:]])
    settings = Settings(data_dir=tmp_path, planner="llm", timeout=5)
    executor = Executor(toy_registry(), synthesizer=ModelSynthesizer(ModelClient(settings)), approve_writes=False)
    worker = BackgroundRun(executor, Run.for_plan(finished_run.plan), "all").start()
    pieces = list(answer_pieces("", worker))
    assert not worker.alive and worker.run.answer == answer
    assert "".join(pieces) == md_escape(answer)  # escaped piece by piece as the whole would be
    assert all(p.endswith(" ") for p in pieces[:-1])  # cut between words: an address is never halved
