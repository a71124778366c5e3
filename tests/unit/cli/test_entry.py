"""The `rag` process's entry point: the command's outcome unchanged, the collector set for a short run."""

from __future__ import annotations

import gc
import subprocess
import sys

import pytest

from cli import entry, main


def test_the_command_exit_code_passes_through_and_the_heap_is_frozen_at_exit(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, object] = {}

    def command() -> None:
        seen["threshold"] = gc.get_threshold()[0]
        raise SystemExit(3)  # what typer raises when a command ends

    frozen: list[bool] = []
    monkeypatch.setattr(main, "run", command)
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(True))
    before = gc.get_threshold()
    try:
        with pytest.raises(SystemExit) as out:
            entry.main()
    finally:
        gc.set_threshold(*before)
    assert out.value.code == 3
    assert seen["threshold"] == entry.YOUNG_THRESHOLD  # the command ran with fewer collections
    assert frozen == [True]  # the interpreter's last collections skip what the command left


def test_python_m_cli_and_the_console_script_go_through_it() -> None:
    # a usage error keeps its exit code and message through the entry point
    out = subprocess.run([sys.executable, "-m", "cli", "no-such-command"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "No such command" in out.stderr
    from importlib.metadata import entry_points

    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "rag"]
    assert script.value == "cli.entry:main"
