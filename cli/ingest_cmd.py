"""``rag ingest``: run the ingestion graph with a progress bar and print a summary."""

from __future__ import annotations

import asyncio
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from cli.output import console, err_console, print_json
from components.factory import Components
from graph.ingest import build_ingest_graph
from graph.ingest_state import IngestContext


async def run_ingest(
    c: Components,
    paths: list[str],
    *,
    prune: bool,
    collection: str | None,
    show_progress: bool,
    sentence_vectors: bool = True,
) -> dict[str, Any]:
    graph = build_ingest_graph(c)
    ctx = IngestContext(collection=collection or "", sentence_vectors=sentence_vectors)
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("docs"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err_console,
        disable=not show_progress,
        transient=False,
    )
    task = None
    sentences = None
    result: dict[str, Any] = {}
    with progress:
        async for mode, chunk in graph.astream(
            {"paths": paths, "prune": prune}, context=ctx, stream_mode=["custom", "values"]
        ):
            if mode == "values":
                result = chunk
                continue
            ev = chunk.get("event")
            if ev == "parsed":
                task = progress.add_task("embedding + writing", total=chunk["pending"])
                if chunk["unchanged"]:
                    progress.console.print(f"{chunk['unchanged']} of {chunk['documents']} documents unchanged")
            elif ev == "written" and task is not None:
                progress.advance(task, chunk["documents"])
            elif ev == "sentences" and chunk["total"]:
                if sentences is None:
                    sentences = progress.add_task("sentence vectors", total=chunk["total"])
                progress.update(sentences, completed=chunk["done"])
    keys = (
        "collection",
        "documents",
        "new",
        "updated",
        "unchanged",
        "written_documents",
        "written_chunks",
        "pruned",
        "retyped",
        "ignored",
        "failures",
        "version",
        "sentences",
        "sentences_embedded",
        "seconds",
    )
    return {k: result.get(k) for k in keys}


def summary(report: dict[str, Any], *, as_json: bool) -> None:
    if as_json:
        print_json(report)
        return
    t = Table(title=f"Ingestion into '{report['collection']}'", show_header=False)
    t.add_row("documents seen", str(report["documents"]))
    t.add_row("new / updated", f"{report['new']} / {report['updated']}")
    t.add_row("unchanged (skipped)", str(report["unchanged"]))
    t.add_row("chunks written", str(report["written_chunks"]))
    if report.get("sentences") is not None:
        t.add_row("sentence vectors (new)", f"{report['sentences']} ({report['sentences_embedded']})")
    t.add_row("pruned", str(report["pruned"] or 0))
    if report.get("retyped"):
        t.add_row("chunks given their type (older version)", str(report["retyped"]))
    t.add_row("ignored (unsupported files in folders)", str(report["ignored"] or 0))
    t.add_row("failed", str(len(report["failures"] or [])))
    t.add_row("seconds", f"{report['seconds']:.1f}")
    console.print(t)
    for f in report["failures"] or []:
        console.print(f"[red]failed[/] {f['source']}: {f['reason']}", highlight=False)


def ingest(
    c: Components,
    paths: list[str],
    *,
    prune: bool,
    collection: str | None,
    as_json: bool,
    sentence_vectors: bool = True,
) -> int:
    report = asyncio.run(
        run_ingest(
            c, paths, prune=prune, collection=collection, show_progress=not as_json, sentence_vectors=sentence_vectors
        )
    )
    summary(report, as_json=as_json)
    # exit 0 when something was ingested or nothing needed to be; 1 when every input failed
    ok = (report["documents"] or 0) > 0 or not report["failures"]
    return 0 if ok else 1
