#!/usr/bin/env bash
# Install with the test tools, then run the linters, the import-layer contracts and the whole test suite offline.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh --dev
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/lint-imports --no-cache
.venv/bin/python -m pytest -q "$@"
