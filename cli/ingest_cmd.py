"""``rag ingest``: run the ingestion graph with a progress bar and print a summary."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from cli.dispatch import OnEvent, Request, ignore
from cli.output import console, err_console, print_json

if TYPE_CHECKING:  # the graph and the components load in `rag serve` when it ingests
    from components.factory import Components


SUMMARY_KEYS = (
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


async def ingest_report(
    c: Components,
    paths: list[str],
    *,
    prune: bool,
    collection: str | None,
    sentence_vectors: bool = True,
    on_progress: Callable[[dict[str, Any]], None],
) -> dict[str, Any]:
    """Run the ingestion graph, handing each progress event to ``on_progress``; its summary.

    In-process ``on_progress`` draws the bars; in `rag serve` it sends the event to the command.
    """
    from graph.ingest import build_ingest_graph
    from graph.ingest_state import IngestContext

    graph = build_ingest_graph(c)
    ctx = IngestContext(collection=collection or "", sentence_vectors=sentence_vectors)
    result: dict[str, Any] = {}
    async for mode, chunk in graph.astream(
        {"paths": paths, "prune": prune}, context=ctx, stream_mode=["custom", "values"]
    ):
        if mode == "values":
            result = chunk
        else:
            on_progress(dict(chunk))
    return {k: result.get(k) for k in SUMMARY_KEYS}


@dataclass(frozen=True)
class IngestRequest(Request):
    """``rag ingest``'s arguments; its progress comes as ``{"event": "progress", "data": ...}`` events."""

    command: ClassVar[str] = "ingest"

    paths: tuple[str, ...]
    prune: bool = False
    collection: str | None = None
    sentence_vectors: bool = True
    #: "hot" or "cold": how a search of several collections breaks near-ties (kept in the collection)
    tier: str | None = None

    def args(self) -> dict[str, Any]:
        # the server's working folder is not ours
        return {**super().args(), "paths": [str(Path(p).expanduser().absolute()) for p in self.paths]}

    async def run(self, c: Components, on_event: OnEvent = ignore) -> dict[str, Any]:
        report = await ingest_report(
            c,
            list(self.paths),
            prune=self.prune,
            collection=self.collection,
            sentence_vectors=self.sentence_vectors,
            on_progress=lambda data: on_event({"event": "progress", "data": data}),
        )
        if self.tier is not None:
            index = c.index(self.collection)
            if index.exists():
                await asyncio.to_thread(index.update_metadata, tier=self.tier)
                report["tier"] = self.tier
        return report

    def here(self, c: Components, on_event: OnEvent = ignore) -> dict[str, Any]:
        return asyncio.run(self.run(c, on_event))


class RateColumn(ProgressColumn):
    """Items per second since the task started ("12.3 docs/s"): the run's throughput so far."""

    def render(self, task: Task) -> Text:
        elapsed = task.elapsed or 0.0
        speed = task.completed / elapsed if elapsed > 0 else 0.0
        unit = task.fields.get("unit", "docs")
        return Text(f"{speed:.1f} {unit}/s" if speed else "", style="progress.data.speed")


WRITING = "embedding + writing"
"""The ingestion's main task, as the progress display names it."""


def progress_label(file: str, other_files: int, width: int) -> str:
    """The main task's description while a batch is on its way: the file it spends its time on,
    shortened so the progress line fits a terminal ``width`` columns wide (the bar, the counts and
    the times take about 50 of them). The other files of the batch are counted where there is room."""
    room = max(12, width - 68)
    more = f" (+{other_files} more file{'s' if other_files > 1 else ''})" if other_files else ""
    if len(more) + 12 > room:
        more = ""
    if not file:
        return WRITING + more
    home = str(Path.home())
    if file.startswith(home + "/"):
        file = "~" + file[len(home) :]
    return f"{WRITING} {shorten(file, room - len(more))}{more}"


def shorten(path: str, room: int) -> str:
    """``path`` in at most ``room`` characters: its file name with as many of its folders as fit,
    the rest elided with ``…``."""
    if len(path) <= room:
        return path
    parts = path.split("/")
    tail = parts[-1]
    if len(tail) + 2 > room:
        return "…" + tail[len(tail) - room + 1 :]
    for part in reversed(parts[:-1]):
        if len(part) + len(tail) + 3 > room:
            break
        tail = f"{part}/{tail}"
    return f"…/{tail}"


class ProgressView:
    """The progress bars of an ingestion, fed its progress events."""

    def __init__(self, *, show: bool) -> None:
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            RateColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=err_console,
            disable=not show,
            transient=False,
        )
        self.task: TaskID | None = None
        self.sentences: TaskID | None = None
        self.started = False

    def width(self) -> int:
        return self.progress.console.width

    def __enter__(self) -> ProgressView:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.started:
            self.progress.stop()

    def feed(self, event: dict[str, Any]) -> None:
        """Show one progress event; the display starts with the first (a forwarded run may have none)."""
        if not self.started:
            self.progress.start()
            self.started = True
        kind = event.get("event")
        if kind == "parsed":
            self.task = self.progress.add_task(WRITING, total=event["pending"])
            if event["unchanged"]:
                self.progress.console.print(f"{event['unchanged']} of {event['documents']} documents unchanged")
        elif kind == "batch" and self.task is not None:
            label = progress_label(str(event.get("file") or ""), int(event.get("other_files") or 0), self.width())
            self.progress.update(self.task, description=escape(label))
        elif kind in ("written", "failed") and self.task is not None:
            self.progress.advance(self.task, event["documents"])
        elif kind == "sentences" and event["total"]:
            if self.sentences is None:
                self.sentences = self.progress.add_task("sentence vectors", total=event["total"], unit="sentences")
            self.progress.update(self.sentences, completed=event["done"])


async def run_ingest(
    c: Components,
    paths: list[str],
    *,
    prune: bool,
    collection: str | None,
    show_progress: bool,
    sentence_vectors: bool = True,
) -> dict[str, Any]:
    with ProgressView(show=show_progress) as view:
        return await ingest_report(
            c, paths, prune=prune, collection=collection, sentence_vectors=sentence_vectors, on_progress=view.feed
        )


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
    seconds = float(report["seconds"] or 0)
    t.add_row("seconds", f"{seconds:.1f}")
    written = (report["new"] or 0) + (report["updated"] or 0)
    if written and seconds > 0:
        t.add_row(
            "throughput",
            f"{written / seconds:.2f} documents/s, {(report['written_chunks'] or 0) / seconds:.1f} chunks/s",
        )
    console.print(t)
    for f in report["failures"] or []:
        console.print(f"[red]failed[/] {f['source']}: {f['reason']}", highlight=False)


def finish(report: dict[str, Any], *, as_json: bool) -> int:
    """Print the summary; the exit code: 0 when something was ingested or nothing needed to be,
    1 when every input failed."""
    summary(report, as_json=as_json)
    ok = (report["documents"] or 0) > 0 or not report["failures"]
    return 0 if ok else 1
