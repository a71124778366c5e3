"""Parent documents: sections rebuilt from overlapping chunks, budgets honoured, hits merged."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from components.ingestion.chunker import chunk_section, stitch_parent
from components.retrieval.parents import Passage, expand_to_parents
from components.text.language import estimate_tokens
from components.text.sentences import split_sentences

EN = (
    "Monstera likes bright, indirect light. Direct sun scorches the leaves within days. "
    "Water when the top three centimetres of soil are dry.\n\n"
    "In winter, water half as often. Yellow leaves usually mean too much water! "
    "Brown, crispy edges mean too little? Repot every two years in spring.\n"
    "Use a chunky mix of bark, perlite and peat. Wipe the leaves monthly so they can breathe. "
    "Aerial roots may be tucked into the pot or left alone. Support tall plants with a moss pole."
)
JA = (
    "味噌汁は出汁が決め手です。昆布は水から入れて、沸騰直前に取り出します。"
    "かつお節は沸騰したら入れ、一分ほどで火を止めます。\n"
    "具材は火の通りにくいものから入れます。豆腐は最後に加えます！"
    "味噌は火を止めてから溶き入れます。沸騰させると香りが飛びます。"
    "「煮えばな」を狙うのがコツです。\n\n"
    "赤味噌と白味噌を合わせると味に奥行きが出ます。季節の野菜を使うと楽しいでしょう？"
)


def chunks_of(text: str, parent_id: str, *, size: int, overlap: int, doc_id: str = "doc") -> list[dict[str, Any]]:
    """Payloads exactly as ingestion stores them (stripped text, offsets of the unstripped span)."""
    out = []
    for i, (s, e) in enumerate(chunk_section(text, size, overlap)):
        out.append(
            {
                "text": text[s:e].strip(),
                "chunk_id": f"{doc_id}:{i}",
                "chunk_index": i,
                "doc_id": doc_id,
                "parent_id": parent_id,
                "parent_start": s,
                "parent_end": e,
                "source": f"notes/{doc_id}.md",
                "title": doc_id.title(),
                "section_hierarchy": ["Care", parent_id.rsplit("/", 1)[-1]],
            }
        )
    return out


@pytest.mark.parametrize("text", [EN, JA], ids=["en", "ja"])
@pytest.mark.parametrize(("size", "overlap"), [(60, 25), (90, 40), (120, 60), (80, 0), (150, 50)])
def test_stitching_overlapping_chunks_gives_the_section_back(text: str, size: int, overlap: int) -> None:
    chunks = chunks_of(text, "doc#/Care/Water", size=size, overlap=overlap)
    assert len(chunks) > 1
    shuffled = chunks[:]
    random.Random(size).shuffle(shuffled)
    stitched = stitch_parent(shuffled)
    if all(c["parent_start"] < p["parent_end"] for p, c in itertools.pairwise(chunks)):
        assert stitched == text
    else:  # where two chunks do not overlap, the whitespace between them is only known by its length
        assert stitched.split() == text.split()
        assert len(stitched) == len(text)


def test_chunks_that_all_overlap_give_the_exact_text() -> None:
    for text, size, overlap in [(EN, 120, 60), (JA, 60, 30)]:
        chunks = chunks_of(text, "p", size=size, overlap=overlap)
        assert all(c["parent_start"] < p["parent_end"] for p, c in itertools.pairwise(chunks))
        assert stitch_parent(chunks) == text


def test_a_missing_chunk_is_marked_not_invented() -> None:
    chunks = chunks_of(EN, "doc#/Care/Water", size=100, overlap=0)
    assert len(chunks) >= 4
    stitched = stitch_parent([c for c in chunks if c["chunk_index"] != 2])
    assert chunks[2]["text"] not in stitched
    assert "…" in stitched
    assert stitched.startswith(chunks[0]["text"]) and stitched.endswith(chunks[-1]["text"])


def test_stitching_nothing_is_empty() -> None:
    assert stitch_parent([]) == ""


class Store:
    """Chunk payloads by parent id, answering like QdrantIndex.chunks_by_parent."""

    def __init__(self, *sections: list[dict[str, Any]]) -> None:
        self.payloads = [c for s in sections for c in s]
        self.calls: list[list[str]] = []

    def fetch(self, parent_ids: list[str]) -> list[dict[str, Any]]:
        self.calls.append(list(parent_ids))
        return [c for c in self.payloads if c["parent_id"] in parent_ids]


def hit(chunk: dict[str, Any], score: float) -> dict[str, Any]:
    return {**chunk, "score": score}


WATER = chunks_of(EN, "plants#/Care/Water", size=120, overlap=40, doc_id="plants")
MISO = chunks_of(JA, "miso#/Care/Miso", size=80, overlap=30, doc_id="miso")


def test_a_parent_that_fits_comes_whole_and_hits_of_one_parent_merge() -> None:
    store = Store(WATER, MISO)
    results = [hit(WATER[2], 0.9), hit(MISO[1], 0.8), hit(WATER[0], 0.7)]
    out = expand_to_parents(results, store.fetch, budget_tokens=3000)
    assert [p.n for p in out] == [1, 2]
    first, second = out
    assert first.text == EN and first.extent == "parent"
    assert first.chunk_ids == [WATER[2]["chunk_id"], WATER[0]["chunk_id"]]
    assert first.score == 0.9
    assert (first.doc_id, first.source, first.title, first.section) == (
        "plants",
        "notes/plants.md",
        "Plants",
        "Care > Water",
    )
    assert second.text == JA and second.parent_id == "miso#/Care/Miso"
    assert store.calls == [["plants#/Care/Water", "miso#/Care/Miso"]]  # one round trip


def test_a_parent_too_big_for_the_budget_gives_a_window_of_whole_sentences_around_the_hit() -> None:
    target = WATER[3]
    budget = estimate_tokens(EN) // 2
    out = expand_to_parents([hit(target, 0.9)], Store(WATER).fetch, budget_tokens=budget)
    (p,) = out
    assert p.extent == "window"
    assert target["text"] in p.text
    assert len(p.text) > len(target["text"])
    assert estimate_tokens(p.text) <= budget
    sentences = [s.strip() for s in split_sentences(EN)]
    assert any(p.text.startswith(s) for s in sentences)  # cut at a sentence start ...
    assert any(p.text.endswith(s) for s in sentences)  # ... and a sentence end


def test_when_the_budget_is_spent_expansion_stops_but_the_first_passage_is_kept() -> None:
    store = Store(WATER, MISO)
    results = [hit(WATER[1], 0.9), hit(MISO[0], 0.8)]
    whole = estimate_tokens(EN)
    out = expand_to_parents(results, store.fetch, budget_tokens=whole)
    assert [p.extent for p in out] == ["parent"]  # nothing left for the second parent
    tiny = expand_to_parents(results, store.fetch, budget_tokens=1)
    assert [(p.n, p.text, p.extent) for p in tiny] == [(1, WATER[1]["text"], "chunk")]


def test_the_chunk_alone_when_no_window_fits_but_the_chunk_does() -> None:
    # one long sentence holds the hit: no sentence-aligned window is smaller than the section
    text = "Intro. " + "word " * 60 + "end of the long sentence. Outro."
    chunks = chunks_of(text, "d#/S", size=120, overlap=30, doc_id="d")
    target = next(c for c in chunks if "word word" in c["text"])
    budget = estimate_tokens(target["text"]) + 1
    (p,) = expand_to_parents([hit(target, 1.0)], Store(chunks).fetch, budget_tokens=budget)
    assert (p.text, p.extent) == (target["text"], "chunk")


def test_results_without_a_parent_stay_chunks_and_are_not_fetched() -> None:
    store = Store(WATER)
    loose = {"text": "A web page's extract.", "chunk_id": "web:1", "doc_id": "web", "score": 0.5}
    out = expand_to_parents([loose, hit(WATER[0], 0.4)], store.fetch, budget_tokens=3000)
    assert [(p.n, p.extent, p.parent_id) for p in out] == [(1, "chunk", None), (2, "parent", "plants#/Care/Water")]
    assert out[0].text == "A web page's extract."
    assert store.calls == [["plants#/Care/Water"]]
    assert expand_to_parents([loose], store.fetch) == [Passage(**{**out[0].model_dump()})]
    assert len(store.calls) == 1


def test_a_parent_gone_from_the_store_falls_back_to_its_chunk() -> None:
    out = expand_to_parents([hit(WATER[1], 0.9)], Store().fetch, budget_tokens=3000)
    assert [(p.text, p.extent) for p in out] == [(WATER[1]["text"], "chunk")]


def test_a_custom_token_counter_drives_the_budget() -> None:
    chars = len
    out = expand_to_parents([hit(MISO[2], 0.9)], Store(MISO).fetch, budget_tokens=len(JA) - 1, count_tokens=chars)
    (p,) = out
    assert p.extent == "window" and len(p.text) <= len(JA) - 1 and MISO[2]["text"] in p.text


def test_budget_must_be_positive() -> None:
    with pytest.raises(ValueError):
        expand_to_parents([], Store().fetch, budget_tokens=0)
