"""Where a benchmark leaves its results: the JSON report, and its plot beside it as PNG."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any


def save_report(report: dict[str, Any], path: Path, plot: Callable[[dict[str, Any], Path], None]) -> Path:
    """Write ``report`` to ``path`` (folders made as needed) and ``plot`` it to the same name in
    ``.png``; returns the plot's path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2), encoding="utf-8")
    png = path.with_suffix(".png")
    plot(report, png)
    return png
