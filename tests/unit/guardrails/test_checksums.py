"""Check digits: a payment card's Luhn sum and a My Number's check digit."""

from __future__ import annotations

from guardrails.checksums import luhn_ok, my_number_ok


def test_checksums() -> None:
    assert luhn_ok("4111111111111111") and not luhn_ok("4111111111111112")
    assert my_number_ok("123456789011") and not my_number_ok("123456789012")
    assert not my_number_ok("000000000000")
