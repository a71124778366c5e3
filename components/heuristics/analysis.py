"""Rule-based query analysis: filters a question states in words, without a language model.

``analyze_query`` finds the parts of a question that are metadata rather than topic — Obsidian
``#tags``, dates and periods (English and Japanese), and vault names the index knows — and
turns them into ``SearchFilters`` keys, with a human explanation for each. The filter syntax is
removed from ``search_text`` so that BM25 and the embedder see only the topic.

Precision over recall: a wrong filter silently hides the answer, a missed one only costs
ranking. So:

* a date becomes a filter only when the question is about the user's own notes (a cue such as
  "notes", "I wrote", 「メモ」, a #tag or a vault). Claims and encyclopaedic questions are full
  of years (379 of the 4,442 JSQuAD questions contain 「NNNN年」, e.g. 「1910年に亡くなったのは誰？」)
  and filtering those by creation date would find nothing;
* numbers are years only in a date phrase (``components.heuristics.dates``), so "1,000 genes"
  or "2 cups of water" never become dates;
* a bare word that happens to equal a known tag is not a tag unless written ``#word`` (or
  "tagged word"); a vault name counts only next to "vault" / 「ボールト」 / 「保管庫」;
* an author is a name the index's papers list (their ``metadata.authors``), written whole or by
  the surname alone, with a cue beside it: "by", "from", "of" before it, "'s", "et al.", 「の」,
  「さん」, 「氏」 after it; a surname alone counts only capitalised, so "sorted by min" never
  becomes Sewon Min.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import date
from itertools import pairwise
from typing import Any

from components.heuristics.dates import Span, find_periods
from components.text.language import detect_language, has_japanese, mecab

# ------------------------------------------------------------------------------- tags
# Obsidian tags: letters (any script), digits, _ - /; must contain a non-digit; a heading
# marker ("# Title"), "#1", "C#" or a URL fragment is not a tag. Unlike Obsidian, a Japanese
# character may precede the "#" (「2024年の#料理」), since Japanese is written without spaces.
_TAG = re.compile(r"(?<![A-Za-z0-9_&/:.=#-])#([^\s#.,;:!?。、，．！？「」『』()（）\[\]{}\"'`]+)")
# "tagged rag", "tagged both retrieval and bm25", "with the tag X", "have the tags X, Y": the words after
# the cue, of which only known tags count (and the phrase ends at the last of them)
_TAGGED = re.compile(
    r"\b(?:tagged(?:\s+with)?(?:\s+(?:both|either))?|(?:with|having|have|has|carry|carries|carrying|bear|bears|"
    r"bearing|labell?ed\s+with|marked\s+with)\s+(?:the\s+|a\s+|either\s+)?tags?)\s+"
    r"((?:#?[\w/-]+)(?:\s*(?:,|&|\band\b|\bor\b)\s*#?[\w/-]+)*)",
    re.IGNORECASE,
)
_TAG_LIST_SEP = re.compile(r"\s*(?:,|&|\band\b|\bor\b)\s*", re.IGNORECASE)
# "tagged X or Y", "#X or #Y", 「#X または #Y」: either tag will do (``any_tags``), where "and" and
# a plain list ask for all of them; what may stand between two tags that are alternatives
_BETWEEN_ALTERNATIVES = re.compile(r"\s*(?:\bor\b|または|もしくは|か)\s*", re.IGNORECASE)
# a tag named in quotes after the word tag: タグ「検索」, タグが「rag」, the tag "rag"
_QUOTED_TAG = re.compile(r"(?:タグ\s*[がはの]?\s*|\btags?\s+)[「『\"'“]([^」』\"'”]+)[」』\"'”]", re.IGNORECASE)

# an author's name after "by" / "from" / "of", or before "'s", "et al.", 「の」, 「さん」, 「氏」, 「ら」, 「著」
_AUTHOR_BEFORE = re.compile(r"(?:\b(?:written|authored|co-?authored)\s+)?\b(?:by|from|of)\s+$", re.IGNORECASE)
_AUTHOR_AFTER = re.compile(r"^(?:\s*(?:'s|’s)\b|\s+et\s+al\b\.?|\s*(?:さん|氏|ら|著|の))")

# A question about the user's notes: only then does a date mean "created in".
_CUE_EN = re.compile(
    r"\b(notes?|memos?|journal|diary|entr(?:y|ies)|documents?|files?|vaults?|my|mine|"
    r"wrote|written|write|saved|added|created|jotted|logged|recorded|tagged)\b",
    re.IGNORECASE,
)
# "I" only as a pronoun: "UNEF I" or "type I collagen" are not about the user
_CUE_I = re.compile(
    r"\bI(?:'ve|'d|'m)\b|\b(?:[Dd]id|[Dd]o|[Hh]ave|[Hh]ad|[Ww]hen|[Ww]hat|[Ww]here|[Ww]hich)\s+I\b|"
    r"\bI\s+(?:wrote|write|saved|added|created|noted|read|did|have|had|made|took|jotted|logged|recorded|"
    r"learned|learnt|bought|watched|went|visited|ran|cooked|tried|met|planned|said)\b"
)
_CUE_JA = re.compile(
    r"(メモ|ノート|日記|書いた|書き留め|保存した|作成した|追加した|ボールト|保管庫|ヴォールト|タグ|私|僕|自分|読んだ)"
)

# generic words of a listing request; a question with nothing else is "structured"
_GENERIC_EN = frozenset(
    [
        "a",
        "all",
        "an",
        "and",
        "any",
        "are",
        "about",
        "by",
        "can",
        "created",
        "dated",
        "did",
        "do",
        "entries",
        "entry",
        "every",
        "documents",
        "document",
        "file",
        "files",
        "find",
        "for",
        "from",
        "give",
        "have",
        "has",
        "having",
        "both",
        "tags",
        "i",
        "in",
        "is",
        "list",
        "me",
        "my",
        "mine",
        "note",
        "notes",
        "memo",
        "memos",
        "of",
        "on",
        "pages",
        "please",
        "show",
        "tagged",
        "tag",
        "that",
        "the",
        "their",
        "these",
        "those",
        "to",
        "wrote",
        "written",
        "write",
        "create",
        "made",
        "s",
        "between",
        "anything",
        "carry",
        "carries",
        "carrying",
        "labelled",
        "labeled",
        "marked",
        "first",
        "second",
        "half",
        "was",
        "were",
        "what",
        "which",
        "with",
        "you",
        "your",
        "during",
        "since",
        "before",
        "after",
        "until",
        "vault",
        "vaults",
        "journal",
        "diary",
        "items",
        "item",
        "everything",
        "paper",
        "papers",
        "article",
        "articles",
        "publication",
        "publications",
        "et",
        "al",
        # "notes I filed under #x", "either of", "#a or #b"
        "filed",
        "under",
        "saved",
        "kept",
        "stored",
        "either",
        "or",
    ]
)
_GENERIC_JA = re.compile(
    r"(メモ|ノート|一覧|全部|すべて|全て|記事|ファイル|文書|ドキュメント|ページ|日記|記録|タグ|付き|見せて|"
    r"教えて|出して|探して|リスト|ください|下さい|書いた|作成した|作った|保存した|もの|どれ|何|なに|ある|あった|"
    r"付いた|付いている|ついた|ついている|にして|して|両方|論文|"
    r"[のをにでがはともへやかな、。？！?!\s・「」（）()])"
)


@dataclass
class QueryAnalysis:
    """What a question asks for besides its topic; ``filters`` uses SearchFilters keys."""

    question: str
    language: str
    filters: dict[str, Any] = field(default_factory=dict)
    explanations: list[str] = field(default_factory=list)
    search_text: str = ""
    structured: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form for graph state and debug output."""
        return {
            "language": self.language,
            "filters": dict(self.filters),
            "explanations": list(self.explanations),
            "search_text": self.search_text,
            "structured": self.structured,
        }


def analyze_query(
    question: str,
    *,
    known_vaults: Collection[str] = (),
    known_tags: Collection[str] = (),
    known_authors: Collection[str] = (),
    today: date | None = None,
) -> QueryAnalysis:
    """Filters stated in the question, their explanations and the topic left for retrieval."""
    today = today or date.today()
    q = unicodedata.normalize("NFKC", question or "").strip()
    lang = "ja" if detect_language(q) == "ja" else "en"
    out = QueryAnalysis(question=question, language=lang)
    remove: list[Span] = []

    tags, either = _find_tags(q, known_tags)
    _found(out, "tags", tags, remove)
    _found(out, "any_tags", either, remove)

    authors = _find_authors(q, known_authors)
    _found(out, "authors", authors, remove)
    vaults = _find_vaults(q, known_vaults)
    _found(out, "vaults", vaults, remove)

    periods = find_periods(q, today)
    if periods:
        cue = bool(tags or vaults or authors) or _has_cue(q, lang)
        if not cue:
            out.explanations.extend(f"ignored date {p.text!r}: the question is not about your notes" for p in periods)
        else:
            starts = [p.start for p in periods if p.start]
            ends = [p.end for p in periods if p.end]
            lo = max(starts) if starts else None
            hi = min(ends) if ends else None
            if lo and hi and lo > hi:
                out.explanations.append("ignored dates: the periods mentioned do not overlap")
            else:
                for p in periods:
                    remove.append(p.span)
                    if p.start:
                        out.explanations.append(f"created_from={p.start.isoformat()} from {p.text!r}")
                    if p.end:
                        out.explanations.append(f"created_to={p.end.isoformat()} from {p.text!r}")
                if lo:
                    out.filters["created_from"] = lo.isoformat()
                if hi:
                    out.filters["created_to"] = hi.isoformat()

    text = _cut(q, remove)
    # nothing but filters ("#料理"): the tag words still say what the notes are about
    out.search_text = text or re.sub(r"#(?=\S)", "", q).strip()
    out.structured = bool(out.filters) and _only_generic(text, lang)
    return out


def _found(out: QueryAnalysis, key: str, found: list[tuple[str, Span, str]], remove: list[Span]) -> None:
    """Values of a list filter the question names, each with its explanation and the words to cut."""
    if found:
        out.filters[key] = list(dict.fromkeys(v for v, _, _ in found))
    for value, span, text in found:
        out.explanations.append(f"{key}+={value} from {text!r}")
        remove.append(span)


# ------------------------------------------------------------------------------- tags
def _trim_japanese_tag(tag: str) -> str:
    """``料理のメモ`` → ``料理``: Japanese has no spaces, so a tag runs into the next words.

    Obsidian itself would read the whole run as the tag, but a question like 「#料理のメモ」
    means the tag 料理; cut before the first particle or auxiliary.
    """
    if not has_japanese(tag):
        return tag
    out = ""
    with mecab() as tagger:
        for tok in tagger(tag):
            if tok.feature.pos1 in {"助詞", "助動詞"} and out:
                break
            out += tok.surface
    return out or tag


def _find_tags(q: str, known: Collection[str]) -> tuple[list[tuple[str, Span, str]], list[tuple[str, Span, str]]]:
    """Tags the question names: those all of which it asks for, and those either of which will do."""
    known_map = {k.lstrip("#").lower(): k.lstrip("#") for k in known}
    found: list[tuple[str, Span, str]] = []
    either: list[tuple[str, Span, str]] = []
    marks = list(_TAG.finditer(q))
    # "#a or #b": a hashtag and the next with only "or" between them are alternatives
    paired = {
        i
        for n, (a, b) in enumerate(pairwise(marks))
        if _BETWEEN_ALTERNATIVES.fullmatch(q[a.end() : b.start()])
        for i in (n, n + 1)
    }
    for n, m in enumerate(marks):
        raw = m.group(1).rstrip("/-_")
        if not raw or raw.isdigit():
            continue
        tag = raw
        if raw.lower() not in known_map:
            # longest known tag that the run starts with, else cut Japanese at a particle
            prefix = max((k for k in known_map if raw.lower().startswith(k)), key=len, default="")
            tag = raw[: len(prefix)] if prefix and has_japanese(raw) else _trim_japanese_tag(raw)
        tag = known_map.get(tag.lower(), tag)
        end = m.start(1) + len(tag)
        (either if n in paired else found).append((tag, Span(m.start(), end), f"#{tag}"))
    for m in _QUOTED_TAG.finditer(q):
        name = m.group(1).strip().lstrip("#")
        if name.lower() in known_map:
            found.append((known_map[name.lower()], Span(m.start(), m.end()), m.group(0)))
    for m in _TAGGED.finditer(q):
        words = _TAG_LIST_SEP.split(m.group(1))
        known_words = [w.lstrip("#") for w in words if w.lstrip("#").lower() in known_map]
        if not known_words:
            continue
        # the phrase runs to the last known tag: what follows it is the question's own words
        last = known_words[-1]
        end = m.start(1) + m.group(1).lower().rfind(last.lower()) + len(last)
        # the separators between the listed words, not the words (a tag may hold か or "or")
        seps = _TAG_LIST_SEP.findall(q[m.start(1) : end])
        into = either if any(_BETWEEN_ALTERNATIVES.fullmatch(sep) for sep in seps) else found
        for word in known_words:
            into.append((known_map[word.lower()], Span(m.start(), end), q[m.start() : end]))
    return found, either


# ------------------------------------------------------------------------------- authors
def _surname(name: str) -> str:
    """The family name of a name as papers write it: "Karpukhin, Vladimir" or "Vladimir Karpukhin"."""
    if "," in name:
        return name.split(",", 1)[0].strip()
    parts = name.split()
    return parts[-1] if len(parts) > 1 and not has_japanese(name) else ""


def _find_authors(q: str, known: Collection[str]) -> list[tuple[str, Span, str]]:
    """Known authors the question names with a cue: (author as stored, span to cut, the words)."""
    out: list[tuple[str, Span, str]] = []
    for author in sorted(known, key=len, reverse=True):
        # the whole name in any case; a surname alone only written capitalised, as names are
        forms = [(author, True)] + ([(surname, False)] if (surname := _surname(author)) else [])
        for form, whole in forms:
            flags = re.IGNORECASE if whole else re.NOFLAG
            # Japanese runs into the next word: no boundary there
            bounded = re.escape(form) if has_japanese(form) else rf"(?<![\w-]){re.escape(form)}(?![\w-])"
            for m in re.finditer(bounded, q, flags):
                if not whole and not m.group(0)[:1].isupper():
                    continue
                before = _AUTHOR_BEFORE.search(q[: m.start()])
                after = _AUTHOR_AFTER.match(q[m.end() :])
                if not (before or after):
                    continue
                start = before.start() if before else m.start()
                # "et al." and an honorific go with the name; a particle stays for the rest of the question
                end = m.end() + (len(after.group(0)) if after and after.group(0).strip() != "の" else 0)
                out.append((author, Span(start, end), q[start:end].strip()))
                break
            else:
                continue
            break
    return out


# ------------------------------------------------------------------------------- vaults
def _find_vaults(q: str, known: Collection[str]) -> list[tuple[str, Span, str]]:
    out: list[tuple[str, Span, str]] = []
    for v in sorted(known, key=len, reverse=True):
        name = re.escape(v)
        patterns = [
            rf"\b(?:in|from|of)\s+(?:my|the)\s+{name}\s+vault\b",
            rf"\b(?:in|from|of)\s+{name}\s+vault\b",
            rf"(?<![\w-]){name}\s+vault\b",
            rf"\bvault\s+[\"']?{name}(?![\w-])[\"']?",
            rf"(?<![\w-]){name}\s*の?\s*(?:ボールト|保管庫|ヴォールト|vault|Vault)(?:の|で|に|から|内の|内で)?",
            # the vault's name before what it holds: "research notes", 「research のメモ」
            rf"(?<![\w-]){name}\s+(?=(?:notes?|memos?|documents?|files?|entries)\b)",
            rf"(?<![\w-]){name}\s*の?\s*(?=(?:ノート|メモ|文書))",
        ]
        for pat in patterns:
            m = re.search(pat, q, re.IGNORECASE)
            if m and not any(s.start <= m.start() < s.end for _, s, _ in out):
                out.append((v, Span(m.start(), m.end()), m.group(0).strip()))
                break
    return out


# ------------------------------------------------------------------------------- cues
def _has_cue(q: str, lang: str) -> bool:
    return bool(_CUE_EN.search(q) or _CUE_I.search(q) or _CUE_JA.search(q))


def about_the_user(question: str) -> bool:
    """Whether a question is about the user's own notes, life or work ("How far did I run?", "my
    notes", 「私が書いた」): their notes may hold the answer, so it is not small talk."""
    return _has_cue(unicodedata.normalize("NFKC", question or ""), "")


# ------------------------------------------------------------------------------- text
def _cut(q: str, spans: list[Span]) -> str:
    """The question without the filter phrases, tidied (no dangling particles or prepositions)."""
    if not spans:
        return q
    keep = []
    pos = 0
    for s in sorted(spans, key=lambda s: s.start):
        if s.start >= pos:
            keep.append(q[pos : s.start])
            pos = s.end
        else:
            pos = max(pos, s.end)
    keep.append(q[pos:])
    text = " ".join(part.strip() for part in keep if part.strip())
    prev = None
    while prev != text:
        prev = text
        text = re.sub(r"\s*\b(?:in|from|during|since|of|for|with|the|at|on)\s*([?.!]?)$", r"\1", text, flags=re.I)
    text = re.sub(r"\s+([のにでをはとへ、。？?])", r"\1", text)
    text = re.sub(r"^\s*[のにでをはとへ、,]+", "", text)
    return re.sub(r"\s{2,}", " ", text).strip(" ,、")


def _only_generic(text: str, lang: str) -> bool:
    """True when nothing topical is left: the question only lists notes by metadata."""
    rest = _GENERIC_JA.sub(" ", text)
    words = re.findall(r"[^\W_]+", rest.lower())
    return all(w in _GENERIC_EN for w in words)
