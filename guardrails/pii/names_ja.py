"""Japanese person names from GiNZA's tokens: Sudachi's name tags, honorifics and the phrases people
introduce themselves and others with, and the check that keeps GiNZA's Person label off places,
common nouns and job words.

Sudachi tags a token 名詞-固有名詞-人名-姓/名/一般 when its dictionary knows it as a name (田中,
健太, エミリー), 名詞-固有名詞-地名 for surnames that are also places (松本, 福島), and an
honorific after a name as its own token, 接尾辞-名詞的 (さん, 様, 氏, 君, ちゃん, 殿). So
"仕様", "同様" and "様子" are one token each and never a name followed by 様.

Found as names (``ja_name_spans``):

- a run of name-tagged tokens: a surname and a given name together (山田太郎), or any one of them
  with an honorific or a cue next to it;
- proper nouns, or katakana words, before an honorific token (ミラーさん, 松本さま); a hiragana
  or katakana common noun before ちゃん / くん / 君 (さくらちゃん);
- a noun before 「と申します」「と言います」, after 「私は」「名前は」 when 「です」 follows, and after a
  family word and の (息子の大翔).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from guardrails.pii.lexicons import NOT_NAMES_JA

#: honorific suffixes after a name (Sudachi: 接尾辞-名詞的) and job titles used as one (佐藤部長)
HONORIFIC_TOKENS = frozenset({"さん", "様", "さま", "氏", "君", "くん", "ちゃん", "殿", "どの", "たん"})
TITLE_TOKENS = frozenset({"先生", "部長", "課長", "社長", "係長", "主任", "教授", "医師", "選手", "監督"})
TITLE_TOKENS |= frozenset({"議員", "代表", "容疑者", "被告", "投手", "捕手", "記者", "弁護士", "党首", "首相"})
TITLE_TOKENS |= frozenset({"大統領", "知事", "市長", "会長"})
#: honorifics that also follow a child's or a pet's plain-word name (さくらちゃん, たろうくん)
_FAMILIAR = frozenset({"ちゃん", "くん", "君", "たん"})
_FAMILY = frozenset({"息子", "娘", "妻", "夫", "母", "父", "兄", "姉", "弟", "妹", "友人", "友達", "同僚", "上司"})
_FAMILY |= frozenset({"部下", "主人", "家内", "祖母", "祖父", "孫", "彼氏", "彼女", "長男", "長女", "次男", "次女"})
_KANA = re.compile(r"^[\u3041-\u3096\u30a1-\u30fa\u30fc・]+$")
_KATAKANA = re.compile(r"^[\u30a1-\u30fa\u30fc・]+$")
#: a ruler's name and ordinal (ヘンリー8世, フアン2世, ノンビリキング十三世): a person, digits and all
REGNAL = re.compile(r"[\u30a1-\u30fa\u30fc・]{2,}[0-9０-９一二三四五六七八九十]+世")


@functools.cache
def _sudachi() -> Any:
    """A Sudachi tokenizer over the dictionary GiNZA reads (memory-mapped, so loaded once and shared)."""
    import sudachipy

    return sudachipy.Dictionary(dict="core").create()


def unknown_word(text: str) -> bool:
    """Whether Sudachi's dictionary lacks ``text``: it reads it as one word it does not know."""
    morphemes = list(_sudachi().tokenize(text))
    return len(morphemes) == 1 and morphemes[0].is_oov()


def _name_tag(token: Any) -> bool:
    return "人名" in token.tag_


def _proper(token: Any) -> bool:
    return token.tag_.startswith("名詞-固有名詞") and "地名-国" not in token.tag_


def _honorific(token: Any | None) -> bool:
    if token is None:
        return False
    return (token.text in HONORIFIC_TOKENS and token.tag_.startswith("接尾辞")) or token.text in TITLE_TOKENS


def _compound_head(token: Any | None) -> bool:
    """Whether ``token`` makes the name before it part of a compound noun (キリスト教, オスマン帝国,
    稲川組, 田中市役所), rather than a title after a person (オバマ米大統領, 谷川容疑者)."""
    if token is None or not token.tag_.startswith(("名詞-普通名詞", "接尾辞", "名詞-固有名詞-地名")):
        return False
    return not (_honorific(token) or any(token.text.endswith(title) for title in TITLE_TOKENS))


def _noun_run_before(tokens: list[Any], end: int) -> int:
    """Start index of the run of proper nouns (joined by ・) that ends just before ``end``."""
    i = end
    while i > 0 and (_proper(tokens[i - 1]) or (tokens[i - 1].text == "・" and i - 1 > 0 and _proper(tokens[i - 2]))):
        i -= 1
    return i


def _kana_word_ok(token: Any, honorific: str) -> bool:
    """A katakana common noun before さん may be a foreign name (ミラー is also "mirror"), a kana
    common noun before ちゃん or くん a child's name; job and role words never are."""
    if token.text in NOT_NAMES_JA or not token.tag_.startswith("名詞"):
        return False
    if honorific in _FAMILIAR:
        return bool(_KANA.match(token.text))
    return bool(_KATAKANA.match(token.text)) and "人名" in token.tag_


def ja_name_spans(tokens: list[Any]) -> list[tuple[int, int, float]]:
    """(start, end, score) of Japanese names over GiNZA tokens (see the module's docstring)."""
    spans: list[tuple[int, int, float]] = []
    n = len(tokens)

    def add(i: int, j: int, score: float) -> None:
        if i < j and "".join(t.text for t in tokens[i:j]) not in NOT_NAMES_JA:
            spans.append((tokens[i].idx, tokens[j - 1].idx + len(tokens[j - 1].text), score))

    i = 0
    while i < n:  # runs of name-tagged tokens
        if not _name_tag(tokens[i]):
            i += 1
            continue
        j = i
        while j < n and (_name_tag(tokens[j]) or (tokens[j].text == "・" and j + 1 < n and _name_tag(tokens[j + 1]))):
            j += 1
        parts = {t.tag_.rsplit("-", 1)[-1] for t in tokens[i:j]}
        full = ("姓" in parts and "名" in parts) or j - i >= 3 or _honorific(tokens[j] if j < n else None)
        # a lone surname or given name is often a place or a word too (林, 松本); a lone
        # 人名-一般 is a name the dictionary knows only as one (アルキメデス, オバマ)
        nxt = tokens[j] if j < n else None
        if full:
            add(i, j, 0.85)
        elif not _compound_head(nxt):
            add(i, j, 0.6 if parts == {"一般"} else 0.5)
        i = j
    for k, tok in enumerate(tokens):  # before an honorific
        if not _honorific(tok) or k == 0:
            continue
        start = _noun_run_before(tokens, k)
        if start < k:
            add(start, k, 0.85)
        elif _kana_word_ok(tokens[k - 1], tok.text):
            add(k - 1, k, 0.7)
    for k in range(n):  # cues: と申します / と言います, 私は X です, 息子の X
        t = tokens[k]
        if t.text == "と" and k + 1 < n and tokens[k + 1].lemma_ in ("申す", "言う", "いう", "申し上げる"):
            start = _noun_run_before(tokens, k)
            if start < k:
                add(start, k, 0.85)
        if t.text in ("は", "が") and k > 0 and tokens[k - 1].text in ("私", "わたし", "僕", "俺", "名前", "わたくし"):
            j = k + 1
            while j < n and (_proper(tokens[j]) or _name_tag(tokens[j])):
                j += 1
            if j > k + 1 and j < n and tokens[j].text in ("です", "だ", "と", "。"):
                add(k + 1, j, 0.85)
        if t.text == "の" and k > 0 and tokens[k - 1].text in _FAMILY:
            j = k + 1
            while j < n and (_proper(tokens[j]) or _name_tag(tokens[j])):
                j += 1
            if j > k + 1:
                add(k + 1, j, 0.7)
    text = tokens[0].doc.text if tokens else ""
    spans += [(m.start(), m.end(), 0.85) for m in REGNAL.finditer(text)]
    return spans


def ner_person_ok(span: list[Any], after: Any | None) -> bool:
    """Whether GiNZA's Person label over the tokens ``span`` (``after`` follows them) can be a name.

    GiNZA labels a place alone (福島の7割), a common noun or a job word (スタッフさん, 常連さん) a
    person: a span with no proper noun and no name tag is one only before an honorific or
    ちゃん; a span that is a place name is one only before an honorific.
    """
    if not span:
        return False
    titled = _honorific(after)
    if _compound_head(span[-1]) and len(span) > 1 and not titled:
        return False  # 矢吹消防署, 荒川灯籠流し: a name at the head of a compound noun
    if any(_name_tag(t) for t in span):
        return True
    if all("地名" in t.tag_ for t in span if t.tag_.startswith("名詞")):
        return titled
    if any(_proper(t) for t in span):
        return True
    # a foreign name Sudachi's dictionary does not hold is an unknown katakana noun to it (ポールセン,
    # ローズクランズ): GiNZA's Person is trusted there, not on a loanword it holds (バトル, カステラ)
    text = "".join(t.text for t in span)
    if len(text) >= 3 and _KATAKANA.match(text) and text not in NOT_NAMES_JA and unknown_word(text):
        return True
    return titled and after is not None and after.text in _FAMILIAR and all(_KANA.match(t.text) for t in span)
