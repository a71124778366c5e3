#!/usr/bin/env bash
# Create .venv and install the project (and, with --dev, the test tools, the benchmark baseline,
# the optional chat providers, the evaluation extra and the Postgres drivers, so their tests run) from this repo's files.
# torch comes first and pinned: the CPU build lies on the machine's disk; an unpinned torch
# would pull a multi-GB CUDA build from PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
extras=""
[[ "${1:-}" == "--dev" ]] && extras="[dev,bench,openai,eval,postgres]"
if [[ ! -x .venv/bin/python ]]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet "torch==2.13.0"
.venv/bin/python -m pip install --quiet -e ".${extras}"
