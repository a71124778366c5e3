"""``rag status``: where the index lives, what is in it, and whether the services answer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from rich.table import Table

from cli.dispatch import OnEvent, Request, ignore
from cli.output import console, print_json
from components.resilience.errors import CollectionNotFound, CollectionOutdated, LLMUnavailable

if TYPE_CHECKING:  # `rag status` forwarded to `rag serve` only renders here
    from components.factory import Components
    from components.settings import Settings


def ollama_state(url: str, timeout: float = 2.0) -> dict[str, Any]:
    """Whether Ollama answers at ``url``: one GET with the standard library (httpx's import is a
    tenth of `rag status`'s second)."""
    import json
    import urllib.request

    try:
        with urllib.request.urlopen(url.rstrip("/") + "/api/version", timeout=timeout) as r:  # the configured URL
            return {"url": url, "reachable": True, "version": json.loads(r.read()).get("version")}
    except Exception as e:  # any failure means "not reachable" here; say which
        return {"url": url, "reachable": False, "error": f"{type(e).__name__}: {getattr(e, 'reason', e)}"}


def _served_at(s: Settings, model: str) -> str:
    """``model at <server>``, naming the provider's server as the settings point at it."""
    from components.models import providers

    try:
        p, name = providers.resolve(model, s.llm_provider)
    except LLMUnavailable as e:  # an unknown LLM_PROVIDER: status says so instead of failing
        return f"{model} ({e})"
    return f"{name} at {p.url(s)}" if p.name == "ollama" else f"{name} via {p.name} at {p.url(s)}"


def gather(c: Components, collection: str | None) -> dict[str, Any]:
    from components.models.calibration import is_calibrated

    s = c.settings
    index = c.index(collection)
    report: dict[str, Any] = {
        "backend": "qdrant-server" if s.qdrant_url else f"qdrant-{s.qdrant_engine}",
        "location": index.location,
        "collection": index.collection,
        "configured_embedding": {"backend": s.embedding_backend, "model": s.embedding_model or None},
    }
    try:
        meta = index.metadata()
    except CollectionNotFound as e:
        report.update({"exists": False, "message": str(e)})
    else:
        # documents are counted in the store's payload index; a collection an earlier version made
        # without BM25's term weights is counted by one scroll over every chunk, and named
        try:
            documents = c.corpus(collection, version=int(meta.get("version", 0))).documents()
            bm25: dict[str, Any] = {"in_store": True, "current": True}
        except CollectionOutdated as e:
            documents = len(index.doc_states())
            bm25 = {"in_store": False, "current": False, "message": str(e)}
        report.update(
            {
                "exists": True,
                "points": index.count(),
                "documents": documents,
                "embedding_model": meta.get("embedding_model"),
                "embedding_calibrated": is_calibrated(str(meta.get("embedding_model"))),
                "dim": meta.get("dim"),
                "version": meta.get("version"),
                "last_ingestion": meta.get("last_ingestion"),
            }
        )
        report["bm25"] = {**bm25, "chunks": report["points"]}
        report["sentence_vectors"] = c.sentences(collection).state(int(meta.get("version", 0)))
    report["ollama"] = ollama_state(s.ollama_base_url)
    if s.ollama_embeddings_base_url:
        report["ollama_embeddings"] = ollama_state(s.ollama_embeddings_base_url)
    roles = {r: getattr(s, f"llm_model_{r}") or s.llm_model for r in ("router", "rewriter", "grader", "generator")}
    report["llm"] = {
        "configured": any(roles.values()),
        "provider": s.llm_provider,
        "models": roles,
        "note": (
            ", ".join(sorted({_served_at(s, m) for m in roles.values() if m}))
            if any(roles.values())
            else "no LLM configured (LLM_MODEL): Q&A answers extractively, with citations"
        ),
    }
    report["web_search"] = {
        "provider": s.web_search_provider or None,
        "note": f"{s.web_search_provider} (runs with web_search=true)" if s.web_search_provider else "off",
    }
    if s.reranker_model:
        report["reranker"] = {
            "configured": True,
            "model": s.reranker_model,
            "note": f"cross-encoder {s.reranker_model} (loaded on first search)",
        }
    else:
        report["reranker"] = {
            "configured": False,
            "note": "no cross-encoder configured (RERANKER_MODEL); search skips reranking",
        }
    return report


#: facet name → the payload field it counts (``metadata.*``: a document's own metadata)
FACETS = {
    "vaults": "vault",
    "tags": "tags",
    "languages": "language",
    "formats": "format",
    "collections": "metadata.collections",
    "item_types": "metadata.item_type",
    "chunk_types": "chunk_type",
}


def facets(c: Components, collection: str | None, groups: Sequence[str] = ()) -> dict[str, dict[str, int]]:
    """Documents per value of each facet, counted over the documents public or shared with
    ``groups`` (a filter's values to choose from; a tag only restricted notes carry is not one)."""
    from components.retrieval.filters import access_scope

    corpus = c.corpus(collection)
    scope = access_scope(corpus, groups)
    counted = {name: corpus.documents_per_value(key, scope) for name, key in FACETS.items()}
    return {name: values for name, values in counted.items() if values}


@dataclass(frozen=True)
class StatusRequest(Request):
    """``rag status``'s question: a collection, and with ``facets`` its values as ``groups`` see them."""

    command: ClassVar[str] = "status"

    collection: str | None = None
    facets: bool = False
    groups: tuple[str, ...] = ()

    def here(self, c: Components, on_event: OnEvent = ignore) -> dict[str, Any]:
        report = gather(c, self.collection)
        if self.facets and report.get("exists"):
            report["facets"] = facets(c, self.collection, self.groups)
        return report


def show(report: dict[str, Any], *, as_json: bool) -> None:
    if as_json:
        print_json(report)
        return
    t = Table(title="rag status", show_header=False)
    t.add_row("store", f"{report['backend']} at {report['location']}")
    t.add_row("collection", report["collection"] + ("" if report.get("exists") else " (missing)"))
    if report.get("exists"):
        t.add_row("points / documents", f"{report['points']} / {report['documents']}")
        calibrated = "" if report["embedding_calibrated"] else "; uncalibrated: non-LLM thresholds are e5's"
        t.add_row("embedding model", f"{report['embedding_model']} ({report['dim']} dims{calibrated})")
        t.add_row("version / last ingestion", f"{report['version']} / {report['last_ingestion']}")
        bm = report["bm25"]
        if bm.get("in_store"):
            t.add_row("BM25 index", f"in the store, beside the vectors ({bm['chunks']} chunks)")
        else:
            t.add_row("BM25 index", bm["message"])
        sv = report["sentence_vectors"]
        t.add_row(
            "sentence vectors",
            f"{sv['sentences']}"
            + (
                ""
                if sv["current"]
                else (
                    " (behind the collection: the next `rag ingest` adds the rest)"
                    if sv["exists"]
                    else " (none: `rag ingest` adds them)"
                )
            ),
        )
    else:
        t.add_row("", report.get("message", ""))
    o = report["ollama"]
    t.add_row("ollama", f"{o['url']}: " + (f"answers (v{o.get('version')})" if o["reachable"] else "not reachable"))
    t.add_row("chat models", report["llm"]["note"])
    t.add_row("web search", report["web_search"]["note"])
    t.add_row("reranker", report["reranker"]["note"])
    server = report.get("server")
    t.add_row(
        "rag serve",
        f"answered this (pid {server['pid']}, since {server['since']}, {server['requests']} requests)"
        if server
        else "not running (`rag serve` keeps the models loaded: commands then answer at once)",
    )
    for name, counts in (report.get("facets") or {}).items():
        t.add_row(name.replace("_", " "), ", ".join(f"{v} ({n})" for v, n in counts.items()))
    console.print(t)
