"""Entry point of the ``rag`` command: the app, what every command shares, and errors reported once.

The commands are declared by area in ``cli.commands``, typer apps merged into this one: each
turns its options into a request, hands it to ``cli.dispatch`` (`rag serve` when it runs, else
this process) and prints the result. An error that reaches ``run`` becomes one actionable line,
JSON when the command prints JSON, never a stack trace.
"""

from __future__ import annotations

import logging
from typing import Annotated

import typer

from cli.commands import answer, evaluate, index, search
from cli.dispatch import close_opened
from cli.output import errors_as_json, fail, json_errors
from components.resilience.errors import RAGError

app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    no_args_is_help=True,
    help="Agentic RAG over your notes, papers and web pages (Japanese and English).",
)
log = logging.getLogger("rag")


@app.callback()
def main(
    ctx: typer.Context,
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
    errors_as_json(False)  # until the command's options ask for JSON
    # the store's lock and the models go with the command, also when it fails
    ctx.call_on_close(close_opened)


for area in (index, search, answer, evaluate):
    app.add_typer(area.app)


def run() -> None:
    """Entry point: errors reach the user as one actionable line, never as a stack trace."""
    try:
        app(prog_name="rag")
    except RAGError as e:
        fail(str(e), as_json=json_errors())
    except KeyboardInterrupt:
        fail("interrupted; an ingestion can be resumed by running the same command again", code=130)
    except Exception as e:
        log.debug("unexpected error", exc_info=True)
        fail(f"unexpected {type(e).__name__}: {e}. Rerun with -v for details; please report it.")
