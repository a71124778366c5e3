"""Check digits that tell an identifier from a number that merely looks like one: payment cards
(Luhn) and the Japanese individual number (マイナンバー). Presidio's recognizers in ``pii/``
report a match only when its checksum holds, which keeps order numbers and timestamps out of
the redactions."""

from __future__ import annotations


def luhn_ok(digits: str) -> bool:
    """The Luhn checksum every payment card number carries."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def my_number_ok(digits: str) -> bool:
    """Check digit of a Japanese individual number (マイナンバー), as the Cabinet Office defines it."""
    if len(digits) != 12 or len(set(digits)) == 1:
        return False
    body = [int(c) for c in digits[:11]]
    total = 0
    for n in range(1, 12):  # P_n counts from the right of the first eleven digits
        p = body[11 - n]
        q = n + 1 if n <= 6 else n - 6
        total += p * q
    rest = total % 11
    check = 0 if rest <= 1 else 11 - rest
    return check == int(digits[11])
