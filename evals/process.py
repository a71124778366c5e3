"""Processes a benchmark (or a test) runs beside itself: `rag serve`, and a process's memory."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path


def store_env(qdrant_path: Path, data_dir: Path) -> dict[str, str]:
    """This process's environment for a child working on the embedded store at these paths: no
    Qdrant server, collection or LLM the caller's environment names, no hub download."""
    env = {k: v for k, v in os.environ.items() if k not in {"QDRANT_URL", "COLLECTION", "LLM_MODEL"}}
    env.update(QDRANT_PATH=str(qdrant_path), DATA_DIR=str(data_dir), HF_HUB_OFFLINE="1")
    return env


class ServeProcess:
    """`rag serve` in a subprocess, its stderr read all along (a full pipe would block it)."""

    def __init__(self, env: dict[str, str], *args: str, cwd: Path | None = None) -> None:
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cli", "serve", *args],
            env=env,
            cwd=cwd,
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
        )
        self.lines: list[str] = []
        self.ready = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)
            if "rag serve: ready" in line:
                self.ready.set()

    def wait_ready(self, timeout: float) -> float:
        """Seconds from the start until the server said it was ready; RuntimeError with its output
        when it ended first or took longer than ``timeout``."""
        deadline = time.monotonic() + timeout
        while not self.ready.wait(0.2):
            if self.proc.poll() is not None:
                raise RuntimeError(f"rag serve ended (exit {self.proc.returncode}): {self.output()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"rag serve not ready after {timeout:g} s: {self.output()}")
        return time.perf_counter() - self.started

    def output(self) -> str:
        """What it printed to stderr so far (all of it once it has ended)."""
        if self.proc.poll() is not None:
            self._reader.join(timeout=10)
        return "".join(self.lines)

    def stop(self, timeout: float = 120) -> int:
        """SIGTERM (the server removes its socket) and its exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=timeout)


def rss_mb(pid: int | str = "self") -> float:
    """Resident memory of a process now, MB (Linux ``/proc``; 0 where that is not readable)."""
    import resource

    try:
        pages = int(Path(f"/proc/{pid}/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0.0
    return pages * resource.getpagesize() / 2**20
