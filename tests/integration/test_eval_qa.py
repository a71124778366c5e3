"""Evaluation runs end to end on the sample vaults: answers, RAGAS scores, report, plots, resumption.

The graph is the real one on its embedded defaults; the judge, where there is one, is the
Ollama-protocol test server answering RAGAS's prompts, so the real langchain-ollama client and
RAGAS's parsing are exercised.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from components.factory import Components
from evals.qa_report import compare, write_report
from evals.qa_run import SAMPLES, RunMismatch, RunOptions, read_records, run_qa, summary_line
from tests.conftest import REPO, SAMPLE_VAULTS
from tests.fakes.ollama_server import Behaviour, ollama_server
from tests.integration.helpers import sample_store
from tests.integration.test_cli_ask import MISO, MONSTERA, rag

pytestmark = pytest.mark.integration

TINY: list[dict[str, Any]] = [
    {
        "id": "monstera",
        "question": MONSTERA,
        "ground_truth": "when the top 5 cm of soil is dry",
        "context_ids": ["life/Monstera Care.md"],
    },
    {"id": "miso", "question": MISO, "ground_truth": "火を止めてから", "context_ids": ["life/recipes/味噌汁.md"]},
    {
        "id": "nowhere",
        "question": "What is the boiling point of mercury in kelvin?",
        "ground_truth": "No information found",
        "answerable": False,
    },
    {
        "id": "follow-up",
        "question": "And in winter?",
        "history": [MONSTERA],
        "ground_truth": "every 2–3 weeks",
        "context_ids": ["life/Monstera Care.md"],
    },
]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Components]:
    c, _ = sample_store(tmp_path_factory.mktemp("eval"))
    yield c
    c.close()


def dataset(folder: Path, lines: list[dict[str, Any]]) -> Path:
    path = folder / "tiny.jsonl"
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    return path


def report(c: Components, opts: RunOptions) -> dict[str, Any]:
    folder, totals = run_qa(c, opts)
    cfg = json.loads((folder / "run.json").read_text(encoding="utf-8"))["configuration"]
    paths = write_report(folder, list(read_records(folder / SAMPLES).values()), cfg, summary_line(totals))
    out: dict[str, Any] = json.loads(paths["json"].read_text(encoding="utf-8"))
    out["paths"] = paths
    out["totals"] = totals
    return out


def test_a_run_scores_every_answer_and_writes_json_markdown_and_plots(store: Components, tmp_path: Path) -> None:
    out = report(store, RunOptions(dataset=dataset(tmp_path, TINY), out=tmp_path / "run", progress=False))
    agg, by_id = out["aggregate"], {s["id"]: s for s in out["samples"]}
    assert agg["questions"] == 4 and agg["failed"] == 0
    assert by_id["monstera"]["metrics"]["cites_gold"] == 1.0
    assert by_id["monstera"]["metrics"]["span_in_answer"] == 1.0
    assert by_id["miso"]["metrics"]["id_context_recall@5"] == 1.0
    assert by_id["nowhere"]["declined"] and by_id["nowhere"]["metrics"]["declined_correctly"] == 1.0
    assert by_id["follow-up"]["metrics"]["cites_gold"] == 1.0  # answered in its thread
    assert out["configuration"]["judge_model"] is None and "faithfulness" not in agg["metrics"]
    assert agg["routes"] == {"vector_search": 4} and agg["fallback_rate"] == 0.0
    md = out["paths"]["markdown"].read_text(encoding="utf-8")
    assert "| cites_gold | 1.000 | 3 |" in md and "![metrics](plots/metrics.png)" in md
    for name in ("metrics", "latency", "mix"):
        png = out["paths"][f"plot:{name}"]
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5_000
    assert out["totals"].eval_s < out["totals"].wall_s


def test_a_second_invocation_continues_where_the_first_stopped(store: Components, tmp_path: Path) -> None:
    data = dataset(tmp_path, TINY)
    first, totals = run_qa(store, RunOptions(dataset=data, out=tmp_path / "run", limit=2, progress=False))
    assert totals.asked == 2
    # an interrupted run: a line cut short, and a question that had failed
    lines = (first / SAMPLES).read_text(encoding="utf-8").splitlines()
    failed = {"id": "miso", "question": MISO, "error": "TimeoutError: the machine was suspended"}
    kept = next(line for line in lines if '"monstera"' in line)
    (first / SAMPLES).write_text(kept + "\n" + json.dumps(failed) + "\n" + '{"id": "nowh', encoding="utf-8")
    _, again = run_qa(store, RunOptions(dataset=data, out=first, progress=False))
    assert (again.kept, again.asked, again.failed) == (1, 3, 0)
    records = read_records(first / SAMPLES)
    assert set(records) == {"monstera", "miso", "nowhere", "follow-up"} and not records["miso"].get("error")
    # another configuration on the same folder is refused, not mixed in
    with pytest.raises(RunMismatch, match="k"):
        run_qa(store, RunOptions(dataset=data, out=first, k=3, progress=False))


def test_a_failing_question_is_recorded_and_the_run_goes_on(store: Components, tmp_path: Path) -> None:
    bad = {"id": "bad-filter", "question": MONSTERA, "filters": {"created_from": "not a date"}}
    data = dataset(tmp_path, [TINY[0], bad])
    folder, totals = run_qa(store, RunOptions(dataset=data, out=tmp_path / "run", progress=False))
    records = read_records(folder / SAMPLES)
    assert totals.failed == 1 and "created_from" in records["bad-filter"]["error"]
    assert records["monstera"]["metrics"]["cites_gold"] == 1.0


def judge_reply(payload: dict[str, Any]) -> dict[str, Any]:
    """RAGAS's prompts, told apart by their instructions, answered as a careful judge would."""
    prompt = " ".join(str(m.get("content", "")) for m in payload.get("messages", []))
    if "Break down each sentence" in prompt:
        return {"statements": ["The monstera is watered when the top 5 cm of soil is dry."]}
    if "judge the faithfulness" in prompt:
        statement = "The monstera is watered when the top 5 cm of soil is dry."
        return {"statements": [{"statement": statement, "reason": "stated in the context", "verdict": 1}]}
    if "Generate a question for the given answer" in prompt:
        return {"question": MONSTERA, "noncommittal": 0}
    if "verify if the context was useful" in prompt:
        return {"reason": "it holds the watering rule", "verdict": 1}
    if "attributed to the given context" in prompt:
        return {"classifications": [{"statement": "top 5 cm dry", "reason": "in the context", "attributed": 1}]}
    raise AssertionError(f"unexpected prompt: {prompt[:200]}")


def test_with_a_judge_the_llm_metrics_are_scored_through_ollama(store: Components, tmp_path: Path) -> None:
    with ollama_server(Behaviour(chat_handler=judge_reply)) as (url, behaviour):
        s = store.settings.model_copy(update={"ollama_base_url": url, "llm_timeout": 10.0})
        c = Components(s, embedder=store.embedder, store_of=store)
        out = report(
            c,
            RunOptions(
                dataset=dataset(tmp_path, TINY[:1]), out=tmp_path / "run", judge_model="fake-chat", progress=False
            ),
        )
    [sample] = out["samples"]
    m = sample["metrics"]
    assert m["faithfulness"] == 1.0 and m["llm_context_precision"] == pytest.approx(1.0)
    assert m["llm_context_recall"] == 1.0 and m["answer_relevancy"] > 0.95
    assert out["configuration"]["judge_model"] == "fake-chat"
    assert len(behaviour.chat_requests) >= 4  # the graph itself asked no LLM: LLM_MODEL is unset
    assert out["configuration"]["llm_model"] is None


def test_two_reports_compare_metric_by_metric(store: Components, tmp_path: Path) -> None:
    data = dataset(tmp_path, TINY[:2])
    a = report(store, RunOptions(dataset=data, out=tmp_path / "a", k=5, progress=False))["paths"]["json"]
    b = report(store, RunOptions(dataset=data, out=tmp_path / "b", k=1, progress=False))["paths"]["json"]
    result = compare(a, b, tmp_path / "cmp")
    rows = {r["metric"]: r for r in result["metrics"]}
    assert rows["cites_gold"]["delta"] == 0.0
    assert "id_context_recall@5" in rows and rows["id_context_recall@5"]["b"] is None
    assert Path(result["plot"]).read_bytes()[:4] == b"\x89PNG"


def test_the_command_runs_reports_and_names_a_malformed_line(tmp_path: Path) -> None:
    shutil.copytree(SAMPLE_VAULTS / "life", tmp_path / "life")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "ok"}\n{"question": 3}\n', encoding="utf-8")
    proc = rag(tmp_path, "eval", "qa", str(bad), code=2)
    assert "line 2: question" in proc.stderr
    rag(tmp_path, "ingest", str(tmp_path / "life"), "--json")
    data = dataset(tmp_path, TINY[:1])
    summary = json.loads(rag(tmp_path, "eval", "qa", str(data), "--json").stdout)
    assert summary["aggregate"]["metrics"]["cites_gold"]["mean"] == 1.0
    assert Path(summary["files"]["markdown"]).is_file() and Path(summary["files"]["plot:latency"]).is_file()


def test_the_sample_vault_set_runs_end_to_end(store: Components, tmp_path: Path) -> None:
    """The README's evaluation example: every question of evals/data/vault_qa.jsonl answered and scored."""
    data = REPO / "evals" / "data" / "vault_qa.jsonl"
    out = report(store, RunOptions(dataset=data, out=tmp_path / "vault", progress=False))
    agg = out["aggregate"]
    assert agg["questions"] == 46 and agg["failed"] == 0
    assert {s["extra"]["lang"] for s in out["samples"]} == {"ja", "en"}
    assert agg["metrics"]["id_context_recall@5"]["mean"] == 1.0  # every gold note retrieved in the top 5
    assert agg["metrics"]["cites_gold"]["n"] == 40 and agg["metrics"]["declined_correctly"]["n"] == 46
    by_id = {s["id"]: s for s in out["samples"]}
    assert by_id["fu-miso-boil"]["metrics"]["span_in_answer"] == 1.0  # a follow-up, answered in its thread
    assert by_id["filt-double-fry"]["metrics"]["cites_gold"] == 1.0  # a filtered question
    assert by_id["un-sapporo"]["declined"] and by_id["un-quantum"]["declined"]
    # issue 16's target: every answerable question cites its gold note, every other one is declined
    assert agg["metrics"]["cites_gold"]["mean"] == 1.0 and agg["metrics"]["declined_correctly"]["mean"] == 1.0
    # a note that only links to the meeting note is not the answer: the meeting note is
    assert "Convenience Store Woman" in by_id["en-book-club-book"]["answer"]
    # the goal for the 2026 marathon, in a note about 2025's half marathon, is no finish time
    assert by_id["un-full-marathon"]["declined"]
