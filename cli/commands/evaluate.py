"""Judging the system: `rag guard` (the input rail alone), `rag feedback` on answers, `rag eval` runs."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Annotated

import typer

from cli.dispatch import components
from cli.options import AsJson
from cli.output import console, fail, print_json

app = typer.Typer()
log = logging.getLogger("rag")


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
    from cli.guard_cmd import BadLine, check_one, run_batch

    c = components()
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
    as_json: AsJson = False,
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
    c = components()
    if target == "list":
        rows = feedback_cmd.listed(c, only, limit)
        if as_json:
            print_json(rows)
        else:
            feedback_cmd.show(rows)
    elif target == "export":
        if only is None or not verdict:
            fail("export needs --bad (or --good) and a file: rag feedback export --bad golden.jsonl", code=2)
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
    as_json: AsJson = False,
) -> None:
    """Answer every question with the graph, score the answers with RAGAS, write JSON, Markdown and plots."""
    from cli.eval_cmd import default_folder, run_and_report, show_summary
    from evals.qa_dataset import DatasetError
    from evals.qa_run import RunMismatch, RunOptions
    from evals.ragas_compat import RagasUnavailable

    c = components()
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
    except (DatasetError, RunMismatch, RagasUnavailable) as e:  # the run's input or setup: a usage error
        fail(str(e), as_json=as_json, code=2)
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
