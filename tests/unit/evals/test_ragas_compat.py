"""RAGAS imports here with the eval extra's versions; this test says when the workaround can go.

evals/ragas_compat.py explains the workaround (langchain-community < 0.4.2 for ragas 0.4.3). If
the bound is dropped in pyproject.toml and these tests still pass after a reinstall, upstream has
fixed the import and the bound was no longer needed.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

from evals.ragas_compat import load_ragas


def test_ragas_imports_and_scores_a_sample_with_analytics_off() -> None:
    ragas = load_ragas()
    from ragas.dataset_schema import SingleTurnSample
    from ragas.metrics import IDBasedContextRecall

    assert os.environ["RAGAS_DO_NOT_TRACK"] == "true"
    assert ragas.__version__
    sample = SingleTurnSample(retrieved_context_ids=["a", "b"], reference_context_ids=["b", "c"])
    assert asyncio.run(IDBasedContextRecall().single_turn_ascore(sample)) == 0.5


def test_without_the_module_upstream_removed_the_error_says_what_to_install() -> None:
    code = (
        "import sys; sys.modules['langchain_community.chat_models.vertexai'] = None\n"
        "from evals.ragas_compat import RagasUnavailable, load_ragas\n"
        "try:\n    load_ragas()\nexcept RagasUnavailable as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "langchain-community<0.4.2" in out and "ragas/issues/2745" in out
