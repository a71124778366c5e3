#!/usr/bin/env bash
# Create .venv and install the project (and, with --dev, the test tools, the benchmark baseline,
# the optional chat providers, the evaluation extra and the Postgres drivers, so their tests run) from this repo's files.
# torch comes first, pinned to its CPU build: that wheel lies on the machine's disk, in the folder
# pip is configured to look in (find-links); an unpinned torch would pull a multi-GB CUDA build
# from PyPI. uv installs and compiles it from that folder in ~16 s where pip takes 40-65 s
# (pip unpacks and compiles it file by file); the `+cpu` pin keeps uv from choosing any other build, and pip takes
# over where uv or the folder cannot be had. The rest goes through uv too (pip-compatible, about
# 40 s here against pip's 2.5 min), or pip where uv cannot be had.
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
uv_install() { .venv/bin/python -m uv pip install --python .venv/bin/python --quiet "$@"; }
have_uv=false
pip install --quiet uv && have_uv=true
links=()
for folder in ${PIP_FIND_LINKS:-$(pip config get global.find-links 2>/dev/null || true)}; do
    links+=(--find-links "$folder")
done
if ! { $have_uv && ((${#links[@]})) && uv_install --compile-bytecode "${links[@]}" "torch==2.13.0+cpu"; }; then
    pip install --quiet "torch==2.13.0"
fi
if $have_uv && uv_install --compile-bytecode -e ".${extras}"; then
    :
else
    echo "uv could not install the project; installing with pip" >&2
    pip install --quiet -e ".${extras}"
fi
.venv/bin/python -m compileall -q -j 0 components graph nodes guardrails cli evals > /dev/null
