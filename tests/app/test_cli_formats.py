"""What ``plan-studio plan`` and ``replan`` say on stderr about what the chosen format dropped
(the CLI's fixtures are test_cli's)."""

from __future__ import annotations

from pathlib import Path

from test_cli import BERLIN_CONTAMINATED, cli, data_dir, isolated, write  # noqa: F401 (fixtures)


def test_plan_in_a_format_that_drops_data_says_what_on_stderr(cli) -> None:
    result = cli("plan", BERLIN_CONTAMINATED, "--format", "llmcompiler")
    assert result.status == 0
    assert [line.split("(")[0] for line in result.out.splitlines() if line and not line.startswith("Thought:")] == [
        "1. facilities_list", "2. shipments_list", "3. join"]
    [note] = [line for line in result.err.splitlines() if "dropped" in line]
    assert note.startswith("note: the LLMCompiler plan dropped: ") and "the goal" in note and "metadata" in note
    mermaid = cli("plan", BERLIN_CONTAMINATED, "--format", "mermaid")
    assert "note: the Mermaid flowchart (export only) dropped: the goal" in mermaid.err


def test_plan_in_a_format_that_keeps_everything_says_nothing(cli) -> None:
    for fmt in ("seed", "native", "sk", "teams"):
        assert "dropped" not in cli("plan", BERLIN_CONTAMINATED, "--format", fmt).err, fmt


def test_goals_file_notes_what_each_goal_dropped(cli, tmp_path: Path) -> None:
    goals = write(tmp_path, "goals.txt", "Get facilities in Berlin\nGet facilities in Munich\n")
    result = cli("plan", "--goals-file", goals, "--format", "llmcompiler")
    notes = [line for line in result.err.splitlines() if "dropped" in line]
    assert [n.split(":")[1].strip() for n in notes] == ["'Get facilities in Berlin'", "'Get facilities in Munich'"]
