"""Postal addresses in Latin script as one span, however many lines they take.

An address is written as a few parts, on one line with commas or on consecutive lines: a street
(house number and street in the English and French order, ``12 rue de la Paix``; street and
number in the German, Dutch, Nordic, Italian, Spanish and Portuguese order, ``Hauptstraße 12``,
``Via Roma 21``, ``Avenida Paulista, 1578``), a unit (``Apt. 3B``, ``Suite 700``, ``Flat 4``), a
PO box, a military line (``PSC 1234, Box 5678``, ``Unit 2050 Box 4190``, ``USNS Comfort``), and
the postcode and city (``Columbus, OH 43215``, ``Leeds LS2 9NZ``, ``10115 Berlin``,
``1015 CJ Amsterdam``, ``Toronto, ON M5H 2S6``, ``APO AE 09001``).

:func:`address_spans` finds each part, then joins parts that follow one another with only
commas, dashes, spaces or one line break between them. A chain is an address when it holds a
street, a PO box or a military line, or a unit together with a postcode line; a US city, state
and ZIP stands alone too. A postcode line alone ("In 2020 Paris ...") or a unit alone
("Suite 2 of the benchmark") is not an address. Lines the way US forms and listings write them
count too: capitals (2701 W 18TH ST), lower case with its state and ZIP (340 loyola dr apt b
elgin il 60123), a street without its suffix before a city, state and ZIP (440 S. LaSalle,
Chicago, IL 60605), numbered roads (US Highway 278), rural-route boxes (rr 4, box 164).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from guardrails.pii.lexicons import STREET_SUFFIXES

_L = r"[^\W\d_]"  # a letter of any script
_S = r"[ \t]"  # a space within one line: an address part never runs over a line break
_SD = r"[ \t-]"
_CAP = rf"(?:[A-ZÀ-ÖØ-Þ]{_L}*(?:[-'’.]{_L}+)*)"  # a capitalised word (Saint-Michel, O'Connell)
_LINK = r"(?:de|del|de la|da|do|dos|das|della|di|du|des|la|le|van|von|der|den|y|e)"
_NUMBER_WORD = r"(?:One|Two|Three|Four|Five|Six|Seven|Eight|Nine|Ten)"
_HOUSE = r"(?:\d{1,6}[A-Z]?(?:[-/]\d{1,4}[A-Z]?)?)"
_DIRECTION = r"(?:N|S|E|W|NE|NW|SE|SW|North|South|East|West)\.?"
#: words that start a street name in the Romance languages and English (Rue, Via, Calle, Avenida)
_STREET_FIRST = (
    r"(?:[Rr]ue|[Aa]venue|[Bb]oulevard|[Bb]d|[Pp]lace|[Cc]hemin|[Aa]llée|[Ii]mpasse|[Qq]uai|[Cc]ours|"
    r"[Vv]ia|[Vv]iale|[Pp]iazza|[Pp]iazzale|[Cc]orso|[Ll]argo|[Vv]icolo|[Cc]alle|[Aa]venida|[Aa]vda?\.|"
    r"[Pp]aseo|[Pp]laza|[Cc]arrer|[Cc]amino|[Rr]onda|[Rr]ua|[Tt]ravessa|[Pp]raça|[Aa]lameda|[Ee]strada|[Ll]argo)"
)
#: words that end a street name in the Germanic and Nordic languages (Hauptstraße, Keizersgracht, Storgatan)
_STREET_LAST = (
    # "ring" after a consonant: Kaiserring, Opernring; not During, Covering, Measuring
    r"(?i:straße|strasse|str\.|gasse|weg|platz|allee|(?<![aeiouyäöü])ring|damm|ufer|chaussee|steig|"
    r"straat|gracht|laan|plein|kade|singel|dijk|markt|"
    r"gatan|gata|vägen|väg|torget|gränd|vej|gade|veien|gate|plass|katu|tie)"
)

_STREET_EN_TAIL = (
    rf"{_S}(?:{_DIRECTION}{_S})?(?:(?:{_CAP}|\d{{1,3}}(?i:st|nd|rd|th)){_S}){{1,4}}"
    rf"(?i:{STREET_SUFFIXES})\b\.?"
    rf"(?:(?:(?<=[Hh]ighway)|(?<=[Hh]wy)|(?<=[Rr]oute)|(?<=[Rr]te)|(?<=[Rr]oad)|(?<=[Aa]venue))\.?{_S}"
    rf"(?:[Nn]o\.?{_S})?\d{{1,5}}[A-Z]?\b|(?:(?<=[Aa]ve)|(?<=[Aa]venue)){_S}[A-Z]\b)?"
    rf"(?:,?{_S}(?:N\.?W\.?|N\.?E\.?|S\.?W\.?|S\.?E\.?|[NSEW])\b\.?)?"
)
#: a street line without a house number (Mill lane, under a "Studio 4" line): part of an address
#: only beside a unit and a postcode line
_STREET_NO_NUMBER = rf"(?m:^{_S}*{_CAP}(?:{_S}{_CAP})?{_S}(?i:{STREET_SUFFIXES})\b\.?{_S}*$)"
_STREET_EN = rf"\b{_HOUSE}{_STREET_EN_TAIL}"
#: a street without its suffix (440 S. LaSalle, 70 W. Madison): an address only before a US city, state
#: and ZIP ("21 Feb" before "2022 UTC" is a date)
_STREET_NO_SUFFIX = rf"\b{_HOUSE}{_S}(?:{_DIRECTION}{_S})?{_CAP}(?:{_S}{_CAP}){{0,2}}"
#: "One Sullivan Road": a house number in words, an address only with a city or postcode after it
#: ("Two Door Cinema Club" is a band)
_STREET_WORD_NUMBER = rf"\b{_NUMBER_WORD}{_STREET_EN_TAIL}"
_STREET_NUMBER_FIRST = (
    rf"\b{_HOUSE},?{_S}{_STREET_FIRST}{_S}(?:{_LINK}{_S})*{_CAP}(?:{_SD}(?:{_LINK}{_S})*{_CAP}){{0,3}}"
)
_STREET_NAME_FIRST = (
    rf"\b{_STREET_FIRST}{_S}(?:{_LINK}{_S})*{_CAP}(?:{_S}(?:{_LINK}{_S})*{_CAP}){{0,3}},?{_S}"
    rf"(?:n[º°o]\.?{_S}?)?\d{{1,4}}[A-Za-z]?\b(?![-/]\d)"
)
_STREET_GERMANIC = (
    # a German, Dutch or Nordic street name is capitalised ("occurring 1 year" is not one)
    rf"\b(?:{_CAP}{_SD}){{0,2}}(?!(?:Spring|String|Bring|Offspring)\b)"
    rf"(?:(?=[A-ZÀ-Þ]){_L}*{_STREET_LAST}|[A-ZÀ-Þ]{_L}*-{_STREET_LAST}|Str\.)"
    rf"{_S}\d{{1,4}}(?:{_S}?[a-zA-Z])?\b"
)
_UNIT = (
    rf"\b(?:Apt|Apartment|Suite|Ste|Unit|Flat|Studio|Office|Level|Lot|Room|Rm|Floor|Fl|Building|Bldg|Dept|Wing|"
    rf"APT|STE|SUITE|UNIT|FL|FLR|FLOOR|RM|ROOM|BLDG)"
    rf"\.?{_S}?#?{_S}?"
    rf"[\dA-Z][\w-]*\b"
    # in a line typed in lower case (apt b, ste 201), a "#" unit (# 134-115), a Spanish floor (3º izq)
    rf"|\b(?:apt|ste|suite|unit)\.?{_S}?#?{_S}?[\da-z][\w-]*\b|#{_S}?\d+[A-Za-z]?(?:-\d+)?\b"
    rf"|\b\d{{1,2}}[º°ª]{_S}?(?:izq|dcha|dch|izda|dta|esq)\.?"
)
_MAIL_STOP = r"\b[A-Z]{1,3}\d{3,5}[a-z]?\b"
_PO_BOX = (
    rf"\b(?:(?i:p\.?{_S}?o\.?{_S}?box|post office box)|Postfach|Apartado|Caixa Postal|Casella Postale)"
    rf"{_S}\d{{1,6}}(?:{_S}\d{{2}})?\b"
    rf"|\b(?i:r\.?{_S}?r\.?|rural route){_S}?#?{_S}?\d{{1,4}},?{_S}(?i:box){_S}#?{_S}?\d{{1,5}}\b"
)
_MILITARY = (
    rf"\b(?:(?:PSC|CMR|Unit){_S}\d{{3,5}},?{_S}+Box{_S}\d{{1,5}}|(?:USNS|USS|USCGC){_S}[A-Z][a-z]+(?:{_S}[A-Z][a-z]+)?|"
    rf"(?:APO|FPO|DPO){_S}(?:AA|AE|AP){_S}\d{{5}}(?:-\d{{4}})?)\b"
)
_CITY = rf"{_CAP}(?:{_SD}{_CAP}){{0,2}}"
#: a line typed in lower case (a form, a spreadsheet): a street with its suffix, then a city, a state
#: code and a ZIP. Either alone is words and numbers ("ran 5 miles down the road"), so a lower-case
#: street is an address only beside a postal line
_LOWER_WORD = r"(?:[a-z][a-z'’-]*\.?|\d{1,3}(?:st|nd|rd|th))"
_LOWER_STREET = (
    rf"\b{_HOUSE}{_S}(?:[nsew]\.?{_S}|(?:north|south|east|west){_S})?(?:{_LOWER_WORD}{_S}){{1,4}}"
    rf"(?i:{STREET_SUFFIXES})\b\.?(?:{_S}(?:n\.?[ew]|s\.?[ew]|[nsew])\b\.?)?"
)
_US_STATE_CODE_LOWER = (
    r"(?:a[lkszr]|c[aot]|d[ec]|f[lm]|g[au]|hi|i[adln]|k[sy]|la|m[adehinopst]|n[cdehjmvy]|o[hkr]|p[arw]|ri|s[cd]|"
    r"t[nx]|ut|v[ait]|w[aivy])"
)
_LOWER_CITY_STATE_ZIP = rf"(?:[a-z][a-z.'-]*{_S}){{1,3}}{_US_STATE_CODE_LOWER}\.?,?{_S}\d{{5}}(?:-?\d{{4}})?\b"
_US_ZIP = r"\d{5}(?:-\d{4})?"
#: US states and territories, by code and by name (Cleveland, Ohio 44122; Washington, D.C. 20006)
_US_STATE = (
    r"(?:A[LKSZR]|C[AOT]|D[EC]|F[LM]|G[AU]|HI|I[ADLN]|K[SY]|LA|M[ADEHINOPST]|N[CDEHJMVY]|O[HKR]|P[ARW]|RI|S[CD]|"
    r"T[NX]|UT|V[AIT]|W[AIVY]|[A-Z]\.[ \t]?[A-Z]\.|Alabama|Alaska|Arizona|Arkansas|California|Colorado|Connecticut|"
    r"Delaware|Florida|Georgia|Hawaii|Idaho|Illinois|Indiana|Iowa|Kansas|Kentucky|Louisiana|Maine|Maryland|"
    r"Massachusetts|Michigan|Minnesota|Mississippi|Missouri|Montana|Nebraska|Nevada|New Hampshire|New Jersey|"
    r"New Mexico|New York|North Carolina|North Dakota|Ohio|Oklahoma|Oregon|Pennsylvania|Rhode Island|"
    r"South Carolina|South Dakota|Tennessee|Texas|Utah|Vermont|Virginia|Washington|West Virginia|Wisconsin|Wyoming)"
)
_CITY_STATE_ZIP = rf"{_CITY},?{_S}{_US_STATE}{_S}{_US_ZIP}\b"
_UK_POSTCODE = rf"[A-Z]{{1,2}}\d[A-Z\d]?{_S}?\d[A-Z]{{2}}"
_CA_POSTCODE = rf"[A-Z]\d[A-Z]{_S}?\d[A-Z]\d"
_POSTCODE_AFTER_CITY = (
    rf"{_CITY},?{_S}(?:[A-Z]{{2}}{_S})?(?:{_UK_POSTCODE}|{_CA_POSTCODE})\b|(?<![\w-]){_UK_POSTCODE}\b"
)
_POSTCODE_BEFORE_CITY = (
    rf"(?<![\w-])(?:\d{{4}}{_S}?[A-Z]{{2}}|\d{{3}}{_S}\d{{2}}|\d{{4}}-\d{{3}}|\d{{5}}-\d{{3}}|\d{{4,5}})"
    rf"{_S}{_CITY}(?:{_S}[A-Z]{{2}}\b)?"
)
_CITY_DASH_STATE = rf"{_CITY}{_S}-{_S}[A-Z]{{2}},?{_S}\d{{5}}-\d{{3}}\b"  # São Paulo - SP, 01310-200
_BARE_CITY = rf"{_CITY}"
#: a city and a ZIP without the state (Evanston, 60202), or a ZIP alone: they lengthen an address a
#: street already makes and make none themselves
_CITY_ZIP = rf"{_CITY},?{_S}\d{{5}}(?:-\d{{4}})?\b|(?<![\w-])\d{{5}}(?:-\d{{4}})?\b"

#: kind -> pattern; kinds in ANCHORS make a chain an address on their own
_PARTS: tuple[tuple[str, str], ...] = (
    ("military", _MILITARY),
    ("pobox", _PO_BOX),
    ("street", _STREET_EN),
    ("wordstreet", _STREET_WORD_NUMBER),
    ("barestreet", _STREET_NO_NUMBER),
    ("street", _STREET_NUMBER_FIRST),
    ("street", _STREET_NAME_FIRST),
    ("street", _STREET_GERMANIC),
    ("citystatezip", _CITY_STATE_ZIP),
    ("lowerstreet", _LOWER_STREET),
    ("nosuffixstreet", _STREET_NO_SUFFIX),
    ("cityzip", _CITY_ZIP),
    ("lowerpostal", _LOWER_CITY_STATE_ZIP),
    ("postcode", _CITY_DASH_STATE),
    ("postcode", _POSTCODE_AFTER_CITY),
    ("postcode", _POSTCODE_BEFORE_CITY),
    ("unit", _UNIT),
    ("mailstop", _MAIL_STOP),
)
_COMPILED = tuple((kind, re.compile(p)) for kind, p in _PARTS)
_BARE = re.compile(_BARE_CITY)
ANCHORS = frozenset({"military", "pobox", "street", "citystatezip"})
#: what may stand between two parts of one address: commas, dashes, spaces, at most one line break
_GAP = re.compile(r"^[ \t,;–—-]*(?:\n[ \t]*)?$")


@dataclass(frozen=True)
class _Part:
    start: int
    end: int
    kind: str


#: parts are found tier by tier: streets, boxes and military lines first, then city and postcode
#: lines in what is left of the text, then units, then the weakest parts (a suffix-less street, a
#: bare ZIP); within a tier the longer of two overlapping wins
_TIERS: tuple[frozenset[str], ...] = (
    frozenset({"military", "pobox", "street", "wordstreet", "barestreet", "lowerstreet"}),
    frozenset({"citystatezip", "postcode", "lowerpostal"}),
    frozenset({"unit", "mailstop"}),
    # last: a number a unit holds ("# 33031") is not a ZIP
    frozenset({"nosuffixstreet", "cityzip"}),
)


def _parts(text: str) -> list[_Part]:
    """Every address part in ``text``, without overlaps (see ``_TIERS``)."""
    kept: list[_Part] = []
    masked = text
    for tier in _TIERS:
        found = [
            _Part(m.start(), m.end(), kind)
            for kind, rx in _COMPILED
            if kind in tier
            for m in rx.finditer(masked)
            if m.end() > m.start()
        ]
        found.sort(key=lambda p: (-(p.end - p.start), p.start))
        for p in found:
            if all(p.end <= k.start or k.end <= p.start for k in kept):
                kept.append(p)
                # what a part took is not there for the next tier's patterns (offsets unchanged)
                masked = masked[: p.start] + "\x00" * (p.end - p.start) + masked[p.end :]
    return sorted(kept, key=lambda p: p.start)


def _joined(text: str, a: _Part, b: _Part) -> bool:
    return bool(_GAP.match(text[a.end : b.start]))


def address_spans(text: str) -> list[tuple[int, int, float]]:
    """(start, end, score) of each postal address in ``text``, its parts joined into one span."""
    parts = _parts(text)
    chains: list[list[_Part]] = []
    for p in parts:
        if chains and _joined(text, chains[-1][-1], p):
            chains[-1].append(p)
            continue
        # a city alone on its line between a street and a postcode line (14 Birchwood Close / Harrogate / HG2 8QT)
        if chains and chains[-1][-1].kind in ANCHORS | {"unit", "wordstreet", "barestreet", "lowerstreet"}:
            bare = _BARE.match(text, _skip_gap(text, chains[-1][-1].end))
            if bare and _joined(text, chains[-1][-1], _Part(bare.start(), bare.end(), "city")):
                city = _Part(bare.start(), bare.end(), "city")
                if _joined(text, city, p):
                    chains[-1] += [city, p]
                    continue
        chains.append([p])
    out: list[tuple[int, int, float]] = []
    for chain in chains:
        kinds = {p.kind for p in chain}
        postal = bool(kinds & {"postcode", "citystatezip", "lowerpostal"})
        us_postal = bool(kinds & {"citystatezip", "lowerpostal"})
        if (
            kinds & ANCHORS
            or (postal and kinds & {"unit", "wordstreet", "barestreet", "lowerstreet"})
            # "440 S. LaSalle, Chicago, IL 60605"; not "21 Feb 2022 UTC" (a date before a word)
            or (us_postal and "nosuffixstreet" in kinds)
        ):
            out.append((chain[0].start, chain[-1].end, 0.8 if len(chain) > 1 else 0.7))
    return out


def _skip_gap(text: str, at: int) -> int:
    m = re.compile(r"[ \t,;–—-]*\n?[ \t]*").match(text, at)
    return m.end() if m else at
