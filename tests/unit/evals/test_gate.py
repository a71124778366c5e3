"""The quality gate's verdicts: a figure may sit at most the tolerance below its floor (above, for a ceiling)."""

from __future__ import annotations

from pathlib import Path

from evals import gate


def test_a_figure_within_the_tolerance_passes_and_one_below_it_fails() -> None:
    floors = {"jsquad.ndcg@10": 0.95, "jsquad_qa.span": 0.85, "jsquad_qa.fallback": 0.0}
    measured = {"jsquad.ndcg@10": 0.9401, "jsquad_qa.span": 0.8399, "jsquad_qa.fallback": 0.0145}
    rows = {r["figure"]: r for r in gate.verdicts(measured, floors, 0.01)}
    assert rows["jsquad.ndcg@10"]["passed"]  # 0.0099 below
    assert not rows["jsquad_qa.span"]["passed"]  # 0.0101 below
    assert not rows["jsquad_qa.fallback"]["passed"] and rows["jsquad_qa.fallback"]["ceiling"]  # 0.0145 above


def test_a_floor_whose_figure_was_not_measured_fails() -> None:
    (row,) = gate.verdicts({}, {"scifact.ndcg@10": 0.9}, 0.01)
    assert row["measured"] is None and not row["passed"]


def test_the_check_split_is_by_article_and_the_scifact_part_holds_every_judged_abstract(tmp_path: Path) -> None:
    corpus, qrels, queries = gate.jsquad_corpus(gate.DATA, tmp_path)
    ids = {line.split('"_id": "')[1].split('"')[0] for line in corpus.read_text(encoding="utf-8").splitlines()}
    assert {gate._article(d) for rels in qrels.values() for d in rels} == {gate._article(i) for i in ids}
    assert len(qrels) == 982 and len(queries) == 491
    assert {gate._article(d) for q, _ in queries for d in qrels[q]} == {gate._article(i) for i in ids}
    corpus, qrels, queries = gate.scifact_corpus(gate.DATA, tmp_path)
    held = corpus.read_text(encoding="utf-8")
    assert all(f'"_id": "{d}"' in held for rels in qrels.values() for d in rels)
    assert len(held.splitlines()) == gate.SCIFACT_ABSTRACTS and len(queries) == 203
