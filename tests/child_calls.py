"""Calls run in a fresh Python process, each awaited with a liveness bound: for checks that, when
broken, hold the GIL for hours (a thread could not even be timed out).

The child is a new interpreter (``python -c``), not a fork: a fork of a test worker copies the
locks its threads (Playwright's, DBOS's) hold and may wait on one forever, and multiprocessing's
fork server and pools hang silently when their child cannot start (a pool starts another worker
for ever). Here a child that ends, or answers nothing in time, fails the call with what it wrote
on stderr; on a timeout its threads' stacks are written there first (faulthandler)."""

from __future__ import annotations

import os
import pickle
import selectors
import signal
import struct
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable

_HEADER = struct.Struct("!Q")

# Reads (function, args) pickles from stdin and answers (ok, value) pickles on stdout; anything
# the code under test prints goes to stderr, not into the answers.
_SERVE = """
import faulthandler, pickle, struct, sys
sys.path[:0] = {paths!r}
faulthandler.enable()
header, source, sink = struct.Struct("!Q"), sys.stdin.buffer, sys.stdout.buffer
sys.stdout = sys.stderr
while (size := source.read(header.size)):
    work, args = pickle.loads(source.read(header.unpack(size)[0]))
    try:
        answer = (True, work(*args))
    except Exception as exc:
        answer = (False, exc)
    data = pickle.dumps(answer)
    sink.write(header.pack(len(data)) + data)
    sink.flush()
"""


class ChildProcess:
    """One fresh Python process with the test's ``sys.path``; ``call`` runs a module-level
    function of a test module (or of the project) in it."""

    def __init__(self) -> None:
        self._stderr = tempfile.TemporaryFile()
        self._process = subprocess.Popen(
            [sys.executable, "-c", _SERVE.format(paths=[p for p in sys.path if p])],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr)

    def call(self, work: Callable[..., Any], *args: Any, timeout: float) -> Any:
        """``work(*args)``'s value; an exception it raised is raised here. Fails the test when
        the child has not answered within ``timeout`` seconds or has ended."""
        assert self._process.stdin is not None and self._process.stdout is not None
        data = pickle.dumps((work, args))
        self._process.stdin.write(_HEADER.pack(len(data)) + data)
        self._process.stdin.flush()
        deadline = time.monotonic() + timeout
        size = _HEADER.unpack(self._read(_HEADER.size, deadline, timeout))[0]
        ok, value = pickle.loads(self._read(size, deadline, timeout))
        if not ok:
            raise value
        return value

    def _read(self, size: int, deadline: float, timeout: float) -> bytes:
        assert self._process.stdout is not None
        fd, chunks, wanted = self._process.stdout.fileno(), [], size
        # A selector, not select(): a worker deep in the suite may hold descriptors past 1024.
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while wanted:
                if not selector.select(max(0.0, deadline - time.monotonic())):
                    self._process.send_signal(signal.SIGABRT)  # faulthandler writes every thread's stack
                    self._process.wait()
                    raise AssertionError(f"no answer after {timeout} s; the child's stderr:\n{self._said()}")
                chunk = os.read(fd, wanted)
                if not chunk:
                    self._process.wait()
                    raise AssertionError(f"the child ended ({self._process.returncode}); its stderr:\n{self._said()}")
                chunks.append(chunk)
                wanted -= len(chunk)
        return b"".join(chunks)

    def _said(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read()[-8000:].decode(errors="replace")

    def __enter__(self) -> "ChildProcess":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def alive(self) -> bool:
        return self._process.poll() is None

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()  # the child's loop ends at end of input
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()
        self._stderr.close()
