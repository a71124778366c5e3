"""`rag search`, `rag similar` and `rag show`: options in, one request out, the report printed."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from cli.dispatch import components, dispatch, served, serving
from cli.options import AsJson, Collection, DateFrom, DateTo, Format, Groups, Lang, SourcePrefix, Tag, Vault
from cli.output import emit, err_console, errors_as_json, fail, print_json

if TYPE_CHECKING:
    from cli.search_cmd import SearchRequest

app = typer.Typer()


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="What to look for (or -q; omit with --batch).")] = "",
    query_opt: Annotated[str | None, typer.Option("-q", "--query", help="What to look for (instead of QUERY).")] = None,
    k: Annotated[
        int,
        typer.Option("-k", "--top-k", min=1, max=1000, help="Results to return (documents with --group-by-document)."),
    ] = 10,
    offset: Annotated[
        int, typer.Option("--offset", min=0, max=999, help="Skip this many results first (the next page).")
    ] = 0,
    vault: Vault = [],  # noqa: B006 - typer reads the default; never mutated
    tag: Tag = [],  # noqa: B006
    date_from: DateFrom = None,
    date_to: DateTo = None,
    source: Annotated[str | None, typer.Option(help="Exactly this source path or URL.")] = None,
    source_prefix: SourcePrefix = None,
    section: Annotated[str | None, typer.Option(help="A heading in the section path.")] = None,
    lang: Lang = None,
    doc_id: Annotated[list[str], typer.Option("--doc-id", help="Only these documents (repeat).")] = [],  # noqa: B006
    where: Annotated[list[str], typer.Option(help="key=value, key~=text, key:in=a,b, key>=n (repeat).")] = [],  # noqa: B006
    year_min: Annotated[
        int | None, typer.Option("--year-min", help="Documents whose metadata year is >= this.")
    ] = None,
    year_max: Annotated[
        int | None, typer.Option("--year-max", help="Documents whose metadata year is <= this.")
    ] = None,
    collections: Annotated[
        list[str], typer.Option("--collections", help="Documents in any of these metadata collections (repeat or a,b).")
    ] = [],  # noqa: B006
    item_types: Annotated[
        list[str], typer.Option("--item-types", help="Documents of any of these metadata item types (repeat or a,b).")
    ] = [],  # noqa: B006
    chunk_types: Annotated[
        list[str],
        typer.Option(
            "-c",
            "--chunk-types",
            help="Only these kinds of chunk: heading, abstract, body, table, code (repeat or a,b).",
        ),
    ] = [],  # noqa: B006
    fmt: Format = "text",
    as_json: AsJson = False,
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
    include_embeddings: Annotated[
        bool,
        typer.Option(
            "--include-embeddings", help="Put the query's vector and each result's stored vector in the JSON."
        ),
    ] = False,
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
    collection: Collection = None,
    groups: Groups = [],  # noqa: B006
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
    # --batch: stdout is the JSONL stream, errors go to stderr
    machine = errors_as_json(fmt == "json" and batch_file is None)
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
    request = search_cmd.SearchRequest(
        question=query,
        top_k=k,
        offset=offset,
        include_embeddings=include_embeddings,
        filters=search_cmd.build_filters(**options),
        debug=debug,
        group_by_document=group,
        queries=tuple(also),
        collection=collection or "",
        groups=tuple(groups),
        min_score=min_score,
    )
    if interactive:
        _search_loop(request, options, fmt)
    if batch_file is not None:
        if not batch_file.exists():
            fail(f"--batch file {batch_file} does not exist", code=2)
        search_cmd.batch(components(), batch_file, request)
        return
    if not query.strip():
        fail("the query is empty: give some words to search for", as_json=machine, code=2)
    text = search_formats.render(dispatch(request), fmt)
    if save:
        path = search_cmd.save(text, fmt, _data_dir())
        err_console.print(
            f"saved to {path} (and latest.{search_formats.EXTENSIONS[fmt]})", highlight=False, soft_wrap=True
        )
    if output is not None:
        output.write_text(text, encoding="utf-8")
    else:
        emit(text)


def _search_loop(request: SearchRequest, options: dict[str, Any], fmt: str) -> NoReturn:
    """``rag search -i``: the command line's query is the first search, its options the loop's first
    filters and its knobs (results, least score, grouping, collection, groups) the loop's."""
    from cli import search_shell

    remote = served if serving() else None
    state = search_shell.Shell(
        None if remote is not None else components(),
        _data_dir(),
        options={key: v for key, v in options.items() if v not in (None, [], ())},
        request=replace(request, question="", filters={}, debug=False, queries=()),
        fmt=fmt if fmt != "text" else "brief",  # the loop's default: one line per result
    )
    read = search_shell.reader(request.question, sys.stdout)
    raise typer.Exit(
        search_shell.shell(state, read=read, out=sys.stdout, at_terminal=sys.stdin.isatty(), remote=remote)
    )


def _data_dir() -> Path:
    from components.settings import get_settings

    return get_settings().data_dir


@app.command()
def similar(
    doc_id: Annotated[str, typer.Argument(help="Document id (see doc_id in search results).")],
    k: Annotated[int, typer.Option("-k", "--top-k", min=1, max=1000)] = 5,
    fmt: Format = "text",
    collection: Collection = None,
    groups: Groups = [],  # noqa: B006
) -> None:
    """Documents similar to a given one (the document itself excluded)."""
    from cli import search_formats
    from cli.search_cmd import SearchRequest

    errors_as_json(fmt == "json")
    request = SearchRequest(
        similar_to=doc_id, top_k=k, group_by_document=True, collection=collection or "", groups=tuple(groups)
    )
    emit(search_formats.render(dispatch(request), fmt))


@app.command()
def show(
    doc_id: Annotated[str, typer.Argument(help="Document id (see doc_id in search results).")],
    collection: Collection = None,
    as_json: AsJson = False,
    groups: Groups = [],  # noqa: B006
) -> None:
    """One document as the index holds it: its metadata and its chunks in order."""
    from cli import show_cmd

    doc = dispatch(show_cmd.ShowRequest(doc_id, collection, tuple(groups)))
    if as_json:
        print_json(doc)
    else:
        emit(show_cmd.render(doc))
