"""Feedback on answers: stored with the answer as the user saw it, redacted, marked when the index
moves on, exported as a golden set the evaluation runner reads; through Python and the CLI."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from components.factory import Components
from components.stores.feedback import FeedbackError
from evals.qa_dataset import load_qa
from graph.context import Context
from graph.feedback import give_feedback, golden_lines, review
from graph.threads import open_rag_graph
from tests.conftest import SAMPLE_VAULTS
from tests.fakes.ollama_server import Behaviour, ollama_server
from tests.integration.helpers import ingest, sample_store, with_llm_server
from tests.integration.test_cli_ask import MISO, MONSTERA, rag
from tests.integration.test_qa_ollama import reply

pytestmark = pytest.mark.integration


@pytest.fixture()
def store(tmp_path: Path) -> Iterator[tuple[Components, Path]]:
    c, vaults = sample_store(tmp_path)
    yield c, vaults
    c.close()


def run(c: Components, steps: Any) -> Any:
    async def main() -> Any:
        async with open_rag_graph(c) as graph:
            return await steps(graph)

    return asyncio.run(main())


def ask(graph: Any, thread: str, question: str) -> Any:
    return graph.ainvoke({"question": question}, {"configurable": {"thread_id": thread}})


def test_a_verdict_keeps_the_answer_redacts_the_reason_and_exports_as_a_golden_line(
    store: tuple[Components, Path], tmp_path: Path
) -> None:
    c, vaults = store

    async def steps(graph: Any) -> tuple[dict[str, Any], Any]:
        out = await ask(graph, "t1", MONSTERA)
        reason = "Wrong: Sarah Connor says water weekly, call her on 090-1234-5678"
        return out, await give_feedback(graph, c, "t1", "bad", reason)

    out, record = run(c, steps)
    assert record.id == 1 and record.verdict == "bad" and record.question == MONSTERA
    assert record.answer == out["answer"] and record.request_id == out["request_id"]
    assert (
        record.checkpoint_id and record.sources and record.contexts and len(record.contexts) == len(record.context_ids)
    )
    assert "090-1234-5678" not in record.reason and "<PHONE_NUMBER>" in record.reason
    assert "Sarah Connor" not in record.reason and record.reason.startswith("Wrong:")
    [listed] = review(c, c.feedback.list("bad"))
    assert listed["stale"] is False and listed["index_version"] == listed["current_index_version"]

    # the corpus moves on: the verdict stays, marked as being about an older index
    note = vaults / "life" / "Monstera Care.md"
    note.write_text(note.read_text(encoding="utf-8") + "\n\nUpdate: water less in winter.\n", encoding="utf-8")
    ingest(c, vaults)
    [after] = review(c, c.feedback.list())
    assert after["stale"] is True and after["reason"] == record.reason

    # the golden line is input the evaluation runner reads; the reference waits for a reviewer
    golden = tmp_path / "golden.jsonl"
    golden.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in golden_lines([after])), "utf-8")
    [sample] = load_qa(golden)
    assert sample.question == MONSTERA and sample.ground_truth == "" and sample.id == "feedback-1"
    assert sample.extra["bad_answer"] == out["answer"] and sample.extra["stale"] is True


def test_feedback_names_the_answer_of_a_checkpoint_and_refuses_what_it_cannot_tie(
    store: tuple[Components, Path],
) -> None:
    c, _ = store

    async def steps(graph: Any) -> Any:
        await ask(graph, "t2", MISO)
        first = (await graph.aget_state({"configurable": {"thread_id": "t2"}})).config["configurable"]["checkpoint_id"]
        await ask(graph, "t2", MONSTERA)
        older = await give_feedback(graph, c, "t2", "good", checkpoint_id=first)
        latest = await give_feedback(graph, c, "t2", "good")
        with pytest.raises(FeedbackError, match="no answer in thread 'nope'"):
            await give_feedback(graph, c, "nope", "bad")
        with pytest.raises(FeedbackError, match="'good' or 'bad'"):
            await give_feedback(graph, c, "t2", "meh")
        return older, latest

    older, latest = run(c, steps)
    assert older.question == MISO and latest.question == MONSTERA
    assert older.checkpoint_id != latest.checkpoint_id
    assert [r.id for r in c.feedback.list("good")] == [latest.id, older.id]


def test_the_command_gives_lists_and_exports_feedback(tmp_path: Path) -> None:
    shutil.copytree(SAMPLE_VAULTS / "life", tmp_path / "life")
    rag(tmp_path, "ingest", str(tmp_path / "life"), "--json")
    answer = json.loads(rag(tmp_path, "ask", MONSTERA, "--json").stdout)
    tid = answer["thread_id"]
    given = json.loads(rag(tmp_path, "feedback", tid, "bad", "--reason", "too vague", "--json").stdout)
    assert given["thread_id"] == tid and given["reason"] == "too vague"
    listed = json.loads(rag(tmp_path, "feedback", "list", "--bad", "--json").stdout)
    assert [r["id"] for r in listed] == [given["id"]] and listed[0]["stale"] is False
    exported = json.loads(rag(tmp_path, "feedback", "export", "--bad", str(tmp_path / "golden.jsonl")).stdout)
    assert exported["exported"] == 1
    [line] = [json.loads(x) for x in (tmp_path / "golden.jsonl").read_text(encoding="utf-8").splitlines()]
    assert line["question"] == MONSTERA and line["bad_answer"] == answer["answer"] and line["reason"] == "too vague"
    unknown = rag(tmp_path, "feedback", "no-such-thread", "good", code=1)
    assert "no answer in thread 'no-such-thread'" in unknown.stderr
    rag(tmp_path, "feedback", tid, "meh", code=2)


def generator_prompts(behaviour: Behaviour, since: int) -> list[str]:
    """System prompts of the plain (answer) calls the test server received after request ``since``."""
    calls = behaviour.chat_requests[since:]
    return [str(p["messages"][0]["content"]) for p in calls if not isinstance(p.get("format"), dict)]


def test_good_answers_become_examples_for_the_same_audience_and_say_so(store: tuple[Components, Path]) -> None:
    base, _ = store
    with ollama_server(Behaviour(chat_handler=reply)) as (url, behaviour):
        c = with_llm_server(base, url)
        alice, bob = Context(user_id="alice", cache=False), Context(user_id="bob", cache=False)

        async def steps(graph: Any) -> dict[str, Any]:
            def ask_as(ctx: Context, thread: str, question: str) -> Any:
                return graph.ainvoke({"question": question}, {"configurable": {"thread_id": thread}}, context=ctx)

            first = await ask_as(alice, "a1", MONSTERA)
            good = await give_feedback(graph, c, "a1", "good", "clear and short", context=alice)
            n = len(behaviour.chat_requests)
            similar = await ask_as(alice, "a2", "When do I need to water my monstera?")
            shown = generator_prompts(behaviour, n)
            n = len(behaviour.chat_requests)
            other_user = await ask_as(bob, "b1", "When do I need to water my monstera?")
            not_shown = generator_prompts(behaviour, n)
            unrelated = await ask_as(alice, "a3", MISO)
            return {
                "first": first,
                "good": good,
                "similar": similar,
                "shown": shown,
                "other": other_user,
                "not_shown": not_shown,
                "unrelated": unrelated,
            }

        r = run(c, steps)
    assert r["first"]["path"] == "llm" and r["first"]["examples"] == []
    [used] = r["similar"]["examples"]
    assert used["feedback_id"] == r["good"].id and used["question"] == MONSTERA and used["similarity"] >= 0.9
    assert r["shown"] and "Answers users rated good" in r["shown"][-1] and f"Q: {MONSTERA}" in r["shown"][-1]
    assert r["first"]["answer"].replace(" [1]", "") in r["shown"][-1]  # the example's answer, citations removed
    # another user (another audience) is never shown alice's examples; an unrelated question gets none
    assert r["other"]["examples"] == [] and not any("rated good" in p for p in r["not_shown"])
    assert r["unrelated"]["examples"] == []
