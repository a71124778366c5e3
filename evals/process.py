"""Processes a benchmark (or a test) runs beside itself: `rag serve`, `langgraph dev`, and a
process's memory."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
#: the `langgraph` command of the environment this runs in
LANGGRAPH_CLI = Path(sys.executable).parent / "langgraph"


def store_env(qdrant_path: Path, data_dir: Path) -> dict[str, str]:
    """This process's environment for a child working on the embedded store at these paths: no
    Qdrant server, collection or LLM the caller's environment names, no hub download."""
    env = {k: v for k, v in os.environ.items() if k not in {"QDRANT_URL", "COLLECTION", "LLM_MODEL"}}
    env.update(QDRANT_PATH=str(qdrant_path), DATA_DIR=str(data_dir), HF_HUB_OFFLINE="1")
    return env


def run_rag(
    args: list[str], env: dict[str, str], *, code: Path | None = None, timeout: float = 600
) -> tuple[str, float]:
    """``rag ARGS`` in a fresh process as a user runs it, by ``code`` (another revision's tree, from
    :func:`code_at`) or by this one: its standard output and wall seconds. A failure raises with the
    end of its standard error."""
    if code is not None:
        env = {**env, "PYTHONPATH": str(code)}
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "cli", *args], env=env, cwd=code, capture_output=True, text=True, timeout=timeout
    )
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        by = f" by {code}" if code is not None else ""
        raise RuntimeError(f"rag {' '.join(args)}{by} failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")
    return proc.stdout, seconds


def interpreter_and_cpus() -> dict[str, Any]:
    """What a side-by-side report records of the machine it ran on."""
    return {"python": sys.version.split()[0], "cpus": os.cpu_count()}


def code_at(rev: str, into: Path) -> Path:
    """The project's files at git revision ``rev`` unpacked in ``into`` (a snapshot: no worktree to
    clean up), to run its commands beside this tree's with ``cwd`` and ``PYTHONPATH`` set to it."""
    root = Path(__file__).resolve().parent.parent
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(root), "archive", rev], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


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


def langgraph_config(folder: Path, *, auth: bool = True) -> Path:
    """The repo's langgraph.json with absolute paths, written to ``folder``; ``auth=False`` leaves
    out the custom auth (the baseline of ``evals.auth_bench``).

    The server runs from ``folder`` so that its own persistence (``.langgraph_api/``) lands there,
    not among the developer's Studio threads; it resolves graph paths against its working
    directory, hence the absolute paths.
    """
    config = json.loads((REPO / "langgraph.json").read_text(encoding="utf-8"))
    config["dependencies"] = [str((REPO / d).resolve()) for d in config.get("dependencies") or []]
    config["graphs"] = {name: str(REPO / spec.removeprefix("./")) for name, spec in config["graphs"].items()}
    if "http" in config:
        config["http"]["app"] = str(REPO / config["http"]["app"].removeprefix("./"))
        if not auth:
            config["http"].pop("enable_custom_route_auth", None)
    if "auth" in config:
        if auth:
            config["auth"]["path"] = str(REPO / config["auth"]["path"].removeprefix("./"))
        else:
            del config["auth"]
    path = folder / "langgraph.json"
    path.write_text(json.dumps(config, indent=2), encoding="utf-8")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LangGraphDev:
    """`langgraph dev` on a free port in its own process group, run from ``root`` (its log there)."""

    def __init__(self, root: Path, env: dict[str, str], *, auth: bool = True) -> None:
        self.root = root
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        self.log = root / "server.log"
        cmd = [str(LANGGRAPH_CLI), "dev", "--no-browser", "--no-reload", "--port", str(port)]
        cmd += ["--config", str(langgraph_config(root, auth=auth))]
        self.started = time.perf_counter()
        with self.log.open("w", encoding="utf-8") as out:
            self.proc = subprocess.Popen(
                cmd, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )

    def wait_ready(self, timeout: float) -> float:
        """Seconds until ``/ok`` answered; RuntimeError with the log's end when it exited or took too long."""
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"langgraph dev exited with {self.proc.returncode}:\n{self.tail()}")
            try:
                if httpx.get(f"{self.url}/ok", timeout=2).status_code == 200:
                    return time.perf_counter() - self.started
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"langgraph dev not ready after {timeout:g} s:\n{self.tail()}")
            time.sleep(0.5)

    def tail(self, n: int = 4000) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")[-n:] if self.log.exists() else ""

    def stop(self) -> None:
        """SIGTERM to the server's process group (its workers too), SIGKILL if it lingers."""
        if self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=15)


def rss_mb(pid: int | str = "self") -> float:
    """Resident memory of a process now, MB (Linux ``/proc``; 0 where that is not readable)."""
    import resource

    try:
        pages = int(Path(f"/proc/{pid}/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0.0
    return pages * resource.getpagesize() / 2**20
