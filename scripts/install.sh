#!/usr/bin/env bash
# Create .venv and install the project (and, with --dev, the test tools, the benchmark baseline,
# the optional chat providers, the evaluation extra and the Postgres drivers, so their tests run) from this repo's files.
# torch comes first and pinned, through pip: the CPU build lies on the machine's disk, where pip
# looks; an unpinned torch would pull a multi-GB CUDA build from PyPI. The rest goes through uv
# (pip-compatible, about 40 s here against pip's 2.5 min), or pip where uv cannot be had.
# Everything is compiled to bytecode here, as pip does and uv does not by default: where
# PYTHONDONTWRITEBYTECODE is set (this machine sets it), nothing is compiled later and every
# process would compile Presidio, spaCy, NeMo, LangChain and the project's own modules from
# source each time it imports them (2-3 s of a one-shot `rag ask`).
set -euo pipefail
cd "$(dirname "$0")/.."
extras=""
[[ "${1:-}" == "--dev" ]] && extras="[dev,bench,openai,eval,postgres]"
if [[ ! -x .venv/bin/python ]]; then
    python3 -m venv .venv
fi
pip() { .venv/bin/python -m pip --disable-pip-version-check "$@"; }
pip install --quiet "torch==2.13.0"
if pip install --quiet uv && .venv/bin/python -m uv pip install --python .venv/bin/python --quiet --compile-bytecode -e ".${extras}"; then
    :
else
    echo "uv could not install the project; installing with pip" >&2
    pip install --quiet -e ".${extras}"
fi
.venv/bin/python -m compileall -q -j 0 components graph nodes guardrails cli evals > /dev/null
