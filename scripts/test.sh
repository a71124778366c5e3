#!/usr/bin/env bash
# Install with the test tools, then run the linters, the import-layer contracts, the quality gate
# (evals/gate.py: search and Q&A on the check splits against evals/floors.json) and the whole
# test suite offline. Prints when each phase starts, and the wall time and peak memory of the gate
# with mypy and of the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS=0
phase() { echo "== $1 at $((SECONDS / 60)) min $((SECONDS % 60)) s"; }
bash scripts/install.sh --dev
phase "installed; linters"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/lint-imports --no-cache
phase "linted; quality gate beside mypy"
# mypy is single-threaded: it runs beside the quality gate; both under the memory sampler, as the
# tests are below, so the run's peak is known for each part
mkdir -p .rag
.venv/bin/python scripts/peak_memory.py --label "gate and mypy" --json .rag/checks-peak.json -- bash -c '
    .venv/bin/mypy > .rag/mypy.log 2>&1 & mypy=$!
    gate=0; .venv/bin/python -m evals.gate || gate=$?
    typed=0; wait "$mypy" || typed=$?
    cat .rag/mypy.log
    if (( gate != 0 || typed != 0 )); then echo "quality gate exit $gate, mypy exit $typed" >&2; exit 1; fi'
phase "gate passed; tests"
# the 25 slowest tests are listed at the end: where the run's minutes go when the budget tightens
.venv/bin/python scripts/peak_memory.py --label pytest --json .rag/pytest-peak.json -- .venv/bin/python -m pytest -q --durations=25 "$@"
