"""Entry point of the ``rag`` command."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from cli.output import console, emit, err_console, fail, print_json
from components.resilience.errors import RAGError

#: the formats `rag ingest` names in its help; kept as text so that `rag --help` does not import
#: the loaders (tests/unit/cli/test_main.py checks it against components.ingestion.loaders.LOADERS)
INGEST_FORMATS = ".md .txt .html .pdf .jsonl"

app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    no_args_is_help=True,
    help="Agentic RAG over your notes, papers and web pages (Japanese and English).",
)
log = logging.getLogger("rag")


def _check_web(web: bool, *, as_json: bool = False) -> None:
    """--web without a provider would silently search nothing on the web: say how to set one up."""
    from components.settings import get_settings

    if web and not get_settings().web_search_provider:
        fail(
            "--web needs a web search provider: set WEB_SEARCH_PROVIDER=tavily and WEB_SEARCH_API_KEY "
            "(environment or .env; `rag status` shows the setting)",
            as_json=as_json,
            code=2,
        )


#: what this command opened; ``run`` closes it when the command ends, so that the store's lock
#: and the models go with the command (a process that runs several commands, such as a test
#: or an embedding application, can run the next one on the same store)
_OPENED: list[Any] = []


def _components() -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # models come from installed packages only
    from components.factory import Components

    c = Components()
    _OPENED.append(c)
    return c


def _close_opened() -> None:
    while _OPENED:
        _OPENED.pop().close()


def _remote(command: str, args: dict[str, Any], *, on_event: Any = None) -> Any | None:
    """The command's result from a running `rag serve` with these settings, or None to run it here."""
    from cli import server_link
    from components.settings import get_settings

    try:
        settings = get_settings()
    except Exception:  # invalid settings: the in-process path reports them as it always has
        return None
    return server_link.call(settings, command, args, on_event=on_event)


def _served(command: str, args: dict[str, Any], *, on_event: Any = None) -> Any:
    """The result of a session's later request to the `rag serve` it started with (chat, search -i)."""
    result = _remote(command, args, on_event=on_event)
    if result is None:
        raise RAGError("rag serve stopped answering: leave and start again (it then runs here)")
    return result


def _tokens_to(sink: Any) -> Any:
    """An ``on_event`` for `rag serve`'s replies: a streamed answer's text goes to ``sink`` as it comes."""

    def write(event: dict[str, Any]) -> None:
        if event.get("event") == "token":
            sink.write(str(event.get("text") or ""))
            sink.flush()

    return write


def _data_dir() -> Path:
    from components.settings import get_settings

    return get_settings().data_dir


@app.callback()
def main(
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Log details (progress, fallbacks, errors) to stderr.")
    ] = False,
) -> None:
    # A terminal user reads the response's warnings, one line each; the log lines behind them
    # (which node failed, the exception, the request id) are for -v.
    logging.basicConfig(
        level=logging.INFO if verbose else logging.CRITICAL,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help=f"Files or folders: {INGEST_FORMATS}")],
    collection: Annotated[str | None, typer.Option(help="Collection to write (default: COLLECTION).")] = None,
    prune: Annotated[
        bool, typer.Option("--prune", help="Remove indexed documents under PATHS that no longer exist.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    sentence_vectors: Annotated[
        bool,
        typer.Option(
            help="Embed each section's sentences too, so extractive answers (no LLM) need not embed them "
            "per question; about doubles the embedding time. Off: answers embed them when asked."
        ),
    ] = True,
) -> None:
    """Parse, chunk, embed and write documents; unchanged documents are skipped."""
    from cli.ingest_cmd import ProgressView, finish
    from cli.ingest_cmd import ingest as run

    try:
        with ProgressView(show=not as_json) as view:
            report = _remote(
                "ingest",
                {
                    "paths": [str(p.expanduser().absolute()) for p in paths],  # the server's cwd is not ours
                    "prune": prune,
                    "collection": collection,
                    "sentence_vectors": sentence_vectors,
                },
                on_event=lambda event: view.feed(event.get("data") or {}),
            )
        if report is not None:
            code = finish(report, as_json=as_json)
        else:
            code = run(
                _components(),
                [str(p) for p in paths],
                prune=prune,
                collection=collection,
                as_json=as_json,
                sentence_vectors=sentence_vectors,
            )
    except RAGError as e:
        fail(str(e), as_json=as_json)
    raise typer.Exit(code)


@app.command()
def status(
    collection: Annotated[str | None, typer.Option(help="Collection to describe.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
    with_facets: Annotated[
        bool, typer.Option("--facets", help="Also the vaults, tags, languages, formats and collections, with counts.")
    ] = False,
    groups: Annotated[
        list[str],
        typer.Option("--group", help="Access groups you hold: --facets counts the notes shared with them (repeat)."),
    ] = [],  # noqa: B006 - typer reads the default; never mutated
) -> None:
    """Show the store, the collection, the embedding model, BM25 and Ollama state."""
    from cli.status_cmd import facets, gather, show

    try:
        report = _remote("status", {"collection": collection, "facets": with_facets, "groups": groups})
        if report is None:
            c = _components()
            report = gather(c, collection)
            if with_facets and report.get("exists"):
                report["facets"] = facets(c, collection, groups)
        show(report, as_json=as_json)
    except RAGError as e:
        fail(str(e), as_json=as_json)


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="What to look for (or -q; omit with --batch).")] = "",
    query_opt: Annotated[str | None, typer.Option("-q", "--query", help="What to look for (instead of QUERY).")] = None,
    k: Annotated[
        int,
        typer.Option("-k", "--top-k", min=1, max=1000, help="Results to return (documents with --group-by-document)."),
    ] = 10,
    vault: Annotated[list[str], typer.Option("--vault", help="Only these vaults (any of; repeat).")] = [],  # noqa: B006
    tag: Annotated[list[str], typer.Option("--tag", help="Only chunks with all these tags (repeat).")] = [],  # noqa: B006
    date_from: Annotated[str | None, typer.Option("--from", help="Created on or after YYYY-MM-DD.")] = None,
    date_to: Annotated[str | None, typer.Option("--to", help="Created on or before YYYY-MM-DD.")] = None,
    source: Annotated[str | None, typer.Option(help="Exactly this source path or URL.")] = None,
    source_prefix: Annotated[str | None, typer.Option(help="Source path or URL starting with this.")] = None,
    section: Annotated[str | None, typer.Option(help="A heading in the section path.")] = None,
    lang: Annotated[str | None, typer.Option("--lang", help="Language: ja, en.")] = None,
    doc_id: Annotated[list[str], typer.Option("--doc-id", help="Only these documents (repeat).")] = [],  # noqa: B006
    where: Annotated[list[str], typer.Option(help="key=value, key~=text, key:in=a,b, key>=n (repeat).")] = [],  # noqa: B006
    year_min: Annotated[
        int | None, typer.Option("--year-min", help="Documents whose metadata year is >= this.")
    ] = None,
    year_max: Annotated[
        int | None, typer.Option("--year-max", help="Documents whose metadata year is <= this.")
    ] = None,
    collections: Annotated[
        list[str], typer.Option("--collections", help="Documents in any of these metadata collections (repeat).")
    ] = [],  # noqa: B006
    item_types: Annotated[
        list[str], typer.Option("--item-types", help="Documents of any of these metadata item types (repeat).")
    ] = [],  # noqa: B006
    chunk_types: Annotated[
        list[str],
        typer.Option(
            "-c",
            "--chunk-types",
            help="Only these kinds of chunk: heading, abstract, body, table, code (repeat or a,b).",
        ),
    ] = [],  # noqa: B006
    fmt: Annotated[str, typer.Option("-f", "--format", help="text, json, markdown, brief or citations.")] = "text",
    as_json: Annotated[bool, typer.Option("--json", help="Same as --format json.")] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Timings, Qdrant filter, per-retriever ranks.")] = False,
    min_score: Annotated[
        float | None,
        typer.Option(
            "--min-score",
            min=0.0,
            max=1.0,
            help="Least score (probability of relevance) a result needs; 0 shows the closest chunks "
            "even when none looks relevant. Default: Context.min_score (0.5). --batch applies none.",
        ),
    ] = None,
    group: Annotated[bool, typer.Option("--group-by-document", help="One entry per document.")] = False,
    also: Annotated[list[str], typer.Option("--also", help="Another phrasing to search too (repeat).")] = [],  # noqa: B006
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write the output to this file.")] = None,
    save: Annotated[
        bool,
        typer.Option(
            "-s", "--save", help="Also write it to DATA_DIR/query_results/query_<time>.<format> and latest.<format>."
        ),
    ] = False,
    batch_file: Annotated[
        Path | None, typer.Option("--batch", help="JSONL of {_id, text}: one result line each.")
    ] = None,
    collection: Annotated[str | None, typer.Option(help="Collection to search.")] = None,
    groups: Annotated[
        list[str], typer.Option("--group", help="Access groups you hold: restricted notes shared with them (repeat).")
    ] = [],  # noqa: B006
    interactive: Annotated[
        bool,
        typer.Option(
            "-i", "--interactive", help="A search loop: filters that persist (:tag, :from, :clear), history, :ask."
        ),
    ] = False,
) -> None:
    """Hybrid search (dense + BM25, fused, reranked when a cross-encoder is set): ranked chunks with
    sources, each scored by the probability that it is relevant; nothing when nothing is."""
    from cli import search_cmd, search_formats

    fmt = "json" if as_json else fmt
    if query_opt is not None:
        if query.strip():
            fail("give the query once: as QUERY or as -q/--query, not both", code=2)
        query = query_opt
    machine = fmt == "json" and batch_file is None  # batch: stdout is the JSONL stream, errors go to stderr
    if fmt not in search_formats.FORMATS:
        fail(f"unknown --format {fmt!r}; use one of {', '.join(search_formats.FORMATS)}", code=2)
    options: dict[str, Any] = {
        "vault": vault,
        "tag": tag,
        "date_from": date_from,
        "date_to": date_to,
        "source": source,
        "source_prefix": source_prefix,
        "section": section,
        "lang": lang,
        "doc_id": doc_id,
        "where": where,
        "year_min": year_min,
        "year_max": year_max,
        "collections": collections,
        "item_types": item_types,
        "chunk_types": chunk_types,
    }
    try:
        filters = search_cmd.build_filters(**options)
        if interactive:
            _search_shell(
                options, query, k=k, fmt=fmt, group=group, min_score=min_score, collection=collection, groups=groups
            )
            return
        if batch_file is not None:
            if not batch_file.exists():
                fail(f"--batch file {batch_file} does not exist", code=2)
            search_cmd.batch(_components(), batch_file, k=k, filters=filters, collection=collection, groups=groups)
            return
        if not query.strip():
            fail("the query is empty: give some words to search for", as_json=machine, code=2)
        payload = {
            "question": query,
            "top_k": k,
            "filters": filters,
            "debug": debug,
            "group_by_document": group,
            "queries": also,
        }
        report = _remote("search", search_cmd.search_request(payload, collection, groups, min_score))
        if report is None:
            report = search_cmd.search(_components(), payload, collection, groups, min_score)
    except RAGError as e:
        fail(str(e), as_json=machine)
    text = search_formats.render(report, fmt)
    if save:
        path = search_cmd.save(text, fmt, _data_dir())
        err_console.print(
            f"saved to {path} (and latest.{search_formats.EXTENSIONS[fmt]})", highlight=False, soft_wrap=True
        )
    if output is not None:
        output.write_text(text, encoding="utf-8")
    else:
        emit(text)


def _search_shell(
    options: dict[str, Any],
    query: str,
    *,
    k: int,
    fmt: str,
    group: bool,
    min_score: float | None,
    collection: str | None,
    groups: list[str],
) -> None:
    """``rag search -i``: the options given on the command line are the loop's first filters."""
    import sys

    from cli import search_shell

    remote = _served if _remote("ping", {}) is not None else None
    state = search_shell.Shell(
        None if remote is not None else _components(),
        _data_dir(),
        options={key: v for key, v in options.items() if v not in (None, [], ())},
        top_k=k,
        min_score=min_score,
        fmt=fmt if fmt != "text" else "brief",  # the loop's default: one line per result
        group=group,
        collection=collection,
        groups=tuple(groups),
    )
    lines = iter([query] if query.strip() else [])
    at_terminal = sys.stdin.isatty()

    def read(prompt: str) -> str:  # a query given on the command line is the first search
        first = next(lines, None)
        if first is not None:
            sys.stdout.write(prompt + first + "\n")
            return first
        return input(prompt)

    raise typer.Exit(search_shell.shell(state, read=read, out=sys.stdout, at_terminal=at_terminal, remote=remote))


@app.command()
def similar(
    doc_id: Annotated[str, typer.Argument(help="Document id (see doc_id in search results).")],
    k: Annotated[int, typer.Option("-k", "--top-k", min=1, max=1000)] = 5,
    fmt: Annotated[str, typer.Option("--format", help="text, json, markdown, brief or citations.")] = "text",
    collection: Annotated[str | None, typer.Option(help="Collection to search.")] = None,
    groups: Annotated[
        list[str], typer.Option("--group", help="Access groups you hold: restricted notes shared with them (repeat).")
    ] = [],  # noqa: B006
) -> None:
    """Documents similar to a given one (the document itself excluded)."""
    from cli import search_cmd, search_formats

    payload = {"similar_to": doc_id, "top_k": k, "group_by_document": True}
    try:
        report = _remote("search", search_cmd.search_request(payload, collection, groups))
        if report is None:
            report = search_cmd.search(_components(), payload, collection, groups)
    except RAGError as e:
        fail(str(e), as_json=fmt == "json")
    emit(search_formats.render(report, fmt))


@app.command()
def show(
    doc_id: Annotated[str, typer.Argument(help="Document id (see doc_id in search results).")],
    collection: Annotated[str | None, typer.Option(help="Collection to read.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
    groups: Annotated[
        list[str], typer.Option("--group", help="Access groups you hold: restricted notes shared with them (repeat).")
    ] = [],  # noqa: B006
) -> None:
    """One document as the index holds it: its metadata and its chunks in order."""
    from cli import show_cmd

    try:
        doc = _remote("show", {"doc_id": doc_id, "collection": collection, "groups": groups})
        if doc is None:
            doc = show_cmd.document(_components(), doc_id, collection, groups)
    except RAGError as e:
        fail(str(e), as_json=as_json)
    if as_json:
        print_json(doc)
    else:
        emit(show_cmd.render(doc))


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="Your question, in Japanese or English.")],
    thread: Annotated[str | None, typer.Option("--thread", help="Continue this conversation thread.")] = None,
    k: Annotated[int, typer.Option("-k", "--top-k", min=1, max=50, help="Sources to return.")] = 5,
    vault: Annotated[list[str], typer.Option("--vault", help="Only these vaults (any of; repeat).")] = [],  # noqa: B006
    tag: Annotated[list[str], typer.Option("--tag", help="Only chunks with all these tags (repeat).")] = [],  # noqa: B006
    date_from: Annotated[str | None, typer.Option("--from", help="Created on or after YYYY-MM-DD.")] = None,
    date_to: Annotated[str | None, typer.Option("--to", help="Created on or before YYYY-MM-DD.")] = None,
    lang: Annotated[str | None, typer.Option("--lang", help="Language: ja, en.")] = None,
    source_prefix: Annotated[str | None, typer.Option(help="Source path or URL starting with this.")] = None,
    user: Annotated[str | None, typer.Option("--user", help="Apply this user's profile (rag profile).")] = None,
    no_llm: Annotated[bool, typer.Option("--no-llm", help="Answer extractively even if an LLM is set.")] = False,
    collection: Annotated[str | None, typer.Option(help="Collection to ask.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object (see README).")] = False,
    stream: Annotated[bool, typer.Option("--stream", help="Print the answer's tokens as they arrive.")] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Nodes visited with their ms, and the verdicts.")] = False,
    web: Annotated[
        bool, typer.Option("--web", help="Allow web search (route and fallback); needs WEB_SEARCH_PROVIDER.")
    ] = False,
    groups: Annotated[
        list[str], typer.Option("--group", help="Access groups you hold: restricted notes shared with them (repeat).")
    ] = [],  # noqa: B006
) -> None:
    """Answer a question from the index, with numbered citations, in a conversation thread."""
    from cli import ask_cmd, search_cmd

    if not question.strip():
        fail("the question is empty: ask something, in Japanese or English", as_json=as_json, code=2)
    if stream and as_json:
        fail("--stream and --json do not combine: --json prints one object at the end", code=2)
    try:
        filters = search_cmd.build_filters(
            vault=vault, tag=tag, date_from=date_from, date_to=date_to, source_prefix=source_prefix, lang=lang
        )
        turn = ask_cmd.Turn(
            question=question,
            filters=filters,
            top_k=k,
            debug=debug,
            collection=collection or "",
            user_id=user or "",
            use_llm=not no_llm,
            groups=tuple(groups),
            web=web,
        )
        tid = thread or ask_cmd.new_thread_id()
        streamed = stream and not as_json
        _check_web(web, as_json=as_json)
        result = _remote("ask", ask_cmd.ask_request(turn, tid, stream=streamed), on_event=_tokens_to(sys.stdout))
        if result is None:
            ask_cmd.ask(_components(), turn, thread_id=tid, as_json=as_json, stream=stream)
        else:
            ask_cmd.present(result, tid, turn, as_json=as_json, streamed=streamed)
    except RAGError as e:
        fail(str(e), as_json=as_json)
    except KeyboardInterrupt:
        fail("interrupted", as_json=as_json, code=130)


@app.command()
def chat(
    thread: Annotated[str | None, typer.Option("--thread", help="Continue this conversation thread.")] = None,
    user: Annotated[str | None, typer.Option("--user", help="Apply this user's profile (rag profile).")] = None,
    k: Annotated[int, typer.Option("-k", "--top-k", min=1, max=50, help="Sources per answer.")] = 5,
    no_llm: Annotated[bool, typer.Option("--no-llm", help="Answer extractively even if an LLM is set.")] = False,
    collection: Annotated[str | None, typer.Option(help="Collection to ask.")] = None,
    web: Annotated[
        bool, typer.Option("--web", help="Allow web search (route and fallback); needs WEB_SEARCH_PROVIDER.")
    ] = False,
    groups: Annotated[
        list[str], typer.Option("--group", help="Access groups you hold: restricted notes shared with them (repeat).")
    ] = [],  # noqa: B006
) -> None:
    """Talk with your notes: one thread across turns, answers streamed; /new, and quit, exit or Ctrl-D."""
    from cli import ask_cmd

    base = ask_cmd.Turn(
        question="",
        top_k=k,
        collection=collection or "",
        user_id=user or "",
        use_llm=not no_llm,
        groups=tuple(groups),
        web=web,
    )

    def served(turn: Any, tid: str, sink: Any) -> dict[str, Any]:
        return dict(_served("ask", ask_cmd.ask_request(turn, tid, stream=True), on_event=_tokens_to(sink)))

    try:
        _check_web(web)
        if _remote("ping", {}) is not None:
            code = ask_cmd.chat_loop(served, base, thread or ask_cmd.new_thread_id())
        else:
            code = ask_cmd.chat(_components(), base, thread_id=thread)
    except RAGError as e:
        fail(str(e))
    raise typer.Exit(code)


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

    try:
        run(_components(), idle_minutes=idle_minutes, announce=announce)
    except RAGError as e:
        fail(str(e))


@app.command()
def profile(
    user_id: Annotated[str, typer.Argument(help="Who the profile belongs to (rag ask --user ID).")],
    vault: Annotated[list[str], typer.Option("--vault", help="Default vaults (any of; repeat).")] = [],  # noqa: B006
    tag: Annotated[list[str], typer.Option("--tag", help="Default tags (all of; repeat).")] = [],  # noqa: B006
    lang: Annotated[str | None, typer.Option("--lang", help="Default language: ja, en.")] = None,
    show: Annotated[bool, typer.Option("--show", help="Print the profile (also the default).")] = False,
    clear: Annotated[bool, typer.Option("--clear", help="Delete the profile.")] = False,
) -> None:
    """Set, show or clear a user's default filters; questions asked with --user start from them."""
    from cli import ask_cmd, search_cmd

    try:
        filters = search_cmd.build_filters(vault=vault, tag=tag, lang=lang)
        print_json(ask_cmd.profile(_components(), user_id, filters, clear=clear))
    except RAGError as e:
        fail(str(e), code=2 if not user_id.strip() else 1)


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
        sentences = c.sentences(collection).store
        if sentences.exists():  # derived from the dropped collection
            sentences.drop()
    except RAGError as e:
        fail(str(e))
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

        try:
            copied = run(s.qdrant_path, progress=progress)
        except RAGError as e:
            fail(str(e))
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


@app.command()
def guard(
    text: Annotated[str | None, typer.Argument(help="A text to check (or use --batch).")] = None,
    batch: Annotated[
        Path | None,
        typer.Option(
            "--batch",
            help='JSONL of {"id": ..., "text": ...} lines ("-" for stdin); writes one verdict line per input.',
        ),
    ] = None,
) -> None:
    """Run the input guardrail: allow, block (injection, too long) or redact (personal data), as JSON."""
    if (text is None) == (batch is None):
        fail("give either a TEXT or --batch FILE.jsonl, e.g. rag guard --batch inputs.jsonl", code=2)
    import sys

    from cli.guard_cmd import BadLine, check_one, run_batch

    c = _components()
    if batch is None:
        print_json(check_one(c, text or ""))
        return
    try:
        if str(batch) == "-":
            count = run_batch(c, sys.stdin, "stdin", sys.stdout)
        else:
            if not batch.is_file():
                fail(f'{batch}: no such file. Give a JSONL file of {{"id": ..., "text": ...}} lines.', code=2)
            with batch.open(encoding="utf-8") as stream:
                count = run_batch(c, stream, str(batch), sys.stdout)
    except BadLine as e:
        fail(str(e), code=2)
    log.info("rag guard: %d inputs checked", count)


cache_app = typer.Typer(
    no_args_is_help=True, help="The semantic answer cache (DATA_DIR/cache, or DATABASE_URL), shared by processes."
)
app.add_typer(cache_app, name="cache")


@cache_app.command("stats")
def cache_stats() -> None:
    """Entries, scopes, where the cache lives and its size, the time to live, as JSON."""
    print_json(_components().cache.describe())


@cache_app.command("clear")
def cache_clear(
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask for confirmation.")] = False,
) -> None:
    """Forget every cached answer (re-ingesting already makes old answers unreachable)."""
    cache = _components().cache
    where = cache.describe()["path"]
    if not yes and not typer.confirm(f"Forget the cached answers in {where}?"):
        raise typer.Exit(1)
    print_json({"cleared": cache.clear(), "path": where})


@app.command()
def feedback(
    target: Annotated[str, typer.Argument(help="A THREAD_ID (then good|bad), or: list, export.")],
    verdict: Annotated[
        str | None, typer.Argument(help="good or bad (with a THREAD_ID); with export, the JSONL file to write.")
    ] = None,
    reason: Annotated[str, typer.Option("--reason", "-r", help="Why (personal data is redacted).")] = "",
    checkpoint: Annotated[
        str | None, typer.Option("--checkpoint", help="Judge the answer at this checkpoint, not the latest.")
    ] = None,
    bad: Annotated[bool, typer.Option("--bad", help="list/export: only bad answers.")] = False,
    good: Annotated[bool, typer.Option("--good", help="list/export: only good answers.")] = False,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="list: at most N entries.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Say whether an answer was good or bad; list the verdicts; export bad answers as a golden set.

    rag feedback THREAD_ID bad --reason "wrong year" · rag feedback list --bad ·
    rag feedback export --bad golden.jsonl (question, bad answer, reason, passages; reference empty)
    """
    from cli import feedback_cmd
    from components.stores.feedback import Verdict

    if bad and good:
        fail("give --bad or --good, not both", code=2)
    only: Verdict | None = "bad" if bad else "good" if good else None
    c = _components()
    try:
        if target == "list":
            rows = feedback_cmd.listed(c, only, limit)
            if as_json:
                print_json(rows)
            else:
                feedback_cmd.show(rows)
        elif target == "export":
            if only is None or not verdict:
                fail("export needs --bad (or --good) and a file: rag feedback export --bad golden.jsonl", code=2)
                return
            n = feedback_cmd.export(c, only, Path(verdict))
            print_json({"exported": n, "path": verdict})
        elif verdict not in ("good", "bad"):
            fail(f"after the thread id give good or bad, e.g. rag feedback {target} bad --reason '...'", code=2)
        else:
            record = feedback_cmd.give(c, target, verdict, reason, checkpoint)
            if as_json:
                print_json(record)
            else:
                console.print(f"feedback {record['id']} ({record['verdict']}) on thread {target}", highlight=False)
    except RAGError as e:
        fail(str(e), as_json=as_json)


eval_app = typer.Typer(no_args_is_help=True, help="Evaluation runs with RAGAS (pip install -e '.[eval]').")
app.add_typer(eval_app, name="eval")


@eval_app.command("qa")
def eval_qa(
    dataset: Annotated[
        Path, typer.Argument(help="JSONL of questions: question, ground_truth(s), contexts, context_ids.")
    ],
    out: Annotated[
        Path | None, typer.Option("--out", help="Run folder (default DATA_DIR/eval/<dataset name>); reused to resume.")
    ] = None,
    judge: Annotated[
        str,
        typer.Option(
            "--judge", help="Ollama model for RAGAS's LLM metrics (faithfulness, relevancy, ...); none: no-LLM metrics."
        ),
    ] = "",
    k: Annotated[int, typer.Option("-k", min=1, max=100, help="Retrieved documents scored per question.")] = 5,
    concurrency: Annotated[int, typer.Option("--concurrency", min=1, max=32, help="Questions in flight.")] = 2,
    cache: Annotated[
        bool, typer.Option("--cache", help="Let the semantic cache answer (off: every question runs).")
    ] = False,
    fresh: Annotated[bool, typer.Option("--fresh", help="Start the run folder over instead of resuming.")] = False,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N questions.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Answer every question with the graph, score the answers with RAGAS, write JSON, Markdown and plots."""
    from cli.eval_cmd import default_folder, run_and_report, show_summary
    from evals.qa_dataset import DatasetError
    from evals.qa_run import RunMismatch, RunOptions
    from evals.ragas_compat import RagasUnavailable

    c = _components()
    opts = RunOptions(
        dataset=dataset,
        out=out or default_folder(c, dataset),
        k=k,
        concurrency=concurrency,
        judge_model=judge or c.settings.judge_model,
        cache=cache,
        fresh=fresh,
        limit=limit,
        progress=not as_json,
    )
    try:
        summary = run_and_report(c, opts)
    except (DatasetError, RunMismatch, RagasUnavailable) as e:
        fail(str(e), as_json=as_json, code=2)
    except RAGError as e:
        fail(str(e), as_json=as_json)
    if as_json:
        print_json(summary)
    else:
        show_summary(summary)


@eval_app.command("compare")
def eval_compare(
    a: Annotated[Path, typer.Argument(help="report.json of the first run (A).")],
    b: Annotated[Path, typer.Argument(help="report.json of the second run (B).")],
    out: Annotated[
        Path | None, typer.Option("--out", help="Folder for compare.json and compare.png (default B's).")
    ] = None,
) -> None:
    """Two runs side by side: each metric's mean in A and B and the change, with a chart."""
    from cli.eval_cmd import compare_reports

    try:
        compare_reports(a, b, out)
    except ValueError as e:
        fail(str(e), code=2)


def run() -> None:
    """Entry point: errors reach the user as one actionable line, never as a stack trace."""
    try:
        app(prog_name="rag")
    except RAGError as e:
        fail(str(e))
    except KeyboardInterrupt:
        fail("interrupted; an ingestion can be resumed by running the same command again", code=130)
    except Exception as e:
        log.debug("unexpected error", exc_info=True)
        fail(f"unexpected {type(e).__name__}: {e}. Rerun with -v for details; please report it.")
    finally:
        _close_opened()
