#!/usr/bin/env bash
# Install with the test tools, then run the linters, the import-layer contracts, the quality gate
# (evals/gate.py: search and Q&A on the check splits against evals/floors.json) and the whole
# test suite offline. Prints when each phase starts, and the wall time and peak memory of the gate
# and of the tests with mypy beside them.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS=0
phase() { echo "== $1 at $((SECONDS / 60)) min $((SECONDS % 60)) s"; }
bash scripts/install.sh --dev
phase "installed; linters"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
.venv/bin/ruff check .
.venv/bin/lint-imports --no-cache
phase "linted; quality gate"
# the gate uses both cores (torch's ingestion, the C engine's queries); mypy (one core, 51 s,
# 1.5 GB) runs beside the tests instead, which use about one core; both are under the memory
# sampler, so the run's peak is known for each part and includes mypy
mkdir -p .rag
.venv/bin/python scripts/peak_memory.py --label "quality gate" --json .rag/checks-peak.json -- .venv/bin/python -m evals.gate
phase "gate passed; tests beside mypy"
.venv/bin/python scripts/peak_memory.py --label "pytest and mypy" --json .rag/pytest-peak.json -- bash -c '
    .venv/bin/mypy > .rag/mypy.log 2>&1 & mypy=$!
    tests=0; .venv/bin/python -m pytest -q "$@" || tests=$?
    typed=0; wait "$mypy" || typed=$?
    cat .rag/mypy.log
    if (( tests != 0 || typed != 0 )); then echo "pytest exit $tests, mypy exit $typed" >&2; exit $(( tests != 0 ? tests : 1 )); fi' pytest-and-mypy "$@"
