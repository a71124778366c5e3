"""Personal data: found with offsets into the original text, in Japanese and English forms; look-alikes are not."""

from __future__ import annotations

import pytest

from guardrails import find_pii
from guardrails.patterns import luhn_ok, my_number_ok

PII_CASES = [
    ("Mail me at taro.yamada+rag@example.co.jp please", "EMAIL_ADDRESS", "taro.yamada+rag@example.co.jp"),
    ("携帯は090-1234-5678です", "PHONE_NUMBER", "090-1234-5678"),
    ("携帯は０９０－１２３４－５６７８です", "PHONE_NUMBER", "０９０－１２３４－５６７８"),
    ("会社 03-1234-5678 まで", "PHONE_NUMBER", "03-1234-5678"),
    ("call +81 90-1234-5678 now", "PHONE_NUMBER", "+81 90-1234-5678"),
    ("call +1 415 555 0132 now", "PHONE_NUMBER", "+1 415 555 0132"),
    ("US office (415) 555-0132.", "PHONE_NUMBER", "(415) 555-0132"),
    ("番号 09012345678 に", "PHONE_NUMBER", "09012345678"),
    ("card 4111 1111 1111 1111 exp 12/29", "CREDIT_CARD", "4111 1111 1111 1111"),
    ("card 4111-1111-1111-1111", "CREDIT_CARD", "4111-1111-1111-1111"),
    ("amex 378282246310005", "CREDIT_CARD", "378282246310005"),
    ("マイナンバーは123456789011です", "JP_MY_NUMBER", "123456789011"),
    ("マイナンバー 1234 5678 9011", "JP_MY_NUMBER", "1234 5678 9011"),
    ("server at 192.168.10.254 is down", "IP_ADDRESS", "192.168.10.254"),
    ("住所は〒100-0001 東京都千代田区", "JP_POSTAL_CODE", "〒100-0001"),
]


@pytest.mark.parametrize(("text", "kind", "value"), PII_CASES)
def test_pii_is_found_with_offsets_into_the_original(text: str, kind: str, value: str) -> None:
    found = find_pii(text)
    assert [(m.kind, text[m.start : m.end]) for m in found] == [(kind, value)]


NOT_PII = [
    "card 4111 1111 1111 1112",  # fails Luhn
    "マイナンバーは123456789012です",  # wrong check digit
    "order 2024-01-15 at 10:30",
    "version 1.2.3 and 3.14159",
    "郵便番号は 100-0001",  # postal codes only after 〒
    "999.1.1.1 is not an address",
    "see arXiv 2310.12345 and doi 10.1000/182",
    "price ¥12,800",
    "sha 9f86d081884c7d659a2feaa0c55ad015",
]


@pytest.mark.parametrize("text", NOT_PII)
def test_lookalikes_are_not_pii(text: str) -> None:
    assert find_pii(text) == []


def test_checksums() -> None:
    assert luhn_ok("4111111111111111") and not luhn_ok("4111111111111112")
    assert my_number_ok("123456789011") and not my_number_ok("123456789012")
    assert not my_number_ok("000000000000")
