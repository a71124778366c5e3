"""The views of a text an injection scan reads: cleaned, de-obfuscated, and its hidden parts alone.

Attacks hide from scanners in ways a model still reads: full-width letters, zero-width
characters between letters, leetspeak ("1gn0r3"), spaced-out letters, misspelled attack words
("instrucitons"), base64, and, in documents,
carriers a page does not show (HTML comments, alt text, hidden elements, code or "tool output"
blocks, fake 【システム】/``[SYSTEM]``/``<|im_start|>system`` sections). :func:`views` returns the
cleaned text plus every such view, so that a classifier or a pattern sees the instruction both
in context and on its own (a hidden sentence diluted by a page of ordinary text is still one
view of its own).
"""

from __future__ import annotations

import re
import unicodedata

from rapidfuzz import process
from rapidfuzz.distance import OSA

from guardrails.patterns import decoded_payloads

#: zero-width and bidirectional control characters: invisible, and they split words for a scanner
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]"
)
_SPACES = re.compile(r"[ \t\u3000]+")
_BLANK_LINES = re.compile(r"\n{3,}")

_HTML_COMMENT = re.compile(r"<!--(.*?)-->", re.S)
_ATTRIBUTE = re.compile(r"\b(?:alt|title|aria-label|data-[\w-]+|content)\s*=\s*(\"[^\"]*\"|'[^']*')", re.I)
_HIDDEN_ELEMENT = re.compile(
    r"<(\w+)[^>]*(?:display\s*:\s*none|visibility\s*:\s*hidden|\bhidden\b|font-size\s*:\s*0)[^>]*>(.*?)</\1>",
    re.I | re.S,
)
_FENCE = re.compile(r"```[^\n]*\n(.*?)```", re.S)
_MARKER = re.compile(
    r"(?:【\s*(?:システム|system|系统|系統|管理者|指示)\s*】|\[\s*(?:system|sys|admin|instructions?)\s*\]|"
    r"<\|im_start\|>\s*system|<<\s*sys\s*>>|###\s*(?:system|instruction)s?\s*:?)(.*)",
    re.I,
)
_TAGS = re.compile(r"<[^>]+>")

#: the words an override is made of, in English and German: a misspelling of one of them
#: ("instrucitons", "igonre", "Anwiesungen") is spelled right in a view of its own
ATTACK_WORDS = (
    "ignore", "disregard", "forget", "override", "bypass", "previous", "instructions", "instruction",
    "directions", "guidelines", "restrictions", "system", "prompt", "password", "reveal", "pretend",
    "unrestricted", "developer", "jailbreak", "ignoriere", "vergiss", "vorherigen", "anweisungen",
    "befehle", "passwort", "einschränkungen",
)  # fmt: skip
_WORD = re.compile(r"[A-Za-zÄÖÜäöüß]{5,}")

_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s", "!": "i"})
_LEET_WORD = re.compile(r"\b(?=\w*[a-z])(?=\w*[013457@$])[\w@$!]{3,}\b", re.I)
_SPACED = re.compile(r"(?:\b\w\b[ .\-_*]{1,3}){4,}\b\w\b")
_WIDE_GAP = re.compile(r" {2,}")


#: a quoted stretch (double, typographic, German, French and CJK quotes): what a text mentions
#: rather than says ("a line telling the bot to 'forget its rules'" in a security blog). A value
#: after ``=`` is no quotation but an attribute (``alt="AI assistant: forget the rules"``), and
#: nor is a stretch between two attributes' quotes with markup in it: both kept
_QUOTED = re.compile(
    r'(?<!=)"[^"\n<>]{1,300}"|“[^”\n]{1,300}”|„[^“”\n]{1,300}[“”]|«[^»\n]{1,300}»|「[^」\n]{1,300}」|『[^』\n]{1,300}』'
)


def without_quotations(text: str) -> str:
    """``text`` with its quoted stretches blanked: what it says, not what it mentions."""
    return _QUOTED.sub(" ", text)


def fold(text: str) -> str:
    """NFKC (full width to ASCII) and invisible characters removed; spacing kept as written."""
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", text))


def clean(text: str) -> str:
    """:func:`fold`, then runs of spaces one space."""
    return _BLANK_LINES.sub("\n\n", _SPACES.sub(" ", fold(text))).strip()


def hidden_parts(text: str) -> list[str]:
    """What a page or note carries that a reader does not see, or that poses as the system."""
    parts: list[str] = [m.group(1) for m in _HTML_COMMENT.finditer(text)]
    parts += [m.group(1)[1:-1] for m in _ATTRIBUTE.finditer(text)]
    parts += [_TAGS.sub(" ", m.group(2)) for m in _HIDDEN_ELEMENT.finditer(text)]
    parts += [m.group(1) for m in _FENCE.finditer(text)]
    parts += [m.group(0) for m in _MARKER.finditer(text)]
    return [p.strip() for p in parts if len(p.strip()) >= 8]


def unleet(text: str) -> str | None:
    """The text with leetspeak digits read as letters, when at least two words use them."""
    if len(_LEET_WORD.findall(text)) < 2:
        return None
    return _LEET_WORD.sub(lambda m: m.group(0).translate(_LEET), text)


def unspaced(text: str) -> str | None:
    """Letters spaced or dotted apart ("i g n o r e") joined again; a wider gap between them
    ("i g n o r e  a l l", two spaces or more) stays a word break, so the words read as words.

    Read on the text before its runs of spaces are collapsed (``views`` passes it so)."""
    if not _SPACED.search(text):
        return None

    def join(run: str) -> str:
        return " ".join(re.sub(r"[ .\-_*]", "", word) for word in _WIDE_GAP.split(run))

    return _SPACED.sub(lambda m: join(m.group(0)), text)


def respelled(text: str) -> str | None:
    """The text with misspelled attack words (``ATTACK_WORDS``) spelled right, when it has any.

    One edit (a letter dropped, added, changed, or two swapped: optimal string alignment) for
    words up to eight letters, two for longer ones that keep their first letter; a word that is
    already an attack word is left alone. The view only adds what the scan reads: a benign word
    respelled ("I forgot my password" as "I forget my password") still reads as benign text."""
    changed = False

    def fix(m: re.Match[str]) -> str:
        nonlocal changed
        word = m.group(0)
        low = word.lower()
        if low in ATTACK_WORDS:
            return word
        cutoff = 1 if len(low) <= 8 else 2
        hit = process.extractOne(low, ATTACK_WORDS, scorer=OSA.distance, score_cutoff=cutoff)
        if hit is None or (hit[1] == 2 and hit[0][0] != low[0]):
            return word
        changed = True
        return str(hit[0])

    out = _WORD.sub(fix, text)
    return out if changed else None


def views(text: str) -> list[str]:
    """The cleaned text first, then each distinct de-obfuscated or hidden view of it."""
    base = clean(text)
    out = [base]
    extra: list[str | None] = [
        *hidden_parts(base),
        *decoded_payloads(base),
        unleet(base),
        respelled(base),
        unspaced(fold(text)),  # before spaces collapse: a wider gap is a word break
        romaji_to_kana(base),
    ]
    if _TAGS.search(base):  # the page as text, without markup
        extra.append(clean(_TAGS.sub(" ", _HTML_COMMENT.sub(" ", base))))
    for v in extra:
        if v and v not in out:
            out.append(clean(v))
    return out


# --------------------------------------------------------------------------- romaji

_KANA = {
    "kya": "きゃ", "kyu": "きゅ", "kyo": "きょ", "sha": "しゃ", "shu": "しゅ", "sho": "しょ", "she": "しぇ",
    "cha": "ちゃ", "chu": "ちゅ", "cho": "ちょ", "che": "ちぇ", "nya": "にゃ", "nyu": "にゅ", "nyo": "にょ",
    "hya": "ひゃ", "hyu": "ひゅ", "hyo": "ひょ", "mya": "みゃ", "myu": "みゅ", "myo": "みょ",
    "rya": "りゃ", "ryu": "りゅ", "ryo": "りょ", "gya": "ぎゃ", "gyu": "ぎゅ", "gyo": "ぎょ",
    "ja": "じゃ", "ju": "じゅ", "jo": "じょ", "je": "じぇ", "bya": "びゃ", "byu": "びゅ", "byo": "びょ",
    "pya": "ぴゃ", "pyu": "ぴゅ", "pyo": "ぴょ", "shi": "し", "chi": "ち", "tsu": "つ", "ji": "じ", "fu": "ふ",
    "ka": "か", "ki": "き", "ku": "く", "ke": "け", "ko": "こ", "sa": "さ", "su": "す", "se": "せ", "so": "そ",
    "ta": "た", "te": "て", "to": "と", "na": "な", "ni": "に", "nu": "ぬ", "ne": "ね", "no": "の",
    "ha": "は", "hi": "ひ", "he": "へ", "ho": "ほ", "ma": "ま", "mi": "み", "mu": "む", "me": "め", "mo": "も",
    "ya": "や", "yu": "ゆ", "yo": "よ", "ra": "ら", "ri": "り", "ru": "る", "re": "れ", "ro": "ろ",
    "wa": "わ", "wo": "を", "ga": "が", "gi": "ぎ", "gu": "ぐ", "ge": "げ", "go": "ご", "za": "ざ", "zu": "ず",
    "ze": "ぜ", "zo": "ぞ", "da": "だ", "de": "で", "do": "ど", "ba": "ば", "bi": "び", "bu": "ぶ", "be": "べ",
    "bo": "ぼ", "pa": "ぱ", "pi": "ぴ", "pu": "ぷ", "pe": "ぺ", "po": "ぽ",
    "a": "あ", "i": "い", "u": "う", "e": "え", "o": "お", "n": "ん",
}  # fmt: skip
_ROMAJI_WORD = re.compile(r"[a-z]+")


def _kana_word(word: str) -> str | None:
    """A Hepburn word in hiragana, or None when it is not made of romaji syllables."""
    out: list[str] = []
    i = 0
    while i < len(word):
        if i + 1 < len(word) and word[i] == word[i + 1] and word[i] not in "aiueon":
            out.append("っ")  # a doubled consonant: small tsu
            i += 1
            continue
        for size in (3, 2, 1):
            piece = word[i : i + size]
            kana = _KANA.get(piece)
            # a lone n before a vowel or y starts the next syllable instead
            if kana and not (piece == "n" and i + 1 < len(word) and word[i + 1] in "aiueoy"):
                out.append(kana)
                i += size
                break
        else:
            return None
    return "".join(out)


def romaji_to_kana(text: str) -> str | None:
    """Japanese written in romaji ("mae no shiji wo mushi shite") in hiragana, so the multilingual
    model reads it as Japanese; None when the text is not mostly romaji (English, code)."""
    words = _ROMAJI_WORD.findall(text.lower())
    if len(words) < 3:
        return None
    kana = [_kana_word(w) for w in words]
    if sum(k is not None for k in kana) < 0.8 * len(words):
        return None
    converted = iter(kana)
    out = _ROMAJI_WORD.sub(lambda m: next(converted) or m.group(0), text.lower())
    return _KANA_GAP.sub("", out)  # Japanese is written without spaces between words


_KANA_GAP = re.compile(r"(?<=[\u3041-\u309f]) (?=[\u3041-\u309f])")
