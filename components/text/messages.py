"""What users read, defined once: the answers the graph gives itself when it cannot give one from
the documents (in Japanese and English), and the warnings beside an answer.

Prompts (what models read) live with the nodes that send them (``nodes/rag/prompts.py``);
these are shown to people, and the graders recognise ``NO_INFO`` as "no answer".
"""

from __future__ import annotations

import re

LANGUAGE_NAMES = {"ja": "Japanese", "en": "English"}

NO_INFO = {"ja": "情報が見つかりませんでした。", "en": "No information found in the indexed documents."}
"""The answer when the passages do not hold one (the generator is told to say exactly this)."""

FALLBACK = {
    "ja": "申し訳ありませんが、この質問にはお答えできません。",
    "en": "I'm sorry, but I can't answer this question from the available information.",
}
"""The polite end of a self-correcting loop that reached its cap."""

NEEDS_MODEL = {
    "ja": "この質問には言語モデルが必要です。LLM_MODEL（Ollama のモデル名）を設定してください。",
    "en": "This question needs a language model to answer: set LLM_MODEL to an Ollama model.",
}

ERROR_MESSAGE = {
    "ja": "申し訳ありません。回答の生成中にエラーが発生しました。"
    "しばらくしてからもう一度お試しください（リクエスト ID: {request_id}）。",
    "en": "Sorry, something went wrong while answering. Please try again later (request id: {request_id}).",
}

REFUSAL = {
    "ja": "申し訳ありませんが、このご依頼にはお応えできません。"
    "お手持ちの文書やノートの内容についてのご質問でしたら、喜んでお手伝いします。",
    "en": "Sorry, I can't help with that request. "
    "I'm happy to answer questions about the contents of your documents and notes.",
}
"""The reply to a question the input guardrail blocked."""

TOO_LONG = {
    "ja": "ご質問が長すぎます。{limit} 文字以内で、知りたいことを短くまとめて質問してください。",
    "en": "Your question is too long. Please ask it in at most {limit} characters.",
}


NOTHING_RELEVANT = {
    "ja": "関連しそうな結果はありませんでした。最も近いチャンクのスコアは {best:.2f} で、最低スコア {minimum:g}"
    "（結果が関連している確率）を下回りました。別の語や少ない語、ノートで使っている言葉（または英語）で"
    "検索するか、フィルタを減らすか、最低スコアを 0 にして（`rag search --min-score 0`、Context.min_score）"
    "最も近いチャンクを表示してください。",
    "en": "Nothing in the index looks relevant: the closest chunk scored {best:.2f}, below the minimum "
    "score {minimum:g} (a score is the probability that a result is relevant). Try other or fewer "
    "words, the terms your notes use (or their other language), fewer filters, or a minimum of 0 "
    "(`rag search --min-score 0`, Context.min_score) to see the closest chunks anyway.",
}
"""Search found chunks, but none scored the minimum: why the result is empty, and what to try."""


NUMBERS_UNMET = {
    "ja": "質問にある {numbers} は、回答が引用した文書のどこにも書かれていません。"
    "別の年や数値についての回答かもしれません。",
    "en": "The question names {numbers}, which none of the passages this answer cites states: "
    "the answer may be about another year or figure.",
}
"""Beside an answer whose cited passages never state a number (a year, a date, a dose) the question names."""


LISTED = {
    "ja": "条件（{conditions}）に合う文書は {count} 件です（{order}）。",
    "en": "{count} documents match {conditions} ({order}).",
}
"""The head of a listing: the answer to a question that states conditions on documents, not a topic."""

LISTED_ONE = {
    "ja": "条件（{conditions}）に合う文書は 1 件です。",
    "en": "One document matches {conditions}.",
}

LISTED_NONE = {
    "ja": "条件（{conditions}）に合う文書はありません。条件を減らすか、期間を広げてみてください。",
    "en": "No document matches {conditions}. Try fewer conditions or a wider period.",
}

LISTED_MORE = {
    "ja": "ほか {more} 件（最初の {shown} 件を表示）。",
    "en": "… and {more} more (the first {shown} shown).",
}

LISTED_ORDER = {
    "ja": {"newest": "新しい順", "oldest": "古い順"},
    "en": {"newest": "newest first", "oldest": "oldest first"},
}

LISTED_CONDITIONS = {
    "ja": {
        "tags": "タグ {values}",
        "vaults": "ボールト {values}",
        "authors": "著者 {values}",
        "created_between": "作成日 {start}〜{end}",
        "created_from": "作成日 {start} 以降",
        "created_to": "作成日 {end} 以前",
        "join": "、",
        "or": " または ",
    },
    "en": {
        "tags": "tags {values}",
        "vaults": "vault {values}",
        "authors": "by {values}",
        "created_between": "created {start} to {end}",
        "created_from": "created on or after {start}",
        "created_to": "created on or before {end}",
        "join": "; ",
        "or": " or ",
    },
}
"""How a listing words the conditions it applied, per language."""


# --------------------------------------------------------------------------- warnings
# A run's ``warnings`` say why an answer is what it is (where it came from, what was left out).
# These are in English whatever the question's language; each is a ``str.format`` template.

CACHE_HIT = "Answered from the cache (a similar question: {question!r})."

ANSWERED_BY_EXTRACTION = "Answered by extraction: {why}."
"""An earlier LLM call of this question timed out, so the rest of the run goes without the model."""

LLM_UNAVAILABLE = "The language model is unavailable ({error}); answered by extraction."

LLM_TIMED_OUT = "The language model did not answer in time ({error}); answered by extraction."

QUESTION_BLOCKED = "The question was blocked by the input guardrail ({category})."

SELF_CHECK_FAILED = "The LLM input check could not run ({why}); the non-LLM checks' verdict stands."

ANSWER_WITHHELD = "The output guardrail withheld the answer: {flagged}."

ANSWER_MASKED = "The output guardrail masked personal data not found in the sources ({kinds})."

UNASKED_LINK = "The answer holds a {kind} the question did not ask for, {value} ({origin}); check it before you use it."
"""``origin``: ``UNASKED_LINK_FROM`` or ``UNASKED_LINK_NOWHERE``."""

UNASKED_LINK_FROM = "from {passages}"

UNASKED_LINK_NOWHERE = "in none of the passages: the model wrote it"

SECRET_REQUEST = (
    "The answer asks you to hand over a password, code, key or card number, which the question did not ask about "
    "({origin}): {sentence!r}. Do not send one on the strength of this answer."
)
"""``origin``: ``SECRET_REQUEST_FROM`` or ``UNASKED_LINK_NOWHERE``."""

SECRET_REQUEST_FROM = "passages that ask for one: {passages}"

PASSAGE_WITHHELD = (
    "A passage from {label!r} was withheld: it holds instructions aimed at the assistant (injection score {score:.2f})."
)

WEB_SEARCH_OFF = "The question looks like one for web search, which is off; searching the index instead."

WEB_SEARCH_FAILED = "Web search failed ({why}); no answer could be sourced."

RETRIED_WITHOUT_FILTERS = "Retried without the filters read from the question ({filters})."

SOURCES_DISAGREE = "Sources disagree: {first} says {first_value}, {second} says {second_value}{newer}."
"""Two passages of the context give one thing different values; ``newer``: "; the newer is 'X'" when both are dated."""

OLDER_LEFT_OUT = "{count} passage(s) of documents older than {days} days were left out (max_age_days): {titles}."

OLDER_KEPT = "The context holds passages of documents older than {days} days (max_age_days): {titles}."


def pick(texts: dict[str, str], language: str) -> str:
    """The text in the question's language, English when there is none."""
    return texts.get(language, texts["en"])


_CITATION = re.compile(r"\s*\[\d+(?:\s*[,，、]\s*\d+)*\]")


def strip_citations(text: str) -> str:
    """``text`` without its ``[n]`` / ``[1, 2]`` citation markers."""
    return _CITATION.sub("", text).strip()


def is_decline(answer: str) -> bool:
    """Whether an answer is one of ours that answers nothing: no information, the fallback, a
    refusal, "needs a model" (in any language we speak), or empty."""
    text = strip_citations(answer).rstrip("。.").casefold()
    return not text or any(text.startswith(d) for d in _DECLINES)


_DECLINES = tuple(
    m.rstrip("。.").casefold() for table in (NO_INFO, FALLBACK, NEEDS_MODEL, REFUSAL) for m in table.values()
)
