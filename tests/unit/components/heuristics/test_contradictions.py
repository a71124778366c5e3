"""Different values for the same thing in two documents: quantities read in English and Japanese,
look-alikes (another subject, another unit, the same value reworded) left alone."""

from __future__ import annotations

import pytest

from components.heuristics.contradictions import contradicting, find, quantities
from components.text.tokenizer import Tokenizer


@pytest.fixture(scope="module")
def tok() -> Tokenizer:
    return Tokenizer()


def test_quantities_are_read_with_their_units_in_both_languages() -> None:
    assert [(q.value, q.unit) for q in quantities("It costs 8,000 yen and takes 2 hours, from 15:00.")] == [
        (15.0, "o'clock"),
        (8000.0, "yen"),
        (2.0, "hour"),
    ]
    assert [(q.value, q.unit) for q in quantities("だし150mlあたり大さじ1、8時間、3冊")] == [
        (1.0, "大さじ"),
        (150.0, "ml"),
        (8.0, "hour"),
        (3.0, "book"),
    ]
    assert quantities("Version v2 of the API") == []


def test_a_revision_with_another_value_contradicts_and_look_alikes_do_not(tok: Tokenizer) -> None:
    old = "Miso the cat gets 80 grams of dry food a day."
    assert contradicting(old, "Miso the cat gets 70 grams of dry food a day now, since the vet said so.", tok) == (
        "g",
        "80 grams",
        "70 grams",
    )
    assert contradicting(old, "Kuro the dog gets 300 grams of dry food a day.", tok) is None  # another subject
    assert contradicting(old, "Each day Miso the cat eats 80 grams of dry food.", tok) is None  # the same value
    assert contradicting("基盤チームのエンジニアは7人。", "基盤チームのデザイナーは2人。", tok) is None
    fee = contradicting("ジムの月会費は8000円です。", "ジムの月会費は9500円です。", tok)
    assert fee == ("yen", "8000 円", "9500 円")


def test_each_pair_of_documents_is_named_once(tok: Tokenizer) -> None:
    docs = [
        ("2024 note", ["Miso the cat gets 80 grams of dry food a day.", "The vet is on Main Street."]),
        ("2026 note", ["Miso the cat gets 70 grams of dry food a day.", "Miso the cat gets 70 grams of dry food."]),
        ("other", ["Water the basil with 200 ml every morning."]),
    ]
    found = find(docs, tok)
    assert [(f.first, f.second, f.first_value, f.second_value) for f in found] == [
        ("2024 note", "2026 note", "80 grams", "70 grams")
    ]
