"""The graphs as `langgraph dev` serves them (Studio, chat front ends), driven by `langgraph_sdk`.

A real API server in a subprocess, pointed at a temporary store: the ``ingest`` graph fills
it, then the ``rag`` graph answers in a server-side thread (the server's own checkpointer),
once waited for and once streamed. The server is the only process that opens the store
(Qdrant local mode locks its folder per process).
"""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from collections.abc import Iterator
from typing import Any

import httpx
import jwt
import pytest
from langgraph_sdk import get_client

from evals.process import LANGGRAPH_CLI, LangGraphDev
from tests.conftest import SAMPLE_VAULTS
from tests.integration.helpers import env_for

pytestmark = [pytest.mark.integration, pytest.mark.slow]

READY_TIMEOUT = 120.0
MONSTERA = "When should I water the monstera?"
ALICE = "alice-token-0123456789abcdef"
"""An API token from the server's token file: alice of tenant acme, no access groups, who reviews feedback."""
JWT_SECRET = "a-shared-secret-of-32-bytes-or-more!"
SALARY = "The 2026 salary bands for engineers range from 9 to 14 million yen."


def jwt_for(user: str, groups: list[str], *, tenant: str = "acme", expires_in: int = 600) -> str:
    """A JWT signed with the server's shared secret, as an identity provider would issue it."""
    claims = {"sub": user, "tenant": tenant, "groups": groups, "exp": int(time.time()) + expires_in}
    return jwt.encode(claims, JWT_SECRET, algorithm="HS256")


def as_user(url: str, token: str | None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    return get_client(url=url, timeout=300.0, headers=headers)


MISO = "味噌汁で味噌を入れるタイミングは？"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LangGraphDev]:
    """``langgraph dev`` on a free port, run from a temp folder; its process group is stopped at the end."""
    if not LANGGRAPH_CLI.exists():
        pytest.skip(f"{LANGGRAPH_CLI} is missing: install with `pip install -e '.[dev]'`")
    root = tmp_path_factory.mktemp("lg-server")
    tokens = root / "tokens.json"
    tokens.write_text(json.dumps({ALICE: {"user": "alice", "tenant": "acme", "roles": ["reviewer"]}}), encoding="utf-8")
    env = {**env_for(root), "AUTH_TOKENS_FILE": str(tokens), "AUTH_JWT_SECRET": JWT_SECRET}
    dev = LangGraphDev(root, env)
    try:
        dev.wait_ready(READY_TIMEOUT)
        yield dev
    finally:
        dev.stop()


async def thread_messages(client: Any, thread_id: str) -> list[dict[str, Any]]:
    """The thread's messages as the server's checkpointer holds them (what a chat UI shows)."""
    state: Any = await client.threads.get_state(thread_id)
    return list(state["values"].get("messages") or [])


def test_ingest_then_ask_wait_and_stream_in_one_thread(server: LangGraphDev) -> None:
    url, root = server.url, server.root
    shutil.copytree(SAMPLE_VAULTS / "life", root / "life")
    (root / "life" / "Salary bands.md").write_text(
        f"---\naccess: [hr]\n---\n# Salary bands 2026\n\n{SALARY}\n", encoding="utf-8"
    )

    async def scenario() -> None:
        client = as_user(url, ALICE)
        assert {a["graph_id"] for a in await client.assistants.search()} >= {"rag", "ingest"}

        paths: Any = [str(root / "life")]
        ingested = await client.runs.wait(None, "ingest", input={"paths": paths})
        assert isinstance(ingested, dict), ingested
        assert ingested["failures"] == [] and ingested["documents"] == 11 and ingested["written_chunks"] > 0

        thread = await client.threads.create()
        tid = thread["thread_id"]
        first = await client.runs.wait(tid, "rag", input={"question": MONSTERA})
        assert isinstance(first, dict) and "error" not in first, f"{first}\n{server.tail()}"
        assert "5 cm" in first["answer"] and "[1]" in first["answer"]
        assert first["sources"][0]["title"] == "Monstera Care" and first["path"] == "extractive"
        messages = await thread_messages(client, tid)
        assert [m["type"] for m in messages] == ["human", "ai"]
        assert messages[1]["content"] == first["answer"]

        events: list[str] = []
        values: list[dict[str, Any]] = []
        async for part in client.runs.stream(tid, "rag", input={"question": MISO}, stream_mode=["messages", "values"]):
            events.append(part.event)
            assert part.event != "error", f"{part.data}\n{server.tail()}"
            if part.event == "values":
                values.append(part.data)
        assert len(values) > 3, f"state should arrive after each step, got events {events}"
        final = values[-1]
        assert "火を止め" in final["answer"] and final["sources"][0]["title"] == "味噌汁"
        assert any(e.startswith("messages") for e in events), events
        messages = await thread_messages(client, tid)
        assert [m["type"] for m in messages] == ["human", "ai", "human", "ai"]
        assert [m["content"] for m in messages[::2]] == [MONSTERA, MISO]

        # a question that only states conditions lists the notes that meet them (none the caller may not see)
        listing = await client.runs.wait(None, "rag", input={"question": "2025年に書いた #料理 のメモは？"})
        assert isinstance(listing, dict) and listing["route"] == "metadata_search", listing
        assert [s["title"] for s in listing["sources"]] == ["Karaage"] and "Karaage" in listing["answer"]
        vault = await client.runs.wait(None, "rag", input={"question": "Show me everything in my life vault"})
        assert isinstance(vault, dict) and vault["route"] == "metadata_search", vault
        assert len(vault["sources"]) == 10 and "Salary" not in vault["answer"]  # 11 documents, one for hr only

        # a chat app's verdict on the last answer, through the feedback route beside the graphs
        bearer = {"Authorization": f"Bearer {ALICE}"}
        async with httpx.AsyncClient(base_url=url, timeout=60, headers=bearer) as http:
            posted = await http.post("/feedback", json={"thread_id": tid, "verdict": "bad", "reason": "too long"})
            assert posted.status_code == 201, f"{posted.text}\n{server.tail()}"
            record = posted.json()
            assert record["question"] == MISO and record["answer"] == final["answer"] and record["id"] == 1
            assert record["request_id"] == final["request_id"] and record["checkpoint_id"]
            listed = (await http.get("/feedback", params={"verdict": "bad"})).json()
            assert [r["id"] for r in listed] == [1] and listed[0]["stale"] is False
            missing = await http.post(
                "/feedback", json={"thread_id": "00000000-0000-0000-0000-000000000000", "verdict": "good"}
            )
            assert missing.status_code == 404 and "error" in missing.json()
            assert (await http.post("/feedback", json={"thread_id": tid, "verdict": "meh"})).status_code == 400
            bad_limit = await http.get("/feedback", params={"limit": "abc"})
            assert bad_limit.status_code == 400 and "whole number" in bad_limit.json()["error"], bad_limit.text
            assert "invalid literal" not in bad_limit.text

        # a bad request is told why, as the CLI tells it, not "An internal error occurred"
        for payload, reason in [
            ({"filters": {"where": [{"key": "access", "value": "hr"}]}}, "'access' cannot be filtered on"),
            ({"similar_to": "no-such-doc"}, "No document with id 'no-such-doc'"),
        ]:
            with pytest.raises(Exception) as refused:  # langgraph_sdk raises the run's error as it is
                await client.runs.wait(None, "rag", input={"mode": "search", "question": "x", **payload})
            assert reason in str(refused.value) and "internal error" not in str(refused.value), str(refused.value)

    asyncio.run(scenario())


def test_the_server_decides_who_calls_and_what_they_see(server: LangGraphDev) -> None:
    """As an attacker would: no credential, a forged one, claimed groups (in the context, in
    config.configurable, in an assistant's defaults, in a feedback body), another user's thread
    and store items. Runs after the scenario above, which ingested the vault and an HR note."""
    url = server.url
    bob = jwt_for("bob", ["hr"])  # a member of hr, through a JWT

    async def scenario() -> None:
        alice = as_user(url, ALICE)
        search = {"mode": "search", "question": "salary bands for engineers", "top_k": 10, "min_score": 0}

        # no credential, an unknown token, a JWT signed with another secret, an expired one: 401
        forged = jwt.encode({"sub": "bob", "groups": ["hr"], "exp": int(time.time()) + 600}, "x" * 40, "HS256")
        for token in (None, "not-a-token-at-all-0000", forged, jwt_for("bob", ["hr"], expires_in=-10)):
            with pytest.raises(httpx.HTTPStatusError) as refused:
                await as_user(url, token).assistants.search()
            assert refused.value.response.status_code == 401, token

        # claiming a group the credential does not hold: 403 with the reason, wherever it is claimed
        for kwargs in ({"context": {"access_groups": ["hr"]}}, {"config": {"configurable": {"access_groups": ["hr"]}}}):
            with pytest.raises(httpx.HTTPStatusError) as refused:
                await alice.runs.wait(None, "rag", input=search, **kwargs)
            assert refused.value.response.status_code == 403
            assert "access groups ['hr'] this credential does not hold" in refused.value.response.text
        with pytest.raises(httpx.HTTPStatusError) as refused:
            await alice.assistants.create("rag", context={"access_groups": ["hr"]})
        assert refused.value.response.status_code == 403

        # what each sees is decided by the credential: alice never gets the HR note, bob does
        seen = await alice.runs.wait(None, "rag", input=search)
        assert isinstance(seen, dict) and SALARY not in json.dumps(seen, ensure_ascii=False), f"{seen}\n{server.tail()}"
        member = await as_user(url, bob).runs.wait(None, "rag", input=search)
        assert isinstance(member, dict) and "Salary bands 2026" in {r["title"] for r in member["results"]}

        # no oracle through the API's filters: a guess only the HR note holds is told exactly as
        # one nobody holds (the label repeats the guess; it is taken out before comparing)
        told = {}
        for guess in ("9 to 14 million", "8 to 15 million"):
            where = {"where": [{"key": "text", "op": "contains", "value": guess}]}
            out = await alice.runs.wait(None, "rag", input={**search, "filters": where})
            assert isinstance(out, dict) and out["results"] == [], out
            told[guess] = [w.replace(guess, "GUESS") for w in out["warnings"]]
        assert told["9 to 14 million"] == told["8 to 15 million"], told

        # threads belong to their owner: alice can neither list, read nor continue bob's
        bobs = await as_user(url, bob).threads.create()
        await as_user(url, bob).runs.wait(bobs["thread_id"], "rag", input={"question": "What are the salary bands?"})
        assert bobs["thread_id"] not in {t["thread_id"] for t in await alice.threads.search(limit=100)}
        for attempt in (
            alice.threads.get_state(bobs["thread_id"]),
            alice.threads.get_history(bobs["thread_id"]),
            alice.runs.wait(bobs["thread_id"], "rag", input={"question": "And the bands again?"}),
        ):
            with pytest.raises(httpx.HTTPStatusError) as refused:
                await attempt
            assert refused.value.response.status_code in (403, 404)

        # a credential that no longer holds hr: bob's thread, which holds a restricted turn, is out
        # of reach (not listed, not readable, not continued) until bob holds hr again
        bob_without_hr = as_user(url, jwt_for("bob", []))
        assert bobs["thread_id"] not in {t["thread_id"] for t in await bob_without_hr.threads.search(limit=100)}
        for attempt in (
            bob_without_hr.threads.get_state(bobs["thread_id"]),
            bob_without_hr.runs.wait(bobs["thread_id"], "rag", input={"question": "And the bands again?"}),
        ):
            with pytest.raises(httpx.HTTPStatusError) as refused:
                await attempt
            assert refused.value.response.status_code in (403, 404)
        again = await as_user(url, jwt_for("bob", ["hr"])).threads.get_state(bobs["thread_id"])
        assert "salary" in json.dumps(again["values"], ensure_ascii=False).lower()

        # the store's items live under their owner: bob can neither read nor overwrite what alice put
        await alice.store.put_item(["profiles"], "prefs", {"language": "ja"})
        await as_user(url, bob).store.put_item(["alice", "profiles"], "prefs", {"language": "en"})
        assert (await alice.store.get_item(["profiles"], "prefs"))["value"] == {"language": "ja"}
        try:
            leaked = await as_user(url, bob).store.get_item(["profiles"], "prefs")
        except httpx.HTTPStatusError as e:
            assert e.response.status_code == 404
        else:
            assert leaked is None, leaked
        # naming alice's namespace reaches bob's own (his write above), never alice's item
        found = await as_user(url, bob).store.search_items(["alice"])
        assert [(i["namespace"], i["value"]) for i in found["items"]] == [
            (["bob", "alice", "profiles"], {"language": "en"})
        ], found

        # feedback: the verdict's author is the credential's, never the body's claim
        async with httpx.AsyncClient(base_url=url, timeout=60) as http:
            anonymous = await http.get("/feedback")
            assert anonymous.status_code in (401, 403), anonymous.text
            claimed = await http.post(
                "/feedback",
                json={"thread_id": bobs["thread_id"], "verdict": "good", "access_groups": ["hr"]},
                headers={"Authorization": f"Bearer {ALICE}"},
            )
            assert claimed.status_code == 403, claimed.text
            # on another user's thread, even without a claim: as if the thread did not exist
            foreign = await http.post(
                "/feedback",
                json={"thread_id": bobs["thread_id"], "verdict": "good"},
                headers={"Authorization": f"Bearer {ALICE}"},
            )
            assert foreign.status_code == 404, foreign.text
            # listing every user's feedback needs the reviewer role
            listed = await http.get("/feedback", headers={"Authorization": f"Bearer {bob}"})
            assert listed.status_code == 403 and "reviewer" in listed.text, listed.text

    asyncio.run(scenario())
