"""Entry point of the ``rag`` command."""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
from pathlib import Path
from typing import Annotated, Any

import typer

from cli.output import console, fail, print_json
from components.errors import RAGError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Agentic RAG over your notes, papers and web pages (Japanese and English).",
)
log = logging.getLogger("rag")


def _components() -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # models come from installed packages only
    from components.factory import Components

    c = Components()
    atexit.register(c.close)
    return c


@app.callback()
def main(
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log progress details to stderr.")] = False,
) -> None:
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders: .md .txt .html .pdf .jsonl")],
    collection: Annotated[str | None, typer.Option(help="Collection to write (default: COLLECTION).")] = None,
    prune: Annotated[
        bool, typer.Option("--prune", help="Remove indexed documents under PATHS that no longer exist.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Parse, chunk, embed and write documents; unchanged documents are skipped."""
    from cli.ingest_cmd import ingest as run

    try:
        code = run(_components(), [str(p) for p in paths], prune=prune, collection=collection, as_json=as_json)
    except RAGError as e:
        fail(str(e), as_json=as_json)
    raise typer.Exit(code)


@app.command()
def status(
    collection: Annotated[str | None, typer.Option(help="Collection to describe.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """Show the store, the collection, the embedding model, BM25 and Ollama state."""
    from cli.status_cmd import gather, show

    try:
        show(gather(_components(), collection), as_json=as_json)
    except RAGError as e:
        fail(str(e), as_json=as_json)


def _run_graph(payload: dict[str, Any], collection: str | None) -> dict[str, Any]:
    from graph.context import Context
    from graph.rag import build_rag_graph

    graph = build_rag_graph(_components())
    out: dict[str, Any] = asyncio.run(graph.ainvoke(payload, context=Context(collection=collection or "")))
    return out


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    k: Annotated[int, typer.Option("-k", "--top-k", min=1, max=1000, help="Results to return.")] = 5,
    collection: Annotated[str | None, typer.Option(help="Collection to search.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """Hybrid search (dense + BM25 fused with RRF): ranked chunks with sources."""
    if not query.strip():
        fail("the query is empty: give some words to search for", as_json=as_json, code=2)
    try:
        out = _run_graph({"question": query, "mode": "search", "top_k": k}, collection)
    except RAGError as e:
        fail(str(e), as_json=as_json)
    results = out.get("results") or []
    if as_json:
        print_json(
            {
                "query": query,
                "results": results,
                "total": len(results),
                "timings_ms": out.get("timings_ms"),
                "warnings": out.get("warnings") or [],
            }
        )
        return
    if not results:
        console.print("No results.")
    for r in results:
        console.print(f"[bold]Result [{r['rank']}][/]: Score {r['score']:.3f}", highlight=False)
        console.print(f"  Content: {' '.join(r['text'].split())[:300]}", highlight=False)
        console.print(f"  Source: {r['source']}", highlight=False)
        console.print(
            f"  Title: {r['title']}  Section: {' > '.join(r['section_hierarchy']) or '-'}  "
            f"Chunk {r['chunk'] or 'unknown'}",
            highlight=False,
        )


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="Your question, in Japanese or English.")],
    k: Annotated[int, typer.Option("-k", "--top-k", min=1, max=50, help="Passages to read.")] = 5,
    collection: Annotated[str | None, typer.Option(help="Collection to ask.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """Answer a question from the index, with numbered citations."""
    if not question.strip():
        fail("the question is empty", as_json=as_json, code=2)
    try:
        out = _run_graph({"question": question, "mode": "qa", "top_k": k}, collection)
    except RAGError as e:
        fail(str(e), as_json=as_json)
    if as_json:
        print_json(
            {k_: out.get(k_) for k_ in ("answer", "sources", "confidence", "route", "path", "warnings", "cache_hit")}
        )
        return
    console.print(f"[bold]Q:[/] {question}", highlight=False)
    console.print(f"[bold]A:[/] {out.get('answer')}", highlight=False)
    for s in out.get("sources") or []:
        console.print(f"  [{s['n']}] {s['title']} — {s['section'] or '-'} ({s['source']})", highlight=False)
    console.print(
        f"  confidence {out.get('confidence', 0):.2f} · route {out.get('route')} · path {out.get('path')}",
        highlight=False,
    )


@app.command()
def drop(
    collection: Annotated[str, typer.Argument(help="Collection to delete.")],
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask for confirmation.")] = False,
) -> None:
    """Delete a collection (for example after changing the embedding model)."""
    c = _components()
    if not yes and not typer.confirm(f"Delete collection {collection!r} at {c.settings.store_location}?"):
        raise typer.Exit(1)
    try:
        c.index(collection).drop()
    except RAGError as e:
        fail(str(e))
    console.print(f"dropped {collection}")
