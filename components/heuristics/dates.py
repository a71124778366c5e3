"""Date phrases in a question, as the periods they name (English and Japanese).

``find_periods`` reads dates, ranges, open-ended phrases ("since March 2024", 「2024年以降」),
relative periods ("last week", 「先月」) and months without a year; ``analyze_query``
(``components.heuristics.analysis``) decides whether they become filters. Numbers are years only
when they have four digits in 1900..2100 and sit in a date phrase ("in 2024", 「2024年」), so
"1,000 genes" or "2 cups of water" never become dates.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

_MONTHS = {m.lower(): i for i in range(1, 13) for m in (calendar.month_name[i], calendar.month_abbr[i]) if m}
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
_YEAR = r"(19\d{2}|20\d{2}|2100)"
_WEEKDAY_MONDAY = 0


@dataclass
class Span:
    """Where a filter phrase sits in the question, so that it can be cut from the search text."""

    start: int
    end: int


@dataclass
class Period:
    """A date phrase and the first and last days it names (``None``: open-ended)."""

    start: date | None
    end: date | None
    text: str
    span: Span


def _month_end(y: int, m: int) -> date:
    return date(y, m, calendar.monthrange(y, m)[1])


def _shift_months(d: date, months: int) -> date:
    y, m = divmod(d.year * 12 + (d.month - 1) + months, 12)
    return date(y, m + 1, 1)


def _last_month_named(m: int, today: date) -> int:
    """Year of the latest month ``m`` that is not in the future ("in March" said in May)."""
    return today.year if m <= today.month else today.year - 1


def find_periods(q: str, today: date) -> list[Period]:
    """Every date phrase with its period; overlapping matches keep the first, longest pattern."""
    found: list[Period] = []
    taken: list[Span] = []

    def add(m: re.Match[str], start: date | None, end: date | None) -> None:
        span = Span(m.start(), m.end())
        if any(not (span.end <= s.start or span.start >= s.end) for s in taken):
            return
        taken.append(span)
        found.append(Period(start, end, m.group(0).strip(), span))

    def ym(y: str, mo: str) -> tuple[int, int] | None:
        yi, mi = int(y), int(mo)
        return (yi, mi) if 1 <= mi <= 12 else None

    def safe_date(y: int, mo: int, d: int) -> date | None:
        try:
            return date(y, mo, d)
        except ValueError:
            return None

    flags = re.IGNORECASE
    # --- ranges first (they contain single dates)
    for m in re.finditer(rf"{_YEAR}\s*年?\s*(?:から|〜|~|-|–)\s*{_YEAR}\s*年(?:まで)?", q):
        a, b = int(m.group(1)), int(m.group(2))
        if a <= b:
            add(m, date(a, 1, 1), date(b, 12, 31))
    for m in re.finditer(rf"\b(?:between|from)\s+{_YEAR}\s+(?:and|to|until|-)\s+{_YEAR}\b", q, flags):
        a, b = int(m.group(1)), int(m.group(2))
        if a <= b:
            add(m, date(a, 1, 1), date(b, 12, 31))
    # month ranges: "between January and March 2025", "from Jan 2024 to Mar 2025", 「2025年1月から3月まで」
    month_range = (
        rf"\b(?:between|from)\s+({_MONTH_RE})\.?(?:\s+{_YEAR})?\s+(?:and|to|until|through|-|–)\s+"
        rf"({_MONTH_RE})\.?,?\s+{_YEAR}\b"
    )
    for m in re.finditer(month_range, q, flags):
        y2 = int(m.group(4))
        y1 = int(m.group(2)) if m.group(2) else y2
        m1, m2 = _MONTHS[m.group(1).lower()], _MONTHS[m.group(3).lower()]
        if (y1, m1) <= (y2, m2):
            add(m, date(y1, m1, 1), _month_end(y2, m2))
    ja_range = (
        rf"(?<!\d){_YEAR}\s*年\s*(\d{{1,2}})\s*月\s*(?:から|〜|~|-|–)\s*"
        rf"(?:{_YEAR}\s*年\s*)?(\d{{1,2}})\s*月(?:まで)?"
    )
    for m in re.finditer(ja_range, q):
        y1, y2 = int(m.group(1)), int(m.group(3) or m.group(1))
        lo_ym, hi_ym = ym(str(y1), m.group(2)), ym(str(y2), m.group(4))
        if lo_ym and hi_ym and lo_ym <= hi_ym:
            add(m, date(*lo_ym, 1), _month_end(*hi_ym))
    # --- open-ended from a full date: "before 2024-05-01", "since 2025-03-15"
    for m in re.finditer(rf"\b(since|after|before|until|till)\s+{_YEAR}-(\d{{2}})-(\d{{2}})\b", q, flags):
        day = safe_date(int(m.group(2)), int(m.group(3)), int(m.group(4)))
        if day:
            word = m.group(1).lower()
            if word == "since":
                add(m, day, None)
            elif word == "after":
                add(m, day + timedelta(days=1), None)
            elif word == "before":
                add(m, None, day - timedelta(days=1))
            else:
                add(m, None, day)
    # --- full dates
    for m in re.finditer(rf"(?<!\d){_YEAR}\s*(?:年|[-/.])\s*(\d{{1,2}})\s*(?:月|[-/.])\s*(\d{{1,2}})\s*日?(?!\d)", q):
        d = safe_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        if d:
            add(m, d, d)
    for m in re.finditer(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+{_YEAR}\b", q, flags):
        d = safe_date(int(m.group(3)), _MONTHS[m.group(1).lower()], int(m.group(2)))
        if d:
            add(m, d, d)
    for m in re.finditer(rf"\b(\d{{1,2}})\s+({_MONTH_RE})\.?\s+{_YEAR}\b", q, flags):
        d = safe_date(int(m.group(3)), _MONTHS[m.group(2).lower()], int(m.group(1)))
        if d:
            add(m, d, d)
    # --- halves and quarters of a year: "the first half of 2025", 「2025年上半期」, "Q3 2024", "2024 Q3"
    for m in re.finditer(rf"\b(first|second)\s+half\s+of\s+{_YEAR}\b", q, flags):
        half_year, first_half = int(m.group(2)), m.group(1).lower() == "first"
        add(m, date(half_year, 1 if first_half else 7, 1), _month_end(half_year, 6 if first_half else 12))
    for m in re.finditer(rf"(?<!\d){_YEAR}\s*年\s*の?\s*(上半期|前半|下半期|後半)", q):
        half_year, first_half = int(m.group(1)), m.group(2) in ("上半期", "前半")
        add(m, date(half_year, 1 if first_half else 7, 1), _month_end(half_year, 6 if first_half else 12))
    for m in re.finditer(rf"\bQ([1-4])\s+{_YEAR}\b|\b{_YEAR}\s*Q([1-4])\b", q, flags):
        quarter, year = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        first_month = 3 * (int(quarter) - 1) + 1
        add(m, date(int(year), first_month, 1), _month_end(int(year), first_month + 2))
    # --- open-ended: since / after / before / until, JA 以降 / 以前 / より前 / まで / から
    month_or_year = rf"(?:({_MONTH_RE})\.?\s+)?{_YEAR}"
    for m in re.finditer(rf"\b(since|after|before|until|till|prior\s+to)\s+{month_or_year}\b", q, flags):
        word, mon, y = m.group(1).lower(), m.group(2), int(m.group(3))
        mi = _MONTHS[mon.lower()] if mon else None
        first = date(y, mi or 1, 1)
        last = _month_end(y, mi) if mi else date(y, 12, 31)
        if word == "since":
            add(m, first, None)
        elif word == "after":
            add(m, last + timedelta(days=1), None)
        elif word in {"until", "till"}:
            add(m, None, last)
        else:
            add(m, None, first - timedelta(days=1))
    for m in re.finditer(rf"{_YEAR}\s*年\s*(?:(\d{{1,2}})\s*月\s*)?(以降|以後|から|より後|以前|より前|まで)", q):
        y, mo, word = int(m.group(1)), m.group(2), m.group(3)
        mi = int(mo) if mo and 1 <= int(mo) <= 12 else None
        first = date(y, mi or 1, 1)
        last = _month_end(y, mi) if mi else date(y, 12, 31)
        if word in {"以降", "以後", "から"}:
            add(m, first, None)
        elif word == "より後":
            add(m, last + timedelta(days=1), None)
        elif word in {"以前", "まで"}:
            add(m, None, last)
        else:
            add(m, None, first - timedelta(days=1))
    # --- a month of a year
    for m in re.finditer(rf"(?<!\d){_YEAR}\s*年\s*(\d{{1,2}})\s*月", q):
        r = ym(m.group(1), m.group(2))
        if r:
            add(m, date(r[0], r[1], 1), _month_end(*r))
    for m in re.finditer(rf"(?<!\d){_YEAR}-(\d{{2}})(?![\d-])", q):
        r = ym(m.group(1), m.group(2))
        if r:
            add(m, date(r[0], r[1], 1), _month_end(*r))
    for m in re.finditer(rf"\b({_MONTH_RE})\.?,?\s+(?:of\s+)?{_YEAR}\b", q, flags):
        y, mi = int(m.group(2)), _MONTHS[m.group(1).lower()]
        add(m, date(y, mi, 1), _month_end(y, mi))
    # --- a year
    for m in re.finditer(rf"(?<!\d){_YEAR}\s*年(?!\s*\d|代|間|生|前|後)", q):
        y = int(m.group(1))
        add(m, date(y, 1, 1), date(y, 12, 31))
    for m in re.finditer(rf"\b(?:in|from|during|of|for)\s+(?:the\s+year\s+)?{_YEAR}\b(?![-–/,.]\d)", q, flags):
        y = int(m.group(1))
        add(m, date(y, 1, 1), date(y, 12, 31))
    # --- relative periods
    this_monday = today - timedelta(days=today.weekday() - _WEEKDAY_MONDAY)
    relative: list[tuple[str, date, date]] = [
        (r"\btoday\b|今日|本日", today, today),
        (r"\byesterday\b|昨日", today - timedelta(days=1), today - timedelta(days=1)),
        (r"\blast\s+week\b|先週", this_monday - timedelta(days=7), this_monday - timedelta(days=1)),
        (r"\bthis\s+week\b|今週", this_monday, today),
        (
            r"\blast\s+month\b|先月",
            _shift_months(today, -1),
            _shift_months(today, 0) - timedelta(days=1),
        ),
        (r"\bthis\s+month\b|今月", _shift_months(today, 0), today),
        (r"\blast\s+year\b|去年|昨年|前年", date(today.year - 1, 1, 1), date(today.year - 1, 12, 31)),
        (r"\bthis\s+year\b|今年|本年", date(today.year, 1, 1), today),
        (r"\brecent(?:ly)?\b|\blately\b|最近|近頃|この頃", today - timedelta(days=30), today),
    ]
    for pat, start, end in relative:
        for m in re.finditer(pat, q, flags):
            add(m, start, end)
    units = {"day": 1, "日": 1, "week": 7, "週": 7, "週間": 7}
    for m in re.finditer(r"\b(?:in\s+the\s+)?(?:last|past)\s+(\d{1,3})\s+(day|week|month|year)s?\b", q, flags):
        n, unit = int(m.group(1)), m.group(2).lower()
        add(m, _ago(today, n, unit, units), today)
    for m in re.finditer(r"(?:過去|ここ|直近)\s*(\d{1,3})\s*(日|週間|週|か月|ヶ月|カ月|ヵ月|ケ月|年)(?:間)?", q):
        n, unit = int(m.group(1)), m.group(2)
        unit = "month" if "月" in unit else ("year" if unit == "年" else unit)
        add(m, _ago(today, n, unit, units), today)
    # --- a month without a year ("in March", 「3月の」): the latest such month so far
    for m in re.finditer(rf"\b(?:in|during|from)\s+({_MONTH_RE})\b(?!\s*\d)", q, flags):
        mi = _MONTHS[m.group(1).lower()]
        y = _last_month_named(mi, today)
        add(m, date(y, mi, 1), _month_end(y, mi))
    for m in re.finditer(r"(?<![\d年/-])(\d{1,2})\s*月(?!\s*\d|\s*日)", q):
        mi = int(m.group(1))
        if 1 <= mi <= 12:
            y = _last_month_named(mi, today)
            add(m, date(y, mi, 1), _month_end(y, mi))
    return sorted(found, key=lambda p: p.span.start)


def _ago(today: date, n: int, unit: str, units: dict[str, int]) -> date:
    if unit == "month":
        y, mo = divmod(today.year * 12 + today.month - 1 - n, 12)
        return date(y, mo + 1, min(today.day, calendar.monthrange(y, mo + 1)[1]))
    if unit == "year":
        return date(today.year - n, today.month, min(today.day, calendar.monthrange(today.year - n, today.month)[1]))
    return today - timedelta(days=n * units[unit])
