"""The ranking policy: a bounded freshness boost for dated documents (near-ties only, undated ones as
they were) and the age limit."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from components.retrieval.policy import age_days, document_date, freshen, too_old

TODAY = date(2026, 11, 27)


def hit(pid: str, score: float, created: str | None = None, **meta: Any) -> Any:
    payload: dict[str, Any] = {"chunk_id": pid, "title": pid, "metadata": meta}
    if created:
        payload["created_ts"] = datetime.fromisoformat(created).replace(tzinfo=UTC).timestamp()
    return {"point_id": pid, "score": score, "payload": payload, "ranks": {}, "scores": {"fused": score}}


def test_a_document_is_dated_by_its_created_date_else_its_records_year() -> None:
    assert document_date(hit("a", 1, "2025-04-20")["payload"]) == date(2025, 4, 20)
    assert document_date(hit("p", 1, year=2020)["payload"]) == date(2020, 1, 1)
    assert document_date(hit("u", 1)["payload"]) is None
    assert age_days(hit("a", 1, "2026-11-20")["payload"], TODAY) == 7
    assert age_days(hit("f", 1, "2027-01-01")["payload"], TODAY) == 0


def test_freshness_breaks_near_ties_toward_the_newer_note_and_never_a_clear_lead() -> None:
    old, new = hit("2024 note", 0.80, "2024-11-27"), hit("2026 note", 0.79, "2026-11-20")
    ranked, made = freshen([old, new, hit("other", 0.2)], boost=0.05, half_life_days=365, today=TODAY)
    assert [h["point_id"] for h in ranked] == ["2026 note", "2024 note", "other"]
    assert [m.chunk_id for m in made] == ["2024 note", "2026 note"] and made[1].boost > made[0].boost
    assert ranked[0]["scores"]["freshness"] == made[1].boost
    clear = hit("clear lead", 0.95, "2020-01-01")
    ranked, _ = freshen([clear, new, hit("other", 0.2)], boost=0.05, half_life_days=365, today=TODAY)
    assert ranked[0]["point_id"] == "clear lead"
    assert old["score"] == 0.80, "the state's records are not changed"


def test_a_newer_document_the_question_is_not_about_gains_nothing_from_a_tie() -> None:
    # fusion gives the top of each phrasing's list the same score: the answer and a newer note
    # that names its subject in passing tie; weighed by their own relevance, the answer stays first
    answer, passing = hit("answer", 1.0, "2024-06-01"), hit("in passing", 1.0, "2026-01-02")
    own = {"answer": 0.95, "in passing": 0.02, "other": 0.5}
    ranked, made = freshen(
        [answer, passing, hit("other", 0.4, "2025-01-01")],
        boost=0.1,
        half_life_days=365,
        today=TODAY,
        relevance=lambda hits: [own[h["point_id"]] for h in hits],
    )
    assert [h["point_id"] for h in ranked][:2] == ["answer", "in passing"]
    boosts = {m.chunk_id: m.boost for m in made}
    assert boosts["answer"] > boosts["in passing"], "the older answer gains more than the newer note in passing"
    unweighed, _ = freshen([answer, passing, hit("other", 0.4)], boost=0.1, half_life_days=365, today=TODAY)
    assert unweighed[0]["point_id"] == "in passing", "without the weight the newer note took the tie"


def test_an_undated_collection_ranks_exactly_as_without_the_policy() -> None:
    undated = [hit("a", 0.5), hit("b", 0.7), hit("c", 0.5)]
    ranked, made = freshen(undated, boost=0.05, half_life_days=365, today=TODAY)
    assert ranked == undated and made == []


def test_too_old_names_dated_documents_past_the_limit_only() -> None:
    hits = [hit("new", 0.9, "2026-10-01"), hit("old", 0.8, "2023-01-01"), hit("undated", 0.7)]
    assert too_old(hits, max_age_days=365, today=TODAY) == [1]
    assert too_old(hits, max_age_days=0, today=TODAY) == []


def test_verdicts_weigh_by_kind_and_age_and_stay_bounded() -> None:
    from components.retrieval.policy import Verdict, by_feedback, feedback_weights

    verdicts = [
        Verdict(("a",), good=False, reason="outdated: the vet changed it", day=TODAY),
        Verdict(("a",), good=False, reason="wrong", day=TODAY),
        Verdict(("b",), good=False, reason="too long", day=TODAY),  # not the sources' fault
        Verdict(("c",), good=True, reason="", day=date(2026, 8, 29)),  # 90 days old: half
    ]
    weights = feedback_weights(verdicts, today=TODAY, half_life_days=90)
    assert weights == {"a": -1.0, "c": 0.25}
    hits = [hit("a", 0.9), hit("x", 0.88), hit("c", 0.5), hit("y", 0.1)]
    for h in hits:
        h["payload"]["doc_id"] = h["point_id"]
    ranked, made = by_feedback(hits, weights, boost=0.1)
    assert [h["point_id"] for h in ranked] == ["x", "a", "c", "y"]
    assert {(m.chunk_id, m.factor) for m in made} == {("a", "feedback"), ("c", "feedback")}


def test_a_hot_collection_wins_near_ties_against_a_cold_one_and_never_a_clear_loss() -> None:
    from components.retrieval.policy import tier_of, tiered

    results = [
        {"collection": "archive", "score": 0.80, "id": "old"},
        {"collection": "notes", "score": 0.78, "id": "new"},
        {"collection": "archive", "score": 0.95, "id": "clear"},
    ]
    tiers = {"archive": tier_of({"tier": "cold"}), "notes": tier_of({})}
    assert tiers == {"archive": "cold", "notes": "hot"}
    assert [r["id"] for r in tiered(results, tiers, margin=0.05)] == ["clear", "new", "old"]
    assert [r["id"] for r in tiered(results, tiers, margin=0.0)] == ["clear", "old", "new"]
