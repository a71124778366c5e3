"""The store's commands: `rag ingest`, `status`, `serve` (the store kept loaded), `drop`, `migrate`, `cache`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from cli.dispatch import components, dispatch
from cli.options import AsJson, Collection, Groups, Yes
from cli.output import console, err_console, fail, print_json

#: the formats `rag ingest` names in its help; kept as text so that `rag --help` does not import
#: the loaders (tests/unit/cli/commands/test_index.py checks it against components.ingestion.loaders.LOADERS)
INGEST_FORMATS = ".md .txt .html .pdf .jsonl"

app = typer.Typer()


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help=f"Files or folders: {INGEST_FORMATS}")],
    collection: Collection = None,
    prune: Annotated[
        bool, typer.Option("--prune", help="Remove indexed documents under PATHS that no longer exist.")
    ] = False,
    as_json: AsJson = False,
    sentence_vectors: Annotated[
        bool,
        typer.Option(
            help="Embed each section's sentences too, so extractive answers (no LLM) need not embed them "
            "per question; about doubles the embedding time. Off: answers embed them when asked."
        ),
    ] = True,
    tier: Annotated[
        str | None,
        typer.Option(
            "--tier",
            help="hot or cold: in a search of several collections, a hot one wins near-ties against a cold one "
            "(an archive). Kept in the collection; default hot.",
        ),
    ] = None,
) -> None:
    """Parse, chunk, embed and write documents; unchanged documents are skipped."""
    from cli.ingest_cmd import IngestRequest, ProgressView, finish
    from components.retrieval.policy import TIERS

    if tier is not None and tier not in TIERS:
        fail(f"--tier must be one of {', '.join(TIERS)}, not {tier!r}", code=2)
    request = IngestRequest(
        tuple(str(p) for p in paths),
        prune=prune,
        collection=collection,
        sentence_vectors=sentence_vectors,
        tier=tier,
    )
    with ProgressView(show=not as_json) as view:
        report = dispatch(request, on_event=lambda event: view.feed(event.get("data") or {}))
    raise typer.Exit(finish(report, as_json=as_json))


@app.command()
def status(
    collection: Collection = None,
    as_json: AsJson = False,
    with_facets: Annotated[
        bool, typer.Option("--facets", help="Also the vaults, tags, languages, formats and collections, with counts.")
    ] = False,
    groups: Groups = [],  # noqa: B006 - typer reads the default; never mutated
) -> None:
    """Show the store, the collection, the embedding model, BM25 and Ollama state."""
    from cli.status_cmd import StatusRequest, show

    show(dispatch(StatusRequest(collection, with_facets, tuple(groups))), as_json=as_json)


@app.command()
def serve(
    idle_minutes: Annotated[
        float, typer.Option("--idle-minutes", min=0, help="Stop after this many minutes without a request (0: never).")
    ] = 0,
) -> None:
    """Keep the models, the store and the graphs loaded: `rag search` (and -i), `ask`, `chat`, `similar`, `show`,
    `status` and `ingest` with the same settings then run in this process and answer at once. Ctrl-C stops it."""
    from cli.serve_cmd import serve as run

    def announce(message: str) -> None:
        err_console.print(message, highlight=False, markup=False, soft_wrap=True)

    run(components(), idle_minutes=idle_minutes, announce=announce)


@app.command()
def drop(
    collection: Annotated[str, typer.Argument(help="Collection to delete.")],
    yes: Yes = False,
) -> None:
    """Delete a collection (for example after changing the embedding model)."""
    c = components()
    if not yes and not typer.confirm(f"Delete collection {collection!r} at {c.settings.store_location}?"):
        raise typer.Exit(1)
    c.index(collection).drop()
    sentences = c.sentences(collection).store
    if sentences.exists():  # derived from the dropped collection
        sentences.drop()
    console.print(f"dropped {collection}")


@app.command()
def migrate() -> None:
    """Copy an embedded store written by an earlier version (qdrant-client local mode) into Qdrant Edge,
    the embedded engine now: vectors and payloads as they are, nothing embedded again."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from components.settings import get_settings
    from components.stores.migrate import migrate as run

    s = get_settings()
    if s.qdrant_url or s.qdrant_engine != "edge":
        fail("rag migrate copies the embedded store into Qdrant Edge: unset QDRANT_URL and QDRANT_ENGINE", code=2)
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=err_console
    ) as bars:
        tasks: dict[str, Any] = {}

        def progress(name: str, done: int, total: int) -> None:
            if name not in tasks:
                tasks[name] = bars.add_task(name, total=total)
            bars.update(tasks[name], completed=done)

        copied = run(s.qdrant_path, progress=progress)
    if not copied:
        console.print(f"nothing to migrate: no local-mode collections at {s.qdrant_path}")
        return
    print_json(
        {
            "store": str(s.qdrant_path.resolve()),
            "collections": [
                {"name": c.collection, "points": c.points, "seconds": round(c.seconds, 1), "already_there": c.skipped}
                for c in copied
            ],
            "left_in_place": "local mode's files (collection/, meta.json): remove them once the new store serves you",
        }
    )


cache_app = typer.Typer(
    no_args_is_help=True, help="The semantic answer cache (DATA_DIR/cache, or DATABASE_URL), shared by processes."
)
app.add_typer(cache_app, name="cache")


@cache_app.command("stats")
def cache_stats() -> None:
    """Entries, scopes, where the cache lives and its size, the time to live, as JSON."""
    print_json(components().cache.describe())


@cache_app.command("clear")
def cache_clear(yes: Yes = False) -> None:
    """Forget every cached answer (re-ingesting already makes old answers unreachable)."""
    cache = components().cache
    where = cache.describe()["path"]
    if not yes and not typer.confirm(f"Forget the cached answers in {where}?"):
        raise typer.Exit(1)
    print_json({"cleared": cache.clear(), "path": where})
