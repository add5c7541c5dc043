"""Prints what one review API call costs on a kept-alive connection and on a fresh one, and
what a hostile review costs while the health check is timed beside it (issue 15).

    .venv/bin/python benchmarks/api_latency.py [--calls N]

Starts the studio (``plan-studio``) on a free port with a throwaway data folder. Figures, not
assertions: wall time per call, median and worst of N.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(folder: Path) -> tuple[subprocess.Popen, int]:
    port = free_port()
    env = {**os.environ, "PLAN_STUDIO_DATA_DIR": str(folder / "data")}
    command = Path(sys.executable).with_name("plan-studio")
    process = subprocess.Popen([str(command), "--port", str(port)], cwd=folder, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            connection.request("GET", "/_stcore/health")
            if connection.getresponse().status == 200:
                return process, port
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("the studio did not start")


def report(label: str, samples: list[float]) -> None:
    print(f"{label:<52} median {1000 * statistics.median(samples):8.2f} ms   worst "
          f"{1000 * max(samples):8.2f} ms   n={len(samples)}")


def timed_call(connection: http.client.HTTPConnection, method: str, path: str, headers: dict,
               body: bytes | None = None) -> tuple[float, int, bytes]:
    began = time.perf_counter()
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    data = response.read()
    return time.perf_counter() - began, response.status, data


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        process, port = start(Path(folder))
        try:
            token = (Path(folder) / "data" / "api-token").read_text().strip()
            auth = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
            plan = {"goal": "g", "steps": [{"id": "a", "tool": "facilities_list", "params": {"location": "Berlin"}}]}
            fresh = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            _, _, created = timed_call(fresh, "POST", "/api/reviews", auth, json.dumps({"plan": plan}).encode())
            review = json.loads(created)["id"]
            fresh.close()
            for method, path, body in (("GET", f"/api/reviews/{review}", None),
                                       ("POST", "/api/reviews", json.dumps({"plan": plan}).encode())):
                kept = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                timed_call(kept, method, path, auth, body)  # opens the connection
                report(f"{method} {path.split('/')[2]} kept-alive connection",
                       [timed_call(kept, method, path, auth, body)[0] for _ in range(args.calls)])
                kept.close()
                samples = []
                for _ in range(args.calls):
                    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                    samples.append(timed_call(connection, method, path, auth, body)[0])
                    connection.close()
                report(f"{method} {path.split('/')[2]} fresh connection each call", samples)

            schema = {"type": "object", "properties": {"text": {"type": "string", "pattern": "^(a+)+$"}}}
            for pattern in ("^(a+)+$", "^(?=(a|aa)+$)"):
                schema["properties"]["text"]["pattern"] = pattern
                hostile = {"plan": {"goal": "g", "steps": [{"id": f"s{n}", "tool": "echo", "params": {"text": "a" * 40 + "!"}}
                                                           for n in range(100)]},
                           "tools": [{"name": "echo", "inputSchema": schema}]}
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
                _, _, created = timed_call(connection, "POST", "/api/reviews", auth, json.dumps(hostile).encode())
                review = json.loads(created)["id"]
                health: list[float] = []
                done = threading.Event()

                def probe() -> None:
                    probe_connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
                    while not done.is_set():
                        health.append(timed_call(probe_connection, "GET", "/_stcore/health", {})[0])
                prober = threading.Thread(target=probe)
                prober.start()
                took, status, _ = timed_call(connection, "GET", f"/api/reviews/{review}", auth)
                done.set()
                prober.join()
                print(f"hostile review, 100 steps, pattern {pattern!r}: GET {status} in {1000 * took:.0f} ms")
                report("  health check meanwhile", health)
        finally:
            process.terminate()
            process.wait(timeout=20)


if __name__ == "__main__":
    main()
