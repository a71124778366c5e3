"""Printing helpers: JSON to stdout for machines, rich tables and panels for people."""

from __future__ import annotations

import json
import sys
from typing import Any, NoReturn

from rich.console import Console

console = Console()
err_console = Console(stderr=True)

#: whether the running command's errors print as JSON: its output is JSON (``--json``, ``-f json``),
#: so a script reading that output reads its errors there too. The command sets it as its options
#: are read (``errors_as_json``), and ``cli.main.run`` reports every error that reaches it this way.
_errors_as_json = False


def errors_as_json(value: bool) -> bool:
    """Make the running command's errors JSON when ``value``; returns ``value`` (a typer option callback)."""
    global _errors_as_json
    _errors_as_json = value
    return value


def json_errors() -> bool:
    """Whether the running command asked for its errors as JSON."""
    return _errors_as_json


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")
    sys.stdout.flush()


def emit(text: str) -> None:
    """Pre-formatted output as is: no re-wrapping, so pipes and files get whole lines."""
    sys.stdout.write(text)
    sys.stdout.flush()


def fail(message: str, *, as_json: bool = False, code: int = 1) -> NoReturn:
    """Report an error the way the caller asked for, then exit non-zero (no stack trace)."""
    if as_json:
        print_json({"error": message})
    else:
        # soft wrap: the terminal wraps; a hard break would split paths and commands users copy
        err_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise SystemExit(code)
