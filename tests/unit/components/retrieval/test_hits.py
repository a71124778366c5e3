"""Candidate lists carry a few payload keys; the chunks a run keeps get their whole payload in one read."""

from __future__ import annotations

from typing import Any

from components.retrieval.hits import LISTED, Hit, hydrate
from components.retrieval.results import of_first_documents


def listed(pid: str, doc: str) -> Hit:
    return Hit(pid, 1.0, {"doc_id": doc, "language": "en"}, {"dense": 1}, {"dense": 0.9})


def test_listed_hits_get_their_payloads_in_one_read_and_keep_their_scores() -> None:
    reads: list[list[str]] = []

    def payloads(ids: list[str]) -> dict[str, dict[str, Any]]:
        reads.append(ids)
        return {i: {"doc_id": "d", "language": "en", "text": f"text of {i}", "title": "T"} for i in ids}

    full = Hit("p0", 0.5, {"doc_id": "d0", "text": "already whole"})
    out = hydrate([listed("p1", "d"), full, listed("p2", "d")], payloads)
    assert reads == [["p1", "p2"]]  # one request, and none for the hit that had its payload
    assert [h.payload.get("text") for h in out] == ["text of p1", "already whole", "text of p2"]
    assert out[0].ranks == {"dense": 1} and out[0].scores == {"dense": 0.9} and out[0].score == 1.0
    assert set(LISTED) <= set(out[0].payload)


def test_nothing_is_read_when_every_hit_is_whole() -> None:
    def never(ids: list[str]) -> dict[str, dict[str, Any]]:
        raise AssertionError("no read expected")

    assert hydrate([Hit("p", 1.0, {"text": "x"})], never)[0].payload == {"text": "x"}


def test_a_hit_the_store_no_longer_holds_stays_as_listed() -> None:
    out = hydrate([listed("gone", "d")], lambda ids: {})
    assert out[0].payload == {"doc_id": "d", "language": "en"}


def test_the_first_documents_keep_every_chunk_of_theirs_in_rank_order() -> None:
    hits = [listed("a1", "A"), listed("b1", "B"), listed("a2", "A"), listed("c1", "C"), listed("b2", "B")]
    kept = of_first_documents(hits, 2, lambda h: h.payload["doc_id"])
    assert [h.point_id for h in kept] == ["a1", "b1", "a2", "b2"]
    assert of_first_documents(hits, 0, lambda h: h.payload["doc_id"]) == []
    assert len(of_first_documents(hits, 10, lambda h: h.payload["doc_id"])) == len(hits)
