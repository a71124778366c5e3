"""Route a question without a language model: nearest exemplars in embedding space.

Three routes: ``vector_search`` (the user's notes and documents), ``web_search`` (news, today's
weather, current prices, latest releases) and ``direct_answer`` (greetings, thanks, small
talk). Each route has a few dozen exemplar questions in Japanese and English; a question goes
to the route whose exemplars it resembles most, scored as the mean cosine of its ``TOP_K``
nearest exemplars of that route.

The default is ``vector_search``: without an LLM, a real question sent to ``direct_answer``
only gets "this needs a model", and one sent to ``web_search`` leaves the user's notes unread.
So another route must beat ``vector_search`` by a margin and reach a least score; both are
cosines, so they belong to the embedding model (``route_margin`` and ``route_min_score`` in
components/models/calibration.py).
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from components.models.calibration import FALLBACK

log = logging.getLogger(__name__)

Route = Literal["vector_search", "web_search", "direct_answer"]

#: exemplars per route averaged into its score (the nearest ones; robust to one odd exemplar)
TOP_K = 4

VECTOR_EXEMPLARS: tuple[str, ...] = (
    "What did I write about BM25 parameters in my notes?",
    "Summarise my notes on retrieval-augmented generation.",
    "How do I make the dashi for miso soup according to my recipe?",
    "What were the decisions in the book club meeting?",
    "Which papers compare dense retrieval with BM25?",
    "Vitamin D supplementation reduces the risk of fractures in elderly people.",
    "Mutations in the BRCA1 gene increase breast cancer risk.",
    "What is the recommended chunk size for splitting documents?",
    "How did I set up the hybrid search experiment?",
    "Explain reciprocal rank fusion as described in my notes.",
    "When should I repot the plant?",
    "What does the paper say about the effect of exercise on memory?",
    "Who founded the company mentioned in the article?",
    "What is the role of macrophages in inflammation?",
    "How long should the chicken be marinated for karaage?",
    "Who said that knowledge is power?",
    "What is the full name of the author of this book?",
    "How many children did the king have?",
    "When does the monsoon reach India?",
    "メモに書いた BM25 のパラメータは？",
    "検索拡張生成についての自分のノートを要約して",
    "親子丼の割り下の作り方は？",
    "町内会の定例会で何が決まった？",
    "クロスエンコーダで再ランキングする方法を教えて",
    "日本語のトークナイズに使う辞書は何？",
    "偏西風が日本の気候に与える影響は？",
    "「知は力なり」と言ったのは誰か？",
    "その作曲家の本名は何か。",
    "その川の古い呼び名は何というか。",
    "その王には何人の息子がいたか？",
    "彼が医師から告げられた病名は？",
    "季節風が北上し始めるのはいつ頃か",
    "江戸幕府を開いたのは誰か？",
    "この論文の実験ではどのデータセットを使ったか",
    "京都旅行で訪れたお寺はどこ？",
)

WEB_EXEMPLARS: tuple[str, ...] = (
    "What's the weather in Tokyo today?",
    "Will it rain tomorrow in Osaka?",
    "Latest news about the election",
    "What is the current price of bitcoin?",
    "What is the dollar to yen exchange rate right now?",
    "Who won the football match last night?",
    "What is the latest version of Python?",
    "Stock price of Toyota today",
    "What happened in the world today?",
    "Breaking news this morning",
    "Is the train line delayed right now?",
    "When is the next iPhone release date?",
    "What are today's top headlines?",
    "Search the web for the newest LangGraph release notes.",
    "今日の東京の天気は？",
    "明日の大阪は雨が降る？",
    "最新のニュースを教えて",
    "今のビットコインの価格は？",
    "現在のドル円の為替レートは？",
    "昨夜のサッカーの試合結果は？",
    "Python の最新バージョンは？",
    "今日のトヨタの株価",
    "今朝の速報ニュース",
    "今、電車は遅延している？",
    "ウェブで最新のリリース情報を検索して",
)

DIRECT_EXEMPLARS: tuple[str, ...] = (
    "Hello!",
    "Hi there, how are you?",
    "Good morning",
    "Thanks a lot!",
    "Thank you, that was helpful.",
    "Who are you?",
    "What can you do?",
    "What is your name?",
    "Tell me a joke.",
    "What is 2 + 2?",
    "Bye, see you later.",
    "Nice to meet you.",
    "How's it going?",
    "OK, got it.",
    "こんにちは",
    "おはようございます",
    "ありがとう！",
    "助かりました、ありがとうございます",
    "あなたは誰？",
    "何ができるの？",
    "名前は何ですか？",
    "冗談を言って",
    "2たす2は？",
    "さようなら、またね",
    "元気？",
)

EXEMPLARS: dict[Route, tuple[str, ...]] = {
    "vector_search": VECTOR_EXEMPLARS,
    "web_search": WEB_EXEMPLARS,
    "direct_answer": DIRECT_EXEMPLARS,
}


@dataclass(frozen=True)
class RouteDecision:
    """The chosen route, its score, by how much it beat the runner-up, and why."""

    route: Route
    score: float
    margin: float
    reason: str
    scores: dict[Route, float]


class ExemplarRouter:
    """Nearest-exemplar router; exemplar vectors are computed once, on first use.

    ``embed`` maps texts to L2-normalised rows; pass the query encoder
    (``Embedder.encode_queries``) so that questions and exemplars share one space and the
    question's vector is the one dense search uses (and caches).
    """

    def __init__(
        self,
        embed: Callable[[list[str]], np.ndarray],
        *,
        exemplars: dict[Route, tuple[str, ...]] | None = None,
        margin: float = FALLBACK.route_margin,
        min_score: float = FALLBACK.route_min_score,
        top_k: int = TOP_K,
        cache_dir: Path | None = None,
        model_id: str = "",
    ) -> None:
        """``cache_dir`` and ``model_id``: keep the exemplar vectors on disk, so that a new process
        (every ``rag ask``) does not spend seconds embedding ~80 exemplars before its first answer."""
        self._embed = embed
        self._cache_dir = cache_dir
        self._model_id = model_id
        self._exemplars = exemplars or EXEMPLARS
        self.margin = margin
        self.min_score = min_score
        self.top_k = top_k
        self._matrices: dict[Route, np.ndarray] | None = None
        self._lock = threading.Lock()

    def prepare(self) -> None:
        """Embed the exemplars now (or read them from the disk cache), not at the first question."""
        self._vectors()

    def _vectors(self) -> dict[Route, np.ndarray]:
        with self._lock:
            if self._matrices is None:
                routes = list(self._exemplars)
                texts = [t for r in routes for t in self._exemplars[r]]
                m = self._load_or_embed(texts)
                out: dict[Route, np.ndarray] = {}
                i = 0
                for r in routes:
                    n = len(self._exemplars[r])
                    out[r] = m[i : i + n]
                    i += n
                self._matrices = out
            return self._matrices

    def _load_or_embed(self, texts: list[str]) -> np.ndarray:
        """The exemplars' vectors from the disk cache (keyed by model and texts), else embedded."""
        path = None
        if self._cache_dir is not None and self._model_id:
            key = hashlib.sha256("\x00".join([self._model_id, *texts]).encode()).hexdigest()[:16]
            path = self._cache_dir / f"route-exemplars-{key}.npy"
            if path.exists():
                try:
                    m = np.load(path)
                    if m.shape[0] == len(texts):
                        return np.asarray(m, dtype=np.float32)
                except (OSError, ValueError) as e:  # a damaged cache is only recomputed
                    log.warning("ignoring the route exemplar cache %s: %s", path, e)
        m = np.asarray(self._embed(texts), dtype=np.float32)
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(".tmp.npy")
                np.save(tmp, m)
                tmp.replace(path)
            except OSError as e:
                log.warning("could not cache the route exemplars at %s: %s", path, e)
        return m

    def scores(self, question: str, vector: np.ndarray | None = None) -> dict[Route, float]:
        """Per route, the mean cosine of the question to its ``top_k`` nearest exemplars."""
        v = np.asarray(vector if vector is not None else self._embed([question])[0], dtype=np.float32).ravel()
        out: dict[Route, float] = {}
        for r, m in self._vectors().items():
            sims = m @ v
            k = min(self.top_k, sims.size)
            out[r] = float(np.sort(sims)[-k:].mean()) if k else 0.0
        return out

    def route(self, question: str, vector: np.ndarray | None = None) -> RouteDecision:
        """vector_search unless web_search or direct_answer wins clearly (margin and floor)."""
        if not question.strip():
            return RouteDecision("direct_answer", 1.0, 1.0, "empty question", {})
        s = self.scores(question, vector)
        base = s.get("vector_search", 0.0)
        rivals = sorted(((sc, r) for r, sc in s.items() if r != "vector_search"), reverse=True)
        rounded = {k: round(v, 4) for k, v in s.items()}
        if rivals:
            best, route = rivals[0]
            lead = best - base
            if lead >= self.margin and best >= self.min_score:
                return RouteDecision(
                    route,
                    round(best, 4),
                    round(lead, 4),
                    f"closest to {route} exemplars ({best:.3f} vs vector_search {base:.3f})",
                    rounded,
                )
            reason = (
                f"default: {route} {best:.3f} does not beat vector_search {base:.3f} by {self.margin}"
                if lead > 0
                else f"closest to vector_search exemplars ({base:.3f} vs {route} {best:.3f})"
            )
            return RouteDecision("vector_search", round(base, 4), round(base - best, 4), reason, rounded)
        return RouteDecision("vector_search", round(base, 4), 0.0, "only vector_search exemplars", rounded)
