"""Bad input never escapes the error family, and whatever loads can also be validated,
exported, run and saved (issue 7).

First property-based tests (hypothesis) over every entry point: ``load_plan`` in each format,
``Validator.validate``, ``dump_plan`` in each format, ``Executor.execute``, ``PlanStore`` on a
real SQLite file, and the CLI's ``validate`` and ``run`` through ``main()``. Inputs are valid
demo plans, the same plans mutated (odd JSON values, odd digits, huge integers, deep nesting,
lone surrogates, references with random indexes and paths, random dependencies, cycles),
random text, and exports of valid plans truncated or spliced with odd snippets. Then one
plain regression test for each case the fuzzing found.

Every property runs a fixed number of examples, derandomized: CI sees the same inputs every
run, and a failure prints the example that reproduces it.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator
from unittest import mock

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis.control import currently_in_test_context
from hypothesis import strategies as st

from core import (FORMATS, Executor, Plan, PlanError, PlanFormatError, PlanInvalid, PlanStudioError,
                  ReferenceResolutionError, ReferenceSyntaxError, Settings, StepStatus, ToolRegistry,
                  Validator, dump_plan, find_references, load_plan, resolve_params)
from core._limits import (MAX_INTEGER_DIGITS, MAX_NESTING, MAX_REFERENCES_PER_TEXT,
                          MAX_RESOLVED_TEXT, MAX_STEPS)
from core.plan._positions import ids_for_positions, positions_for_ids
from core.formats import plan_from_seed
from core.storage import PlanStore
from studio.workbench._services import build_services
from studio.cli._main import main
from tools import build_registry

ROOT = Path(__file__).resolve().parents[2]
TODAY = "2025-10-12"
ACCEPTANCE = json.loads((ROOT / "docs" / "acceptance" / "seed_examples.json").read_text(encoding="utf-8"))

EXPORTS = [name for name, fmt in FORMATS.items() if fmt.dump is not None]
IMPORTS = [name for name, fmt in FORMATS.items() if fmt.load is not None]
# Formats whose writer takes any plan that loads; the SK writer refuses what XML cannot
# hold (a tool or param name that is no XML name, control characters), with a PlanFormatError.
WRITES_ANY_PLAN = ["native", "seed", "teams", "mermaid"]

FUZZ = settings(max_examples=200, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much])


# -- the demo plans ----------------------------------------------------------------------------
def _demo_plans() -> list[Plan]:
    plans = [plan_from_seed(case["plan"], goal=case["goal"]) for case in ACCEPTANCE["cases"]]
    plans.append(Plan.model_validate({"goal": "groceries", "steps": [
        {"id": "a", "tool": "createList", "params": {"list": "groceries"}, "note": "first -- the list"},
        {"id": "b", "tool": "addItem", "params": {"list": "groceries", "item": "milk"}},
        {"id": "c", "tool": "say", "params": {"message": "Added ${step[1]} to the list"},
         "depends_on": ["b"], "output_var": "DONE", "result_key": "RESULT__DONE"},
    ]}))
    plans.append(Plan.model_validate({"goal": "a poem", "steps": [
        {"id": "p", "tool": "ShortPoem", "params": {"input": "Autumn in the city"}},
        {"id": "t", "tool": "Translate", "params": {"input": "${step[0]}", "language": "French"},
         "parallel": True},
    ]}))
    return plans


DEMO_PLANS = _demo_plans()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator["World"]:
    folder = tmp_path_factory.mktemp("fuzz")
    with pytest.MonkeyPatch.context() as patch:
        # Offline, whatever the caller's shell says: writer tools fail their step, no network.
        for name in [n for n in os.environ if n.startswith(("OPENAI_", "PLAN_STUDIO_"))]:
            patch.delenv(name)
        patch.setenv("XDG_DATA_HOME", str(folder / "user-data"))
        registry = build_registry(Settings(data_dir=folder / "data", today=dt.date.fromisoformat(TODAY)))
        store = PlanStore(folder / "store.sqlite3")
        try:
            yield World(folder, registry, store)
        finally:
            store.close()


@dataclass
class World:
    """The demo tools over their own data folder, and one plan store, for the whole module."""

    folder: Path
    registry: ToolRegistry
    store: PlanStore

    def __post_init__(self) -> None:
        self.validator = Validator(self.registry)
        self.executor = Executor(self.registry, approve_writes=False)  # hypothesis runs it outside the env fixture


def test_the_demo_plans_are_valid(world: World) -> None:
    for plan in DEMO_PLANS:
        assert world.validator.errors(plan) == [], plan.goal


# -- what every plan that loaded must survive ----------------------------------------------------
def survives_everything(world: World, plan: Plan, *, store: bool = True) -> None:
    """Validate, export in every format (and read back), save and load (unless ``store`` is
    False: saving costs a disk sync), and run if valid: nothing but PlanStudioErrors, and only
    where the format cannot represent the plan."""
    problems = world.validator.validate(plan)
    valid = not any(p.severity == "error" for p in problems)
    if currently_in_test_context():  # the statistics say how many plans loaded, and ran
        event(f"loaded a {'valid' if valid else 'invalid'} plan")
    for fmt in EXPORTS:
        try:
            text = dump_plan(plan, fmt, world.registry)
        except PlanFormatError:
            assert fmt not in WRITES_ANY_PLAN, f"{fmt} must write every plan that loads"
            continue
        if FORMATS[fmt].load is None:
            continue
        try:
            again = load_plan(text, fmt, world.registry)
        except PlanStudioError:
            assert fmt != "native", "a native export must load back"
            continue
        world.validator.validate(again)
        if fmt == "native":
            assert again == plan
    if store:
        saved = world.store.save_plan(plan)
        assert saved.plan == plan
        assert world.store.load_plan(saved.plan_id) == plan
    if valid:
        run = world.executor.execute(plan)
        assert run.finished
        if store:
            world.store.save_run(run, plan_id=saved.plan_id, version=saved.version)
            assert world.store.load_run(run.id) == run


def load_or_refuse(world: World, text: str, fmt: str) -> Plan | None:
    try:
        return load_plan(text, fmt, world.registry)
    except PlanStudioError:
        return None


# -- strategies ----------------------------------------------------------------------------------
# Characters str.isdigit (or \d) takes that are no ASCII digit: superscripts, Arabic-Indic,
# fullwidth, NKo, mathematical bold, a Roman numeral, a fraction.
ODD_DIGITS = ["²", "٣", "１", "߁", "𝟙", "Ⅻ", "½"]
ODD_TEXT = ["\ud800", "a\udfffb", "\x00", "\x0b", "]]>", "<!--", "--", "-", "${", "}", "$POEM",
            "&amp;", "\u2028", "\ufffe", "%%{init}%%", "<br/>", "' \"", "\n", " "]

step_indexes = st.one_of(
    st.integers(0, 6).map(str),
    st.sampled_from(ODD_DIGITS),
    st.integers(7, 5000).map(lambda n: "9" * n),
    st.sampled_from(["", "-1", " 1 ", "01", "1.0", "x", "0x1"]),
)
path_parts = st.sampled_from([".data", ".*", "[*]", "[0]", "[-1]", ".id", "['k']", '["k"]', "[²]",
                              "[99999999999]", "[--1]", ".", "[", "[x]", " ", ".data.*.id", "]",
                              "}", "{", ".a-b"])


@st.composite
def references(draw: st.DrawFn) -> str:
    index = draw(step_indexes)
    path = "".join(draw(st.lists(path_parts, max_size=4)))
    close = draw(st.sampled_from(["}", "}", "}", ""]))
    opening = draw(st.sampled_from(["${step[", "${step[", "${ step [", "${step"]))
    return f"{opening}{index}]{path}{close}"


texts_with_references = st.one_of(
    references(),
    st.lists(st.one_of(references(), st.text(max_size=6), st.sampled_from(ODD_TEXT)),
             min_size=2, max_size=4).map("".join),
    st.tuples(references(), st.integers(MAX_REFERENCES_PER_TEXT - 5, MAX_REFERENCES_PER_TEXT + 30))
    .map(lambda t: " ".join([t[0]] * t[1])),
)
texts = st.one_of(st.text(max_size=12), st.sampled_from(ODD_TEXT), texts_with_references)
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-10**6, 10**6),
    st.integers(MAX_INTEGER_DIGITS - 2, 4300).map(lambda n: 10**n - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    texts,
)


def nested(depth: int, leaf: Any = 1) -> Any:
    value = leaf
    for n in range(depth):
        value = [value] if n % 2 else {"k": value}
    return value


json_values = st.one_of(
    st.recursive(scalars, lambda kids: st.lists(kids, max_size=3)
                 | st.dictionaries(texts, kids, max_size=3), max_leaves=8),
    st.integers(MAX_NESTING - 3, MAX_NESTING + 40).map(nested),
)


@st.composite
def mutated_plan_documents(draw: st.DrawFn) -> dict[str, Any]:
    """A demo plan as native JSON, changed in one to four ways a person, a model or a fuzzer
    might change it."""
    plan = draw(st.sampled_from(DEMO_PLANS))
    data = plan.model_dump(mode="json")
    steps: list[Any] = data["steps"]
    tools = sorted({s.tool for p in DEMO_PLANS for s in p.steps})
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["param", "param", "param", "depends_on", "cycle", "tool",
                                     "metadata", "goal", "note", "duplicate", "drop", "swap",
                                     "junk_step", "flag", "self"]))
        if not steps:
            steps.append({"tool": draw(st.sampled_from(tools)), "params": {}})
            continue
        n = draw(st.integers(0, len(steps) - 1))
        step = steps[n] if isinstance(steps[n], dict) else {}
        # One per step, junk ones included, so ids[m] is the id of steps[m].
        ids = [s.get("id") if isinstance(s, dict) else None for s in steps]
        if kind == "param":
            params = step.setdefault("params", {})
            if isinstance(params, dict):
                keys = [*params, "location", "limit", "facility_id", "message", "input"]
                key = draw(st.one_of(st.sampled_from(keys), texts))
                params[key] = draw(st.one_of(json_values, texts_with_references))
        elif kind == "depends_on":
            step["depends_on"] = draw(st.lists(st.one_of(st.sampled_from(ids), texts), max_size=3))
        elif kind == "cycle" and len(steps) >= 2:
            m = (n + 1) % len(steps)
            step.setdefault("depends_on", []).append(ids[m])
            other = steps[m] if isinstance(steps[m], dict) else {}
            other.setdefault("depends_on", []).append(ids[n])
        elif kind == "self":
            step.setdefault("depends_on", []).append(step.get("id"))
        elif kind == "tool":
            step["tool"] = draw(st.one_of(st.sampled_from(tools), texts))
        elif kind == "metadata":
            data["metadata"][draw(texts)] = draw(json_values)
        elif kind == "goal":
            data["goal"] = draw(texts)
        elif kind == "note":
            step["note"] = draw(texts)
        elif kind == "duplicate":
            twin = json.loads(json.dumps(step))
            if draw(st.booleans()):
                twin["id"] = f"{twin.get('id')}-twin"
            steps.insert(n, twin)
        elif kind == "drop":
            del steps[n]
        elif kind == "swap" and len(steps) >= 2:
            steps[0], steps[-1] = steps[-1], steps[0]
        elif kind == "junk_step":
            steps[n] = draw(json_values)
        elif kind == "flag":
            step[draw(st.sampled_from(["parallel", "locked", "output_var", "result_key", "format_data", "id"]))] = \
                draw(json_values)
    return data


SNIPPETS = ["NaN", "Infinity", "-Infinity", "1e999", "9" * 5000, "9" * 50, '"\\ud800"', "\\ud800",
            "[" * 300, "]" * 300, "{", "}", "${step[²]}", "${step[" + "9" * 5000 + "]}", "<!--",
            "-->", "<!DOCTYPE x>", "&#0;", "&#xD800;", "<function.P.x/>", '"', ",", ":", "null",
            '{"a":' * 60, ' a="NaN"', ' b="' + "[" * 40 + "]" * 40 + '"', "<!--a-->" * 40 + "x",
            " " * 3000 + "x", "\x00", "\ud800"]


@st.composite
def damaged_exports(draw: st.DrawFn) -> tuple[str, str]:
    """(format, text): a demo plan exported, then cut short or spliced with an odd snippet."""
    fmt = draw(st.sampled_from(IMPORTS))
    text = dump_plan(draw(st.sampled_from(DEMO_PLANS)), fmt)
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text)))
        how = draw(st.sampled_from(["cut", "insert", "replace", "delete"]))
        if how == "cut":
            text = text[:at]
        elif how == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 20)):]
        else:
            snippet = draw(st.one_of(st.sampled_from(SNIPPETS), texts))
            skip = draw(st.integers(1, 10)) if how == "replace" else 0
            text = text[:at] + snippet + text[at + skip:]
    return fmt, text


mutated_texts = st.tuples(st.sampled_from(["native", "seed", "teams"]),
                          mutated_plan_documents().map(lambda d: json.dumps(d, ensure_ascii=needs_ascii(d))))
plan_texts = st.one_of(
    st.tuples(st.sampled_from(IMPORTS), st.text(max_size=200)),
    damaged_exports(),
    mutated_texts,
    mutated_texts,
)


def needs_ascii(data: Any) -> bool:
    # Lone surrogates can only travel as \\u escapes; anything else is written as it is.
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
        return False
    except (UnicodeEncodeError, ValueError):
        return True


def export_dict(fmt: str, plan: Plan) -> Any:
    return json.loads(dump_plan(plan, fmt))


# -- properties ----------------------------------------------------------------------------------
@FUZZ
@given(case=plan_texts)
def test_any_text_is_a_plan_or_a_plan_studio_error(world: World, case: tuple[str, str]) -> None:
    """Every loader takes any text; whatever loads survives every other entry point."""
    fmt, text = case
    stored = False
    for name in dict.fromkeys([fmt, *IMPORTS]):
        plan = load_or_refuse(world, text, name)
        event(f"{name}: {'loaded' if plan else 'refused'}")
        if plan is not None:
            survives_everything(world, plan, store=not stored)
            stored = True


@FUZZ
@given(data=mutated_plan_documents())
def test_mutated_plans_load_or_are_refused_and_survive_everything(world: World, data: dict) -> None:
    """A mutated plan, as native JSON and in every other format that loads it."""
    text = json.dumps(data, ensure_ascii=needs_ascii(data))
    plan = load_or_refuse(world, text, "native")
    if plan is None:
        return
    survives_everything(world, plan)
    for fmt in ("seed", "teams", "sk"):
        try:
            exported = dump_plan(plan, fmt, world.registry)
        except PlanFormatError:
            continue
        again = load_or_refuse(world, exported, fmt)
        if again is not None:
            survives_everything(world, again, store=False)


@settings(FUZZ, max_examples=60)
@given(plan=st.sampled_from(DEMO_PLANS), fmt=st.sampled_from([f for f in IMPORTS if f != "native"]))
def test_valid_plans_keep_their_steps_through_every_format(world: World, plan: Plan, fmt: str) -> None:
    again = load_plan(dump_plan(plan, fmt, world.registry), fmt, world.registry)
    index = {s.id: n for n, s in enumerate(plan.steps)}
    index_again = {s.id: n for n, s in enumerate(again.steps)}
    # The formats have no step ids: references compare by the position of the step they name
    assert [(s.tool, positions_for_ids(s.params, index_again)) for s in again.steps] == \
        [(s.tool, positions_for_ids(s.params, index)) for s in plan.steps]
    assert [[index_again[d] for d in again.dependencies_of(s.id)] for s in again.steps] == \
        [[index[d] for d in plan.dependencies_of(s.id)] for s in plan.steps]
    assert load_plan(dump_plan(plan, "native"), "native") == plan


@FUZZ
@given(params=st.dictionaries(texts, json_values, max_size=3),
       results=st.dictionaries(st.integers(0, 3), json_values, max_size=3),
       mapping=st.dictionaries(st.integers(0, 5), st.integers(0, 5), max_size=4))
def test_references_resolve_and_convert_or_say_why(params: dict, results: dict, mapping: dict) -> None:
    ids = [f"s{n}" for n in range(4)]
    by_id = {f"s{k}": v for k, v in results.items()} if isinstance(results, dict) else results
    for action in (lambda: find_references(params), lambda: resolve_params(params, by_id),
                   lambda: positions_for_ids(ids_for_positions(params, ids), {i: n for n, i in enumerate(ids)})):
        try:
            action()
        except (ReferenceSyntaxError, ReferenceResolutionError):
            pass


@FUZZ
@given(case=plan_texts, suffix=st.sampled_from([".json", ".xml", ".txt"]))
def test_the_cli_says_what_is_wrong_with_any_file(world: World, case: tuple[str, str], suffix: str) -> None:
    """``validate`` and ``run``: exit 0 or 1, never a traceback or an "unexpected error"."""
    _fmt, text = case
    path = world.folder / f"plan{suffix}"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    for command in ("validate", "run"):
        status, out, err = run_cli(world, command, path)
        assert status in (0, 1), (command, status, err)
        assert "unexpected error" not in err and "Traceback" not in out + err


def run_cli(world: World, *argv: str | Path) -> tuple[int, str, str]:
    """``main(argv)`` in-process: the exit status, stdout and stderr. The tools are the world's
    (reading every tool's signature again for each call would be most of the test's time)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            mock.patch("studio.cli._main.build_services",
                       lambda settings_: build_services(settings_, registry=world.registry)):
        status = main([*map(str, argv), "--data-dir", str(world.folder / "data"), "--today", TODAY])
    return status, out.getvalue(), err.getvalue()


# -- regression tests, one per case the fuzzing found --------------------------------------------
def two_steps(**params: Any) -> dict[str, Any]:
    return {"goal": "g", "steps": [
        {"id": "a", "tool": "facilities_list", "params": {"location": "Berlin"}},
        {"id": "b", "tool": "shipments_list", "params": params},
    ]}


def native(data: Any) -> str:
    return json.dumps(data, ensure_ascii=needs_ascii(data))


@pytest.mark.parametrize("index", ODD_DIGITS)
def test_an_odd_digit_step_index_is_a_problem_not_a_crash(world: World, index: str) -> None:
    plan = load_plan(native(two_steps(facility_id=f"${{step[{index}].data.*.id}}")))
    problems = world.validator.validate(plan)
    assert any(p.step_index == 1 and p.field == "params.facility_id" and "not a whole number" in p.message
               for p in problems)
    assert plan.dependencies_of("b") == []
    for fmt in WRITES_ANY_PLAN:
        dump_plan(plan, fmt, world.registry)
    with pytest.raises(PlanInvalid):
        world.executor.execute(plan)
    survives_everything(world, plan)


def test_an_odd_digit_in_a_path_index_is_a_problem_not_a_crash(world: World) -> None:
    plan = load_plan(native(two_steps(facility_id="${step[0].data[²].id}")))
    assert any("'²' is not an index" in p.message for p in world.validator.validate(plan))


def test_a_five_thousand_digit_step_index_is_a_reference_beyond_the_plan(world: World) -> None:
    plan = load_plan(native(two_steps(facility_id="${step[" + "9" * 5000 + "].data}")))
    [problem] = [p for p in world.validator.validate(plan) if p.field == "params.facility_id"]
    assert "step index has 5000 digits" in problem.message
    assert len(problem.message) < 300  # the reference is shortened, not printed whole
    survives_everything(world, plan)


def test_converting_positions_reads_ascii_indexes_only() -> None:
    params = {"a": "${step[0].x} ${step[²].x} ${step[٣].x} ${step[" + "9" * 20 + "]}", "b": ["${step[1]}"]}
    assert ids_for_positions(params, ["a", "b"]) == {
        "a": "${steps.a.x} ${step[²].x} ${step[٣].x} ${step[" + "9" * 20 + "]}", "b": ["${steps.b}"]}


def test_the_llm_planner_sends_an_odd_digit_back_for_repair(world: World, llm_server: Any) -> None:
    from core.planners import LLMPlanner

    settings_ = Settings(data_dir=world.folder / "data", today=dt.date.fromisoformat(TODAY), planner="llm",
                         model="test-model", max_retries=1, timeout=5)
    odd = {"steps": [{"tool": "facilities_list", "params": {"location": "Berlin"}},
                     {"tool": "shipments_list", "params": {"facility_id": "${step[²].data.*.id}"}}]}
    good = json.loads(json.dumps(odd, ensure_ascii=False).replace("²", "0"))
    llm_server.reply(json.dumps(odd))
    llm_server.reply(json.dumps(good))
    plan = LLMPlanner(world.registry, settings_).plan("Berlin shipments", today=dt.date.fromisoformat(TODAY))
    assert plan.steps[1].params == {"facility_id": f"${{steps.{plan.steps[0].id}.data.*.id}}"}
    assert "step index '²' is not a whole number" in llm_server.messages(1)[-1]["content"]


def test_a_locked_step_with_an_odd_digit_survives_a_replan(world: World, llm_server: Any) -> None:
    from core.planners import LLMPlanner

    settings_ = Settings(data_dir=world.folder / "data", today=dt.date.fromisoformat(TODAY), planner="llm",
                         model="test-model", max_retries=0, timeout=5)
    old = load_plan(native(two_steps(facility_id="${step[²].data}")))
    old = old.model_copy(update={"steps": [old.steps[0], old.steps[1].model_copy(update={"locked": True})]})
    llm_server.reply(json.dumps({"steps": [
        {"tool": "inspections_list", "params": {}},
        {"tool": "facilities_list", "params": {"location": "Berlin"}}]}))
    try:
        LLMPlanner(world.registry, settings_).replan(old, "inspections first", today=dt.date.fromisoformat(TODAY))
    except PlanStudioError:
        pass  # the locked step's odd reference is reported; renumbering it must not crash


def test_json_nested_too_deep_to_parse_is_a_format_error() -> None:
    text = '{"steps": [{"tool": "say", "params": {"message": ' + "[" * 100_000 + "]" * 100_000 + "}}]}"
    for fmt in ("native", "seed", "teams"):
        with pytest.raises(PlanFormatError, match="nested more than"):
            load_plan(text, fmt)


def test_params_nested_past_the_bound_are_refused_naming_step_and_field() -> None:
    with pytest.raises(PlanFormatError) as caught:
        load_plan(native(two_steps(facility_id=nested(200))))
    assert "nested" in str(caught.value)
    with pytest.raises(PlanFormatError) as caught:
        load_plan(native(two_steps(facility_id=nested(MAX_NESTING + 1))))
    assert f"step 1 (shipments_list) · params.facility_id" in str(caught.value)
    assert f"nested at most {MAX_NESTING} levels" in str(caught.value)
    with pytest.raises(PlanError, match="params.x"):
        Plan.model_validate(two_steps(x=nested(MAX_NESTING + 1)))


def test_params_nested_to_the_bound_load_validate_export_run_and_save(world: World) -> None:
    plan = load_plan(native(two_steps(facility_id=nested(MAX_NESTING))))
    survives_everything(world, plan)
    for fmt in ("seed", "teams", "sk"):
        again = load_plan(dump_plan(plan, fmt, world.registry), fmt, world.registry)
        assert again.steps[1].params == plan.steps[1].params


def test_a_plan_edited_in_place_past_a_bound_is_not_saved_at_all(world: World, tmp_path: Path) -> None:
    store = PlanStore(tmp_path / "store.sqlite3")
    plan = load_plan(native(two_steps(facility_id="x")))
    saved = store.save_plan(plan)
    for bad in (nested(200), "\ud800", math.nan, 10**60):
        plan.steps[1].params["facility_id"] = bad
        with pytest.raises(PlanError, match="step 1 .* params.facility_id"):
            store.save_plan(plan, plan_id=saved.plan_id)
        with pytest.raises(PlanError):
            store.save_plan(plan)
        with pytest.raises(PlanError):
            world.executor.execute(plan)
    assert [v.version for v in store.versions(saved.plan_id)] == [1]
    assert len(store.list_plans()) == 1
    store.close()


@pytest.mark.parametrize("number, words", [
    ("9" * 4301, "4301 digits"),
    ("-" + "9" * 5000, "5000 digits"),
    ("9" * (MAX_INTEGER_DIGITS + 1), f"{MAX_INTEGER_DIGITS + 1} digits"),
    ("NaN", "NaN is not a number JSON allows"),
    ("-Infinity", "-Infinity is not a number JSON allows"),
])
def test_numbers_json_or_a_plan_cannot_hold_are_refused_at_load(number: str, words: str) -> None:
    text = '{"steps": [{"tool": "facilities_list", "params": {"limit": ' + number + "}}]}"
    for fmt in ("native", "seed", "teams"):
        with pytest.raises(PlanFormatError, match=words):
            load_plan(text, fmt)


def test_an_overflowing_float_is_refused_naming_the_field() -> None:
    with pytest.raises(PlanFormatError, match=r"step 0 \(facilities_list\) · params.limit: inf"):
        load_plan('{"steps": [{"tool": "facilities_list", "params": {"limit": 1e999}}]}')


def test_the_largest_integer_round_trips_every_format(world: World) -> None:
    big = 10**MAX_INTEGER_DIGITS - 1
    plan = load_plan(native(two_steps(limit=big)))
    survives_everything(world, plan)
    for fmt in ("seed", "teams", "sk"):
        assert load_plan(dump_plan(plan, fmt), fmt).steps[1].params == {"limit": big}


@pytest.mark.parametrize("where, data", [
    ("step 1 (shipments_list) · params.facility_id", two_steps(facility_id="a\ud800b")),
    ("step 1 (shipments_list) · params.x[0]", two_steps(x=["\udfff"])),
    ("step 1 (shipments_list) · params: key", two_steps(**{"\ud800": 1})),
    ("plan · goal", {"goal": "\ud800", "steps": []}),
    ("plan · metadata.x", {"steps": [], "metadata": {"x": {"y": "\ud800"}}}),
])
def test_a_lone_surrogate_is_refused_at_load_naming_where(where: str, data: dict) -> None:
    with pytest.raises(PlanFormatError) as caught:
        load_plan(native(data))
    assert where in str(caught.value) and "lone surrogate" in str(caught.value)


def test_a_lone_surrogate_in_an_sk_plan_is_a_format_error() -> None:
    with pytest.raises(PlanFormatError, match="sk: line 1"):
        load_plan('<plan><function.P.say message="&#xD800;"/></plan>', "sk")


def test_a_plan_with_non_json_values_is_refused() -> None:
    for bad in ({1, 2}, (1, 2), b"x", dt.date(2025, 1, 1)):
        with pytest.raises(PlanError, match="is not a JSON value"):
            Plan.model_validate(two_steps(x=bad))
    circular: list[Any] = []
    circular.append(circular)
    with pytest.raises(PlanError, match="nested"):
        Plan.model_validate(two_steps(x=circular))


def test_too_many_steps_are_refused_before_they_are_read() -> None:
    seed = {"steps": [{"tool": "say", "params": {"message": "hi"}}] * (MAX_STEPS + 1)}
    for fmt, text in (("seed", json.dumps(seed)), ("native", json.dumps(seed)),
                      ("teams", json.dumps({"commands": [{"type": "SAY", "response": "hi"}] * (MAX_STEPS + 1)})),
                      ("sk", "<plan>" + '<function.P.say message="hi"/>' * (MAX_STEPS + 1) + "</plan>")):
        with pytest.raises(PlanFormatError, match=f"at most {MAX_STEPS}"):
            load_plan(text, fmt)


def test_a_thousand_references_in_one_text_are_one_problem(world: World) -> None:
    plan = load_plan(native(two_steps(facility_id=" ".join(["${step[0].data}"] * 1000))))
    [problem] = [p for p in world.validator.errors(plan) if p.field == "params.facility_id"]
    assert f"more than {MAX_REFERENCES_PER_TEXT} references" in problem.message
    assert plan.dependencies_of("b") == []


def test_references_in_text_are_filled_in_once_each_in_order() -> None:
    results = {"a": {"data": [{"id": 1}]}, "b": "${steps.a.data}"}
    text = "a ${steps.b} b ${steps.a.data.*.id} c ${steps.b}"
    # step b's result looks like a reference: it is a value, never read as one.
    assert resolve_params({"t": text}, results) == {"t": "a ${steps.a.data} b [1] c ${steps.a.data}"}


def test_references_that_would_fill_a_text_past_the_bound_fail_the_step(world: World) -> None:
    results = {"a": {"data": "x" * (MAX_RESOLVED_TEXT // 50)}}
    text = " ".join(["${steps.a.data}"] * 60)
    with pytest.raises(ReferenceResolutionError, match="longer than"):
        resolve_params({"t": text}, results)
    plan = load_plan(native({"steps": [
        {"id": "a", "tool": "say", "params": {"message": "x" * (MAX_RESOLVED_TEXT // 50)}},
        {"id": "b", "tool": "say", "params": {"message": " ".join(["${step[0]}"] * 60)}}]}))
    run = world.executor.execute(plan)
    assert run.steps["b"].status == StepStatus.failed and "longer than" in (run.steps["b"].error or "")


def test_a_run_of_comments_before_stray_text_is_read_in_linear_time() -> None:
    # Used to backtrack through every grouping of the comments: 2^40 steps.
    text = "<!--a-->" * 40 + "x<plan><function.P.say message='hi'/></plan>"
    assert load_plan(text, "sk").steps[0].params == {"message": "hi"}
    spaces = " " * 50_000 + "x<plan><function.P.say message='hi'/></plan>"
    assert load_plan(spaces, "sk").steps[0].tool == "say"


def test_sk_attributes_that_are_not_plan_json_stay_text() -> None:
    deep = "[" * 40 + "]" * 40
    text = f'<plan><function.P.say a="NaN" b="{"9" * 50}" c="{deep}" d="1e999"/></plan>'
    assert load_plan(text, "sk").steps[0].params == {"a": "NaN", "b": "9" * 50, "c": deep, "d": "1e999"}


def test_seed_ids_that_clash_with_generated_ones_still_load() -> None:
    plan = load_plan(json.dumps({"steps": [{"id": "s2", "tool": "say"}, {"tool": "say"}]}), "seed")
    assert [s.id for s in plan.steps] == ["s2", "s3"]


def test_the_cli_reports_a_file_that_is_not_a_good_plan_with_status_1(world: World) -> None:
    cases = {
        "odd.json": native(two_steps(facility_id="${step[²].data}")),
        "deep.json": '{"steps": [{"tool": "say", "params": {"message": ' + "[" * 5000 + "]" * 5000 + "}}]}",
        "big.json": '{"steps": [{"tool": "facilities_list", "params": {"limit": ' + "9" * 4301 + "}}]}",
        "nan.json": '{"steps": [{"tool": "facilities_list", "params": {"limit": NaN}}]}',
        "surrogate.json": '{"goal": "g", "steps": [{"tool": "say", "params": {"message": "\\ud800"}}]}',
        "comments.xml": "<!--a-->" * 40 + "x",
    }
    for name, text in cases.items():
        path = world.folder / name
        path.write_text(text, encoding="utf-8")
        for command in ("validate", "run"):
            status, out, err = run_cli(world, command, path)
            said = out + err
            assert status == 1, (name, command, said)
            assert "unexpected" not in said and "Traceback" not in said
            assert all(line.startswith((str(path), "error: ")) for line in said.splitlines()), said
    binary = world.folder / "binary.json"
    binary.write_bytes(b'{"steps": "\xff\xfe"}')
    status, out, _err = run_cli(world, "validate", binary)
    assert status == 1 and out.count("\n") == 1 and "not UTF-8 text" in out
