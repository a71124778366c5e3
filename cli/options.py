"""The options several `rag` commands share, declared once as typer ``Annotated`` types.

A command writes ``collection: Collection = None``; the flag, its help and its checks live here,
so that the same flag means the same thing in every command. ``--json`` also makes the command's
errors JSON (``cli.output.errors_as_json``), which is how ``cli.main.run`` reports them.
"""

from __future__ import annotations

from typing import Annotated

import typer

from cli.output import errors_as_json

# the flags' defaults sit in each command's signature; a repeatable option's default is a list
# typer reads and never mutates (hence the noqa: B006 where they are used)

AsJson = Annotated[bool, typer.Option("--json", help="Print JSON (see README); errors too.", callback=errors_as_json)]
Collection = Annotated[
    str | None, typer.Option(help="The collection (default: COLLECTION); a,b reads several, merged.")
]
Groups = Annotated[
    list[str], typer.Option("--group", help="Access groups you hold: restricted notes shared with them (repeat).")
]
Format = Annotated[str, typer.Option("-f", "--format", help="text, json, markdown, brief or citations.")]
Yes = Annotated[bool, typer.Option("--yes", help="Do not ask for confirmation.")]

# ---------------------------------------------------------------- filters (cli.search_cmd.build_filters)
Vault = Annotated[list[str], typer.Option("--vault", help="Only these vaults (any of; repeat or a,b).")]
Tag = Annotated[list[str], typer.Option("--tag", help="Only chunks with all these tags (repeat or a,b).")]
DateFrom = Annotated[str | None, typer.Option("--from", help="Created on or after YYYY-MM-DD.")]
DateTo = Annotated[str | None, typer.Option("--to", help="Created on or before YYYY-MM-DD.")]
Lang = Annotated[str | None, typer.Option("--lang", help="Language: ja, en.")]
SourcePrefix = Annotated[str | None, typer.Option(help="Source path or URL starting with this.")]

# ---------------------------------------------------------------- questions (ask, chat)
Thread = Annotated[str | None, typer.Option("--thread", help="Continue this conversation thread.")]
User = Annotated[str | None, typer.Option("--user", help="Apply this user's profile (rag profile).")]
Sources = Annotated[int, typer.Option("-k", "--top-k", min=1, max=50, help="Sources per answer.")]
NoLLM = Annotated[bool, typer.Option("--no-llm", help="Answer extractively even if an LLM is set.")]
Web = Annotated[bool, typer.Option("--web", help="Allow web search (route and fallback); needs WEB_SEARCH_PROVIDER.")]
