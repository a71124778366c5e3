"""Loading RAGAS: the one place that knows how this project gets ragas to import, and keeps it quiet.

ragas 0.4.3 (the latest release) imports ``langchain_community.chat_models.vertexai`` at module
level (``ragas/llms/base.py``, only to list the models that support several completions), and
langchain-community 0.4.2 removed that module, so ``import ragas`` fails with
``ModuleNotFoundError`` (upstream: https://github.com/explodinggradients/ragas/issues/2745 and
https://github.com/explodinggradients/ragas/issues/2995).

The workaround is a version bound, not code: the ``eval`` extra in ``pyproject.toml`` asks for
``langchain-community<0.4.2`` (0.4.1 still has the module; nothing else changes). Once a ragas
release imports with current langchain-community, drop that bound and run
``tests/unit/evals/test_ragas_compat.py``: it imports ragas and scores a sample, so it says
whether the bound can go.

ragas also sends usage analytics unless ``RAGAS_DO_NOT_TRACK`` is true; evaluation runs here are
often on air-gapped machines and on private data, so :func:`load_ragas` turns it off unless the
user set the variable themselves.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

UPSTREAM_ISSUE = "https://github.com/explodinggradients/ragas/issues/2745"


class RagasUnavailable(RuntimeError):
    """ragas is not installed, or does not import; the message says what to do."""


def load_ragas() -> ModuleType:
    """``import ragas`` with analytics off, or :class:`RagasUnavailable` saying how to fix the setup."""
    os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
    try:
        return importlib.import_module("ragas")
    except ModuleNotFoundError as e:
        if e.name == "ragas":
            raise RagasUnavailable(
                "RAGAS is not installed: it is an optional extra. Run: pip install -e '.[eval]'"
            ) from None
        if e.name and "vertexai" in e.name:
            raise RagasUnavailable(
                f"ragas does not import with this langchain-community ({e.name} is missing; {UPSTREAM_ISSUE}). "
                "Install the versions the eval extra asks for: pip install -e '.[eval]' "
                "(langchain-community<0.4.2)."
            ) from None
        raise RagasUnavailable(f"ragas does not import: {e}. Reinstall the extra: pip install -e '.[eval]'") from e
