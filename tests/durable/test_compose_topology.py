"""The compose topology (compose.yaml) without Docker: PostgreSQL from Debian's package, two
``plan-studio worker`` processes with the user's tools, and two studios without them, all on one
database. A run a worker holds, waiting for a person, is decided through a studio's review API
and the worker that holds it finishes it (DBOS messages); after a kill -9 of the worker holding a
waiting run the decision still reaches a worker (the other takes the run over); with no worker
left, the studio says plainly that nobody can carry the run on (503), never a traceback.

One set of processes for the module; each test uses its own runs.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest

STUDIO_TODAY = "2025-10-12"

pytestmark = pytest.mark.usefixtures("stop_durable_runs")

_START_SECONDS = 120
_WAIT_SECONDS = 90

TOOLS = '''
"""The team's tools: a count (read-only) and a note posted somewhere (a write: it asks a person)."""
import os


def register(tools):
    @tools.register(effects="read-only")
    def count_items(n: int) -> int:
        """Count the items.

        Args:
            n: How many there are.
        """
        return n

    @tools.register(effects="additive")
    def post_note(text: str, count: int) -> str:
        """Post a note.

        Args:
            text: What the note says.
            count: A number in it.
        """
        with open(os.environ["NOTES_LOG"], "a", encoding="utf-8") as out:
            out.write(f"{text} {count}\\n")
        return f"posted {text}"
'''


@dataclass
class Proc:
    name: str
    process: subprocess.Popen[bytes]
    log: Path
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()  # reaped: its pid is gone, as a dead container's is


@dataclass
class Topology:
    url: str
    tools: Any
    notes: Path
    workers: list[Proc]
    studios: list[Proc]
    token: str


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _get(url: str, token: str | None = None) -> tuple[int, Any]:
    return _call(urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {}))


def _call(request: urllib.request.Request) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")
    except (urllib.error.URLError, OSError):
        return 0, None


def _post(url: str, token: str, body: dict[str, Any]) -> tuple[int, Any]:
    return _call(urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                        headers={"Authorization": f"Bearer {token}",
                                                 "Content-Type": "application/json"}))


def _wait_for(condition: Any, what: str, procs: list[Proc]) -> None:
    deadline = time.monotonic() + _WAIT_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            logs = "\n".join(f"--- {p.name}\n{p.text()[-3000:]}" for p in procs)
            pytest.fail(f"timed out waiting for {what}\n{logs}")
        time.sleep(0.05)


def _start(name: str, argv: list[str], env: dict[str, str], folder: Path, port: int) -> Proc:
    log = folder / f"{name}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(argv, cwd=folder, env=env, stdout=out, stderr=subprocess.STDOUT)
    return Proc(name, process, log, port)


@pytest.fixture(scope="module")
def topology(postgres: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Topology]:
    from core import Role, ToolRegistry
    from core.access import token_hash
    from core.storage import PlanStore

    folder = tmp_path_factory.mktemp("compose")
    tools_file = folder / "team_tools.py"
    tools_file.write_text(TOOLS, encoding="utf-8")
    notes = folder / "notes.log"
    url = postgres.new_database()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PLAN_STUDIO_"))}
    env.update(PLAN_STUDIO_DB=url, PLAN_STUDIO_TODAY=STUDIO_TODAY, PLAN_STUDIO_APPROVE_WRITES="true",
               NOTES_LOG=str(notes))
    command = Path(sys.executable).with_name("plan-studio")
    argv = [str(command)] if command.exists() else [sys.executable, "-m", "studio.cli._main"]
    procs = []
    for n in (1, 2):  # as compose.yaml's worker services: the tools, the health probes
        port = _free_port()
        procs.append(_start(f"worker{n}", [*argv, "worker", "--tools", str(tools_file), "--health-port", str(port)],
                            {**env, "PLAN_STUDIO_DATA_DIR": str(folder / f"w{n}")}, folder, port))
    for n in (1, 2):  # as compose.yaml's studio: no tools of the team's (it decides, workers run)
        port = _free_port()
        host = ["--host", "0.0.0.0"] if n == 2 else []  # as compose.yaml's studio, in its container
        procs.append(_start(f"studio{n}", [*argv, "--port", str(port), *host],
                            {**env, "PLAN_STUDIO_DATA_DIR": str(folder / f"s{n}")}, folder, port))
    store = PlanStore(url)
    token = "approver-" + os.urandom(16).hex()
    try:
        # Ready means: the worker's beat reached the database; the studio's store and DBOS answer.
        _wait_for(lambda: all(_get(f"{p.url}/readyz")[0] == 200 for p in procs if p.process.poll() is None)
                  and all(p.process.poll() is None for p in procs), "every process to be ready", procs)
        store.people.add_token("approver", agent_id="agent:approver", role=Role.approver, token_hash=token_hash(token))
        tools = ToolRegistry()
        namespace: dict[str, Any] = {}
        exec(compile(TOOLS, str(tools_file), "exec"), namespace)  # the test's own copy, to submit plans
        namespace["register"](tools)
        yield Topology(url, tools, notes, procs[:2], procs[2:], token)
    finally:
        for proc in procs:
            if proc.process.poll() is None:
                proc.process.terminate()
        for proc in procs:
            try:
                proc.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


def _submit(top: Topology, tag: str) -> tuple[Any, str]:
    """A run put on the workers' queue (as an agent's or a script's would be); held by a worker
    once its write step waits."""
    from core import Plan, Step
    from core.durable import DurableRuns
    from core.storage import PlanStore

    runs = DurableRuns(PlanStore(top.url), top.tools)
    plan = Plan(goal=f"count and post {tag}",
                steps=[Step(id="s1", tool="count_items", params={"n": 3}),
                       Step(id="s2", tool="post_note", params={"text": tag, "count": "${steps.s1}"})])
    run_id = runs.start(plan)
    runs.enqueue(run_id)
    _wait_for(lambda: runs.store.load_run(run_id).status == "waiting", f"run {tag} to wait for a person",
              top.workers)
    return runs, run_id


def _holder(run_id: str, top: Topology) -> Proc:
    from dbos import DBOS

    # DBOS's sync calls refuse a thread where an event loop runs: this one's, once a browser test
    # ran in this worker process (Playwright's sync API keeps its loop running); a thread has none.
    with ThreadPoolExecutor(1) as thread:
        executor = thread.submit(DBOS.get_workflow_status, run_id).result().executor_id  # host:pid:random
    pid = int(executor.split(":")[-2])
    return next(w for w in top.workers if w.process.pid == pid)


def _decide(top: Topology, studio: Proc, run_id: str, approve: bool = True) -> tuple[int, Any]:
    status, waiting = _get(f"{studio.url}/api/runs/{run_id}/waiting", top.token)
    assert status == 200, waiting
    step = waiting["waiting"][0]
    assert step["step_id"] == "s2"
    return _post(f"{studio.url}/api/runs/{run_id}/steps/s2/decision", top.token,
                 {"approve": approve, "shown_hash": step["shown_hash"]})


def _notes(top: Topology) -> list[str]:
    return top.notes.read_text(encoding="utf-8").splitlines() if top.notes.exists() else []


def test_probes_answer_without_sign_in_and_say_nothing_more(topology: Topology) -> None:
    for proc in [*topology.studios, *topology.workers]:
        assert _get(f"{proc.url}/healthz") == (200, {"status": "ok"})
        status, body = _get(f"{proc.url}/readyz")
        assert status == 200 and body["status"] == "ready"
        assert set(body["checks"].values()) == {"ok"}
        assert topology.url.split("@")[-1] not in json.dumps(body)  # no address of the database


def test_a_studio_listening_beyond_this_machine_without_sign_in_warns(topology: Topology) -> None:
    near, far = (studio.text() for studio in topology.studios)
    assert "warning: listening on 0.0.0.0 (other machines can reach it) and nobody signs in" in far
    assert "warning: listening" not in near
    assert f"open http://127.0.0.1:{topology.studios[1].port}/?token=" in far  # the token still applies
    status, _body = _get(f"{topology.studios[1].url}/api/runs/none/waiting")
    assert status == 401


def test_a_decision_in_one_studio_reaches_the_worker_holding_the_run(topology: Topology) -> None:
    runs, run_id = _submit(topology, "first")
    holder = _holder(run_id, topology)
    status, answer = _decide(topology, topology.studios[1], run_id)
    assert status == 200, answer
    assert "goes on in worker" in " ".join(n["text"] for n in answer["notices"])
    _wait_for(lambda: runs.store.load_run(run_id).finished, "the worker to finish the run", topology.workers)
    run = runs.store.load_run(run_id)
    assert run.status == "succeeded" and run.steps["s2"].result == "posted first"
    assert _notes(topology).count("first 3") == 1
    assert run.steps["s2"].decision.actor_id == "agent:approver"
    log = holder.text()
    assert f"step ended run={run_id} step=s1 tool=count_items status=succeeded" in log
    assert f"step decided run={run_id} step=s2 tool=post_note approved by=" in log
    assert f"step ended run={run_id} step=s2 tool=post_note status=succeeded" in log
    assert f"run ended run={run_id} status=succeeded" in log
    for studio in topology.studios:
        assert "Traceback" not in studio.text()


def test_after_a_kill_9_of_its_worker_the_decision_reaches_the_other_and_with_none_left_the_studio_says_so(
        topology: Topology) -> None:
    runs, run_id = _submit(topology, "second")
    gone = _holder(run_id, topology)
    gone.kill()
    other = next(w for w in topology.workers if w is not gone)
    status, answer = _decide(topology, topology.studios[0], run_id)
    assert status == 200, answer
    _wait_for(lambda: runs.store.load_run(run_id).finished, "the other worker to take the run over and finish it",
              topology.workers)
    run = runs.store.load_run(run_id)
    assert run.status == "succeeded" and _notes(topology).count("second 3") == 1
    assert f"step ended run={run_id} step=s2 tool=post_note status=succeeded" in other.text()

    # The last worker holds a run waiting for a person, and is killed too: nobody carries it on.
    runs, last_id = _submit(topology, "third")
    assert _holder(last_id, topology) is other
    other.kill()
    status, answer = _decide(topology, topology.studios[1], last_id)
    assert status == 503 and answer["why"] == "nobody", answer
    text = answer["notices"][0]["text"]
    assert f"nobody can carry run {last_id} on" in text and "plan-studio worker" in text
    stored = runs.store.load_run(last_id)
    assert stored.status == "waiting" and stored.steps["s2"].decision is None  # nothing recorded
    status, answer = _post(f"{topology.studios[1].url}/api/runs/{last_id}/resume", topology.token, {})
    assert status == 503 and answer["why"] == "nobody", answer
    assert "third 3" not in _notes(topology)
    for studio in topology.studios:
        assert "Traceback" not in studio.text()
