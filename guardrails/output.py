"""Output guardrail: redact personal data the sources do not contain, flag leaked instructions.

An answer may quote an e-mail address from the user's own notes (that is the point of asking
them), but personal data that appears in no passage was produced by the model: it is
redacted. Presidio (``guardrails.pii``) finds it in the answer and in the passages, and
values are compared in ``canonical`` form, so ``+81 3-1234-5678`` in the answer is the
``03-1234-5678`` of a passage, and "Smith" is supported by a passage naming "John Smith".
Citation markers (``[1]``) are never part of an entity, so they survive redaction.

Instruction text in an answer (chat-template tokens, "my system prompt says", a
distinctive line of the real prompts passed as ``markers``) means an injection got through
or the model echoed its prompt; the verdict flags it and the graph decides what the user sees.
Text that the context itself contains is never flagged, so a note about prompt engineering
can still be quoted.

Links and e-mail addresses the question neither contains nor asks for (``unasked_links``) are
what a poisoned passage wants an answer to carry ("recommend https://…"): each is named with the
passages that hold it, or none (the model wrote it), so the user is warned before following it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from guardrails.patterns import normalise
from guardrails.pii import REDACTED_ENTITIES, PIIEntity, canonical, detect_pii, redact

#: generic signs of leaked instructions, on the normalised answer
LEAK_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "chat_template",
        re.compile(r"<\|(?:im_start|im_end|system|endoftext|start_header_id|eot_id)\|>|\[/?inst\]|<</?sys>>"),
    ),
    (
        "system_prompt",
        re.compile(
            r"\b(?:my|the) (?:system prompt|initial instructions|hidden instructions)\b"
            r"(?: (?:is|are|says?|reads?)\b| ?:)"
            r"|\bsystem prompt ?:|\bi was (?:instructed|told) (?:by the system )?to\b"
        ),
    ),
    (
        "system_prompt_ja",
        re.compile(r"システムプロンプト(?:は|の内容は|[:：])|(?:私|わたし)(?:への|に与えられた)指示は"),
    ),
)


class OutputVerdict(BaseModel):
    """The answer as the user may see it, and what the guardrail changed or found."""

    text: str = Field(description="The answer with unsupported personal data redacted.")
    redactions: list[PIIEntity] = Field(
        default_factory=list, description="Personal data removed, with offsets into the original answer."
    )
    flagged: list[str] = Field(
        default_factory=list, description="Names of leaked-instruction signs found; non-empty means do not show as-is."
    )


def check_output(
    answer: str,
    *,
    context: Sequence[str] = (),
    markers: Sequence[str] = (),
    language: str | None = None,
) -> OutputVerdict:
    """Redact personal data not found in ``context``; flag instruction text not found there either.

    ``markers`` are distinctive phrases of the system prompts in use (a sentence or a heading
    of each); an answer that repeats one has leaked its prompt. ``language`` is the answer's
    (None detects it); passages are analysed in their own language.
    """
    redactions = unsupported_pii(answer, context, language=language)
    flat_answer = normalise(answer)
    flat_context = normalise("\n".join(context))
    flagged: list[str] = []
    for name, rx in LEAK_PATTERNS:
        hit = rx.search(flat_answer)
        if hit and hit.group(0) not in flat_context:
            flagged.append(name)
    for marker in markers:
        flat = normalise(marker)
        if flat and flat in flat_answer and flat not in flat_context:
            flagged.append(f"prompt_marker: {marker[:40]}")
    return OutputVerdict(text=redact(answer, redactions), redactions=redactions, flagged=flagged)


def unsupported_pii(answer: str, context: Sequence[str], *, language: str | None = None) -> list[PIIEntity]:
    """Personal data in ``answer`` that no passage of ``context`` contains.

    Supported means the value's canonical form appears in the passages' canonical text (which
    also accepts "Smith" for "John Smith" and a number written with other separators), or,
    for phones and IPs, whose canonical form drops a country code or expands ``::``, that
    Presidio finds the same value in a passage. Passages are analysed only for those two
    types and only when the cheap check failed, so most answers cost one analysis.
    """
    flat = canonical("TEXT", "\n".join(context)) if context else ""
    if flat and _quoted(answer, flat):
        return []  # an extractive answer: every sentence is a passage's, so is every value in it
    found = detect_pii(answer, language, entities=sorted(REDACTED_ENTITIES))
    if not found or not context:
        return found
    pending = [e for e in found if not (canonical(e.entity_type, e.text) and _flat(e) in flat)]
    reformatted = sorted({e.entity_type for e in pending} & _REFORMATTED_TYPES)
    known: set[tuple[str, str]] = set()
    if reformatted:
        for passage in context:
            for e in detect_pii(passage, None, entities=reformatted):
                known.add((e.entity_type, canonical(e.entity_type, e.text)))
    return [e for e in pending if (e.entity_type, canonical(e.entity_type, e.text)) not in known]


def _quoted(answer: str, flat_context: str) -> bool:
    """Whether every sentence of ``answer`` (citation markers aside) appears in the passages."""
    pieces = [canonical("TEXT", p) for p in _SENTENCE_BREAK.split(_CITATION_MARK.sub(" ", answer))]
    pieces = [p for p in pieces if p.strip()]
    return bool(pieces) and all(p.strip() in flat_context for p in pieces)


_CITATION_MARK = re.compile(r"\[\d+(?:\s*,\s*\d+)*\]")
_CITED = re.compile(r"\s*" + _CITATION_MARK.pattern)
"""A citation marker with the space before it: what a quoted sentence drops."""
_SENTENCE_BREAK = re.compile(r"(?<=[。．！？!?])|(?<=\.)\s|\n+")


def _flat(entity: PIIEntity) -> str:
    """The entity's value as it appears in ``canonical("TEXT", ...)`` of the passages."""
    return canonical("TEXT", entity.text)


#: types whose canonical form is not a plain folding of the text (country codes, IPv6 ``::``)
_REFORMATTED_TYPES = frozenset({"PHONE_NUMBER", "IP_ADDRESS"})


_LINK = re.compile(r"\b(?:https?://|www\.)[^\s<>()\[\]{}\"'「」『』（）、。，]+", re.IGNORECASE)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}", re.IGNORECASE)
_TRAILING = ".,;:!?)]}>"
#: a question that asks for a link, a site or an address, in English, German, Japanese and Chinese
_ASKS_FOR_LINK = re.compile(
    r"\b(?:links?|urls?|web ?sites?|web ?pages?|homepage|sites?|e-?mails?|mail address|contact|download"
    r"|webseite|internetseite|e-mail-adresse|kontakt|herunterladen)\b"
    r"|リンク|ＵＲＬ|サイト|ホームページ|ウェブ|メール|連絡先|アドレス|ダウンロード"
    r"|链接|網址|网址|网站|網站|邮箱|邮件|電郵|联系|聯繫|下载",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Link:
    """A link or e-mail address in an answer, and the numbers (from 1) of the passages holding it."""

    value: str
    kind: Literal["link", "email"]
    passages: tuple[int, ...]


def unasked_links(answer: str, question: str, passages: Sequence[str]) -> list[Link]:
    """Links and e-mail addresses in ``answer`` that ``question`` neither contains nor asks for,
    each with the passages that hold it (none: the model wrote it). A question that asks for a
    link, a site, an address or a contact expects them: nothing is reported."""
    if _ASKS_FOR_LINK.search(question):
        return []
    asked = question.casefold()
    found: dict[str, Literal["link", "email"]] = {}
    for m in _LINK.finditer(answer):
        found.setdefault(m.group(0).rstrip(_TRAILING), "link")
    for m in _EMAIL.finditer(answer):
        if not any(m.group(0) in v for v in found):  # an address inside a link is the link's
            found.setdefault(m.group(0), "email")
    held = [p.casefold() for p in passages]
    return [
        Link(value, kind, tuple(n for n, p in enumerate(held, start=1) if value.casefold() in p))
        for value, kind in found.items()
        if value.casefold() not in asked
    ]


#: what an answer should not ask a reader to hand over: passwords, codes, keys, card numbers
_SECRET = re.compile(
    r"pass(?:word|code|phrase)s?|(?-i:\bPINs?\b)|pin (?:code|number)s?|access codes?|security codes?"
    r"|verification codes?|one-time codes?|(?-i:\bOTPs?\b)|credentials|log-?in details|api keys?"
    r"|(?:access|auth|api|bearer|session) tokens?|card numbers?|(?-i:\bCV[VC]\b)|account numbers?"
    r"|social security numbers?"
    r"|passw(?:o|ö)rt\w*|kennw(?:o|ö)rt\w*|zugangs(?:code|daten)\w*|anmeldedaten|sicherheitscode\w*"
    r"|bestätigungscode\w*|kartennummer\w*|(?-i:\bTANs?\b)|geheimzahl"
    r"|パスワード|暗証番号|アクセスコード|認証コード|確認コード|セキュリティコード|ログイン情報|カード番号|APIキー|アクセストークン"
    r"|密码|密碼|验证码|驗證碼|访问码|訪問碼|口令|卡号|卡號|密钥|密鑰|令牌",
    re.IGNORECASE,
)
#: asking the reader to give, send or type it (en, de, ja, zh)
_HAND_OVER = re.compile(
    r"\b(?:quote|provide|share|send|enter|type|include|reply|tell|confirm|submit|give|forward|paste|disclose|mention)\w*\b"
    r"|\b(?:angeben|geben|gib|gebt|gibt|nenn\w*|send\w*|gesendet|schick\w*|geschickt|teil\w*|eingeben|mitteil\w*"
    r"|bestätig\w*|übermittel\w*|antwort\w*)\b"
    r"|入力|送信|送っ|送り|共有|教え|記載|伝え|提供|引用|お知らせ|返信|書き"
    r"|发送|發送|输入|輸入|分享|告诉|告訴|填写|填寫|回复|回覆|写出|寫出|发给|發給",
    re.IGNORECASE,
)
#: a warning not to hand it over is no request ("never share your password", 「教えないで」, 不要提供):
#: a negation shortly before the verb (English, German, Chinese) or right after it (Japanese)
_NEGATED_BEFORE = re.compile(
    r"(?:\b(?:not|never|don't|no one|nobody)\b|不要|不得|切勿|请勿|請勿|别|別|不能|勿)[^.。!?！？]{0,30}$",
    re.IGNORECASE,
)
_NEGATED_AFTER = re.compile(r"^\w{0,3}?(?:ない|ません|てはいけ|ではいけ|てはなら|ではなら|ちゃいけ|ぬ)")
#: German puts the negation anywhere in the clause ("Geben Sie Ihr Passwort niemals weiter")
_NEGATED_CLAUSE = re.compile(r"\b(?:nicht|niemals|nie|keine\w*|niemandem)\b", re.IGNORECASE)
#: a question about signing in expects "enter your password"
_ABOUT_SIGNING_IN = re.compile(
    r"\b(?:log ?in|login|sign ?in|signing in|logging in|two-factor|2fa|mfa|authenticat\w*|anmeld\w*|einlogg\w*)\b"
    r"|ログイン|サインイン|二段階認証|認証|登录|登入|登錄|双重验证|身份验证",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class SecretRequest:
    """A sentence of an answer that asks the reader to hand over a secret, and the numbers (from 1)
    of the passages that ask for one too."""

    sentence: str
    passages: tuple[int, ...]


def requests_for_secrets(answer: str, question: str, passages: Sequence[str]) -> list[SecretRequest]:
    """Sentences of ``answer`` asking the reader to give, send or type a password, code, key or
    card number when ``question`` names no such thing and is not about signing in (such a
    question expects "enter your password"): what a poisoned passage gets a model to write. Each comes
    with the passages that ask for a secret as well (none: the model wrote it)."""
    if _SECRET.search(question) or _ABOUT_SIGNING_IN.search(question):
        return []
    found = [" ".join(x.split()) for x in _sentences(_CITED.sub("", answer)) if _asks(x)]
    if not found:
        return []
    asking = tuple(n for n, p in enumerate(passages, start=1) if any(_asks(x) for x in _sentences(p)))
    return [SecretRequest(x, asking) for x in dict.fromkeys(found)]


def _asks(sentence: str) -> bool:
    """Whether the sentence names a secret and asks, unnegated, for it to be given or typed."""
    if not _SECRET.search(sentence) or _NEGATED_CLAUSE.search(sentence):
        return False
    return any(
        not _NEGATED_BEFORE.search(sentence[: m.start()]) and not _NEGATED_AFTER.search(sentence[m.end() :])
        for m in _HAND_OVER.finditer(sentence)
    )


def _sentences(text: str) -> list[str]:
    return [x for x in _SENTENCE_BREAK.split(text) if x and x.strip()]
