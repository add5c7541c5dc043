from core import Plan, Problem, Step, Validator
from core.formats import PlanFormat, plan_from_seed, register_format, unregister_format

from toy_tools import toy_registry

validator = Validator(toy_registry())


def problems(seed_steps):
    plan = plan_from_seed({"steps": seed_steps})
    return [(p.step_index, p.field, p.message) for p in validator.validate(plan)]


def test_valid_chain_has_no_problems():
    assert problems([
        {"tool": "sites_list", "params": {"city": "Berlin"}},
        {"tool": "visits_list", "params": {"site_id": "${step[0].data.*.id}"}, "depends_on": [0]},
    ]) == []


def test_unknown_tool_suggests_the_closest_name():
    [(index, field, message)] = problems([{"tool": "site_list", "params": {}}])
    assert (index, field) == (0, "tool")
    assert "unknown tool 'site_list'" in message and "did you mean 'sites_list'" in message


def test_schema_problems_name_the_field():
    found = problems([{"tool": "sites_list", "params": {"kind": "huge", "limit": "ten", "colour": "red"}},
                      {"tool": "visits_list", "params": {}}])
    fields = {(i, f) for i, f, _ in found}
    assert fields == {(0, "params.kind"), (0, "params.limit"), (0, "params.colour"), (1, "params.site_id")}
    messages = {f: m for _, f, m in found}
    assert "'huge' is not one of the allowed values" in messages["params.kind"]
    assert "required parameter is missing" in messages["params.site_id"]
    assert "not a parameter" in messages["params.colour"]


def test_reference_to_later_missing_and_impossible_paths():
    found = problems([
        {"tool": "visits_list", "params": {"site_id": "${step[1].data.*.id}"}},
        {"tool": "sites_list", "params": {}},
        {"tool": "visits_list", "params": {"site_id": "${step[7].data.*.id}"}},
        {"tool": "visits_list", "params": {"site_id": "${step[1].data.*.name}"}},
        {"tool": "visits_list", "params": {"site_id": "${step[1].count.*}"}},
    ])
    by_step = {i: m for i, _, m in found}
    assert "comes later" in by_step[0]
    assert "only 5 steps" in by_step[2]
    assert "has no field 'name'" in by_step[3] and "(it has: city, id)" in by_step[3]
    assert "not a list" in by_step[4]


def test_cycle_and_bad_dependencies():
    plan = Plan(steps=[Step(id="a", tool="sites_list", depends_on=["b"]),
                       Step(id="b", tool="sites_list", depends_on=["a"]),
                       Step(id="c", tool="sites_list", depends_on=["c", "zz"])])
    found = [(p.step_id, p.field, p.message) for p in validator.validate(plan)]
    assert any(f == "depends_on" and "cycle" in m and "step 0 (sites_list)" in m for _, f, m in found)
    assert ("c", "depends_on", "a step cannot depend on itself") in found
    assert any(s == "c" and "'zz'" in m for s, _, m in found)


def test_seed_index_out_of_range_is_reported():
    found = problems([{"tool": "sites_list", "params": {}, "depends_on": [4]}])
    assert found and found[0][1] == "depends_on" and "step[4]" in found[0][2]


def test_empty_plan_is_an_error():
    assert [p.message for p in validator.validate(Plan())] == ["the plan has no steps"]


def test_problem_text_names_step_and_field():
    plan = plan_from_seed({"steps": [{"tool": "sites_list", "params": {"kind": "huge"}}]})
    assert str(validator.validate(plan)[0]).startswith("step 0 (sites_list) · params.kind: ")


def test_a_cycle_is_named_from_its_earliest_step_whatever_the_hash_seed():
    # networkx walks sets of step ids, whose order changes with PYTHONHASHSEED between runs.
    import os
    import subprocess
    import sys
    script = ("from core import Plan, Step, ToolRegistry, Validator\n"
              "plan = Plan(goal='g', steps=[Step(id=i, tool='x', depends_on=[d]) for i, d in "
              "(('a', 'c'), ('b', 'a'), ('c', 'b'))])\n"
              "print([str(p) for p in Validator(ToolRegistry()).validate(plan) if 'cycle' in str(p)])")
    outputs = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout
               for seed in (0, 1, 2, 3)}
    assert outputs == {"['step 0 (x) · depends_on: dependency cycle: "
                       "step 0 (x) → step 1 (x) → step 2 (x) → step 0 (x)']\n"}


def test_a_malformed_reference_is_a_problem_not_a_crash():
    from core import Plan, Step, ToolRegistry, Validator
    plan = Plan(goal="g", steps=[Step(id="a", tool="x"),
                                 Step(id="b", tool="x", params={"ids": "${step[0].data.0.id}", "n": "${step[0].count}"},
                                      depends_on=["a"])])
    assert plan.edges() == [("a", "b")]  # the well-formed reference and depends_on still count
    problems = [str(p) for p in Validator(ToolRegistry()).validate(plan)]
    assert any(p.startswith("step 1 (x) · params.ids: ") for p in problems), problems


def test_a_format_registers_its_checks_through_the_same_hook_as_the_built_in_ones():
    def no_shouting(plan):
        for n, step in enumerate(plan.steps):
            if step.format_data.get("quiet", {}).get("loud"):
                yield Problem("too loud for the quiet format", "format_data.quiet", step.id, n, step.tool)

    plan = plan_from_seed({"steps": [{"tool": "sites_list", "params": {"city": "Berlin"}}]})
    plan.steps[0].format_data["quiet"] = {"loud": True}
    assert validator.validate(plan) == []
    register_format(PlanFormat("quiet", "A third-party format", ".quiet", checks=(no_shouting,)))
    try:
        [problem] = validator.validate(plan)
        assert (problem.step_index, problem.field, problem.message) == (
            0, "format_data.quiet", "too loud for the quiet format")
    finally:
        unregister_format("quiet")
    assert validator.validate(plan) == []
