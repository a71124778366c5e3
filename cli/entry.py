"""The ``rag`` process: the collector tuned for a short-lived command around ``cli.main.run``.

A one-shot command imports some 3,000 modules (LangGraph, LangChain, pydantic, numpy) and exits
after a second or two. CPython's cyclic collector runs every 700 net allocations, so it walks
the growing heap dozens of times during those imports, and again over every object at exit:
on the SciFact store a `rag search` spent about 0.25 s of its 1.45 s in it. Here collections
start after 50,000 allocations (long commands such as `rag ingest` and `rag serve` still
collect, less often), and at exit everything alive is frozen (``gc.freeze``), so the
interpreter's last collections skip it; exit handlers and thread joins run as usual.

Only the console script and ``python -m cli`` come through here; tests call ``cli.main.run`` in
their own process, whose collector stays as it is.
"""

from __future__ import annotations

import gc

#: allocations between two young-generation collections (CPython's default is 700)
YOUNG_THRESHOLD = 50_000


def main() -> None:
    """Run one ``rag`` command with the collector set for a short-lived process."""
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, older, oldest)
    from cli.main import run

    try:
        run()
    finally:
        gc.freeze()
