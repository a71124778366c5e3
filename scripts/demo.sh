#!/usr/bin/env bash
# Install, then run the main job on the embedded defaults: ingest the bilingual sample vaults
# into the local Qdrant store, search, and ask a Japanese and an English question.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
export HF_HUB_OFFLINE=1
rag() { .venv/bin/rag "$@"; }
rag ingest examples/vaults
rag status
rag search "BM25 の k1 と b の典型的な値" -k 3
rag ask "味噌汁で味噌を入れるタイミングは？"
rag ask "When should I water the monstera?"
