"""Questions: `rag ask`, `rag chat` and the `rag profile` their ``--user`` applies."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TextIO

import typer

from cli.dispatch import components, dispatch, served, serving, tokens_to
from cli.options import (
    AsJson,
    Collection,
    DateFrom,
    DateTo,
    Groups,
    Lang,
    NoLLM,
    SourcePrefix,
    Sources,
    Tag,
    Thread,
    User,
    Vault,
    Web,
)
from cli.output import fail, print_json

if TYPE_CHECKING:
    from cli.ask_cmd import Turn

app = typer.Typer()


def _turn(
    *, k: int, user: str | None, no_llm: bool, collection: str | None, groups: list[str], web: bool, as_json: bool
) -> Turn:
    """The knobs `ask` and `chat` share, as a turn without its question. --web without a provider
    would silently search nothing on the web: it is refused, saying how to set one up."""
    from cli.ask_cmd import Turn
    from components.settings import get_settings

    if web and not get_settings().web_search_provider:
        fail(
            "--web needs a web search provider: set WEB_SEARCH_PROVIDER=tavily and WEB_SEARCH_API_KEY "
            "(environment or .env; `rag status` shows the setting)",
            as_json=as_json,
            code=2,
        )
    return Turn(
        question="",
        top_k=k,
        collection=collection or "",
        user_id=user or "",
        use_llm=not no_llm,
        groups=tuple(groups),
        web=web,
    )


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="Your question, in Japanese or English.")],
    thread: Thread = None,
    k: Sources = 5,
    vault: Vault = [],  # noqa: B006 - typer reads the default; never mutated
    tag: Tag = [],  # noqa: B006
    date_from: DateFrom = None,
    date_to: DateTo = None,
    lang: Lang = None,
    source_prefix: SourcePrefix = None,
    user: User = None,
    no_llm: NoLLM = False,
    collection: Collection = None,
    as_json: AsJson = False,
    stream: Annotated[bool, typer.Option("--stream", help="Print the answer's tokens as they arrive.")] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Nodes visited with their ms, and the verdicts.")] = False,
    web: Web = False,
    groups: Groups = [],  # noqa: B006
    attach: Annotated[
        list[Path],
        typer.Option(
            "--attach",
            help="Answer from this file instead of the index (repeat; .md .txt .html .pdf); it is not ingested.",
        ),
    ] = [],  # noqa: B006
) -> None:
    """Answer a question from the index, with numbered citations, in a conversation thread."""
    from cli import ask_cmd, search_cmd

    if not question.strip():
        fail("the question is empty: ask something, in Japanese or English", as_json=as_json, code=2)
    if stream and as_json:
        fail("--stream and --json do not combine: --json prints one object at the end", code=2)
    filters = search_cmd.build_filters(
        vault=vault, tag=tag, date_from=date_from, date_to=date_to, source_prefix=source_prefix, lang=lang
    )
    shared = _turn(k=k, user=user, no_llm=no_llm, collection=collection, groups=groups, web=web, as_json=as_json)
    turn = replace(shared, question=question, filters=filters, debug=debug, documents=attached(attach, as_json))
    tid = thread or ask_cmd.new_thread_id()
    streamed = stream and not as_json
    try:
        result = dispatch(ask_cmd.Ask(turn, tid, stream=streamed), on_event=tokens_to(sys.stdout))
    except KeyboardInterrupt:
        fail("interrupted", as_json=as_json, code=130)
    ask_cmd.present(result, tid, turn, as_json=as_json, streamed=streamed)


def attached(paths: list[Path], as_json: bool) -> tuple[dict[str, str], ...]:
    """The files of ``--attach`` read as ingestion reads them, each document's text, title and path;
    a file that cannot be read fails the command, saying why."""
    from components.ingestion.loaders import load_file
    from components.ingestion.loaders.source import Failure, SourceFile

    out: list[dict[str, str]] = []
    for path in paths:
        for item in load_file(SourceFile(path, None)):
            if isinstance(item, Failure):
                fail(f"--attach {path}: {item.reason}", as_json=as_json, code=2)
            else:
                out.append({"text": item.text, "title": item.title, "source": str(path)})
    return tuple(out)


@app.command()
def chat(
    thread: Thread = None,
    user: User = None,
    k: Sources = 5,
    no_llm: NoLLM = False,
    collection: Collection = None,
    web: Web = False,
    groups: Groups = [],  # noqa: B006
) -> None:
    """Talk with your notes: one thread across turns, answers streamed; /new, and quit, exit or Ctrl-D."""
    from cli import ask_cmd

    base = _turn(k=k, user=user, no_llm=no_llm, collection=collection, groups=groups, web=web, as_json=False)
    if serving():

        def turn_in_server(turn: Turn, tid: str, sink: TextIO) -> dict[str, Any]:
            return dict(served("ask", ask_cmd.Ask(turn, tid, stream=True).args(), on_event=tokens_to(sink)))

        raise typer.Exit(ask_cmd.chat_loop(turn_in_server, base, thread or ask_cmd.new_thread_id()))
    raise typer.Exit(ask_cmd.chat(components(), base, thread_id=thread))


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

    if not user_id.strip():
        fail("the user id is empty", code=2)
    filters = search_cmd.build_filters(vault=vault, tag=tag, lang=lang)
    print_json(ask_cmd.profile(components(), user_id, filters, clear=clear))
