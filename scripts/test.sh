#!/usr/bin/env bash
# Install with the test tools, then run the linters, the import-layer contracts, the quality gate
# (evals/gate.py: search and Q&A on the check splits against evals/floors.json) and the whole
# test suite offline. Prints the test run's wall time and peak memory at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh --dev
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
.venv/bin/ruff check .
.venv/bin/lint-imports --no-cache
# mypy is single-threaded: it runs beside the quality gate
mkdir -p .rag
.venv/bin/mypy > .rag/mypy.log 2>&1 &
mypy=$!
gate=0
.venv/bin/python -m evals.gate || gate=$?
typed=0
wait "$mypy" || typed=$?
cat .rag/mypy.log
if (( gate != 0 || typed != 0 )); then
    echo "quality gate exit $gate, mypy exit $typed" >&2
    exit 1
fi
.venv/bin/python scripts/peak_memory.py --label pytest --json .rag/pytest-peak.json -- .venv/bin/python -m pytest -q "$@"
