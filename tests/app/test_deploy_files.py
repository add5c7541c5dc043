"""The deployment files agree with the command line: compose.yaml's services run commands
``plan-studio`` accepts, their healthchecks ask the probes those commands serve, every app service
uses the one PostgreSQL; the Dockerfile installs from the lock at build time and runs as a user
of its own. The image itself is built only where a Docker daemon answers."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from studio.cli._cli_args import parser

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))


def _parsed(command: list[str]) -> Any:
    assert command[0] == "plan-studio", command
    return parser().parse_args(command[1:])  # a wrong option exits (SystemExit): the test fails


def _probe_port(service: dict[str, Any]) -> int:
    test = " ".join(service["healthcheck"]["test"])
    found = re.search(r"http://127\.0\.0\.1:(\d+)/readyz", test)
    assert found, test
    return int(found.group(1))


def test_compose_has_postgres_a_studio_and_two_workers(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert services["db"]["image"].startswith("postgres:")
    apps = {name: s for name, s in services.items() if name != "db"}
    assert sorted(apps) == ["studio", "worker1", "worker2"]
    for name, service in apps.items():
        url = service["environment"]["PLAN_STUDIO_DB"]
        assert url.startswith("postgresql+psycopg://") and "@db:5432/" in url, name
        assert service["depends_on"]["db"]["condition"] == "service_healthy"


def test_each_service_runs_a_command_the_cli_takes_and_is_checked_on_its_own_probe(compose: dict[str, Any]) -> None:
    studio = compose["services"]["studio"]
    args = _parsed(studio["command"])
    assert args.command is None and args.host == "0.0.0.0"
    assert _probe_port(studio) == args.port
    assert any(p.endswith(f":{args.port}") for p in studio["ports"])
    for name in ("worker1", "worker2"):
        worker = compose["services"][name]
        args = _parsed(worker["command"])
        assert args.command == "worker"
        assert _probe_port(worker) == args.health_port


def test_the_dockerfile_installs_at_build_time_and_runs_as_a_user_of_its_own() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]
    syncs = [n for n, line in enumerate(lines) if line.startswith("RUN") and "uv sync --frozen" in line]
    user = next(n for n, line in enumerate(lines) if line.startswith("USER "))
    assert syncs and max(syncs) < user and lines[user] != "USER root"
    assert not any(line.startswith("RUN") for line in lines[user + 1:])  # nothing installed as the user
    assert "COPY studio studio" in lines  # the app with its static assets (studio/static, studio/assets)
    command = re.search(r'^CMD (\[.*\])$', text, re.MULTILINE)
    assert command is not None
    assert _parsed(yaml.safe_load(command.group(1))).host == "0.0.0.0"


def _docker_answers() -> str | None:
    if shutil.which("docker") is None:
        return "no docker command on this machine"
    probe = subprocess.run(["docker", "info"], capture_output=True, text=True, timeout=30)
    return None if probe.returncode == 0 else f"no Docker daemon answers: {probe.stderr.strip()[:200]}"


def test_the_image_builds_and_its_command_runs_without_network() -> None:
    missing = _docker_answers()
    if missing is not None:
        pytest.skip(missing)
    tag = "plan-studio-test:latest"
    subprocess.run(["docker", "build", "-t", tag, str(ROOT)], check=True, timeout=1800)
    ran = subprocess.run(["docker", "run", "--rm", "--network", "none", tag, "plan-studio", "worker", "--help"],
                         capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0 and "--health-port" in ran.stdout, ran.stderr
    user = subprocess.run(["docker", "run", "--rm", "--network", "none", tag, "id", "-u"], capture_output=True,
                          text=True, timeout=120)
    assert user.stdout.strip() not in ("", "0")
