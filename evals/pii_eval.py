"""Score the Presidio PII detector (``guardrails.pii.detect_pii``) on labelled JSONL files.

Each line: ``{"text": ..., "lang": "en"|"ja", "spans": [{"start", "end", "entity_type"}],
"labelled"?: [types], ...}``. Offsets index the text as written (Python ``str`` indices, so
full-width characters count one). ``labelled`` names the types a public corpus annotates (an NER
corpus labels persons, not phone numbers): predictions of other types are counted apart as
``unscored``, not as false positives. A line without it is labelled for every type.

The matching rule, chosen to judge what redaction needs (was the data covered?) rather
than exact boundaries, on which annotators differ ("Dr. Smith" or "Smith"):

- a predicted span is a true positive when it overlaps (shares at least one character with)
  a gold span of the same type;
- a gold span is found (recall) when some predicted span of the same type overlaps it;
- ``STREET_ADDRESS`` and ``LOCATION`` count as one type, as do ``ADDRESS``, so that a gold set
  that labels street addresses ``LOCATION`` (presidio-research does) scores fairly;
- every prediction of a labelled type counts in precision.

The sets (``SETS``): the development set the rules were first written on, the hand-written set
of the shapes issue 35 names (local phone formats, cue names, multi-line addresses, Japanese
cues; the rules are tuned on these two), the dev splits of two public corpora nobody here wrote
(a sample of UNER English-EWT dev and UD Japanese-GSD's NE dev split: public text to tune the name
rules on), and their test splits, which are the check: a sample of UNER English-EWT test, its
sentences with contact data, and UD Japanese-GSD's NE test split; and usaddress's labelled US
street addresses (forms, filings and listings: capitals, lower case, missing commas), a tune half,
a check half and a second check of business listings (``guardrails/data/PII_SOURCES.md``). Also
reported: how many SciFact claims (gene, drug and protein names) and XQuAD's German questions get a
PERSON, and the time of one ``detect_pii`` on a typical question (the vault Q&A questions), warm,
after the analyzer has loaded.

    python -m evals.pii_eval                      # every set, SciFact, latency -> evals/reports/pii.json
    python -m evals.pii_eval FILE.jsonl --misses  # one file, with its misses and false positives

``score_pii`` returns one file's figures as a dict (``evals/guardrails.py --pii`` calls it).
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from guardrails.pii import PIIEntity, detect_pii, load_seconds

log = logging.getLogger(__name__)

_DATA = Path(__file__).resolve().parent.parent / "guardrails" / "data"
#: name -> labelled file; "tune" sets shaped the rules, "check" sets are public text nobody here wrote
SETS: dict[str, tuple[Path, str]] = {
    "dev": (_DATA / "pii_dev.jsonl", "tune"),
    "shapes": (_DATA / "pii" / "dev_shapes.jsonl", "tune"),
    "uner_en_ewt_dev": (_DATA / "pii" / "uner_en_ewt_dev.jsonl", "tune"),
    "ud_ja_gsd_dev": (_DATA / "pii" / "ud_ja_gsd_ne_dev.jsonl", "tune"),
    "uner_en_ewt": (_DATA / "pii" / "uner_en_ewt_test.jsonl", "check"),
    "uner_en_ewt_contacts": (_DATA / "pii" / "uner_en_ewt_contacts.jsonl", "check"),
    "ud_ja_gsd": (_DATA / "pii" / "ud_ja_gsd_ne_test.jsonl", "check"),
    "usaddress_tune": (_DATA / "pii" / "usaddress_labeled_tune.jsonl", "tune"),
    "usaddress_check": (_DATA / "pii" / "usaddress_labeled_check.jsonl", "check"),
    "usaddress_us50": (_DATA / "pii" / "usaddress_us50_check.jsonl", "check"),
}
SCIFACT = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "scifact" / "queries.jsonl"
SCIFACT_CLAIMS = 400
QUESTIONS = Path(__file__).resolve().parent / "data" / "vault_qa.jsonl"
#: XQuAD's questions (CC BY-SA 4.0, guardrails/data/SOURCES.md), of which the German ones are read
XQUAD = _DATA / "injection" / "xquad.jsonl"

#: gold or predicted type -> the type it is compared as
ALIASES = {"LOCATION": "STREET_ADDRESS", "ADDRESS": "STREET_ADDRESS", "PER": "PERSON", "EMAIL": "EMAIL_ADDRESS"}


def _norm(entity_type: str) -> str:
    return ALIASES.get(entity_type, entity_type)


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _latency(values: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    return {
        lang: {"p50": round(statistics.median(v), 2), "p95": round(_pct(v, 0.95), 2), "n": len(v)}
        for lang, v in sorted(values.items())
    }


def score_pii(path: Path, *, entities: Sequence[str] | None = None, keep_misses: bool = False) -> dict[str, Any]:
    """Recall, precision and latency of ``detect_pii`` on ``path``, per entity type and per language.

    Returns ``{"overall": {...}, "by_type": {type: {...}}, "by_language": {lang: {...}},
    "by_language_type": {"lang/type": {...}}, "latency_ms": {lang: {"p50", "p95", "n"}},
    "unscored": {type: n}, "load_seconds": float, "lines": int, "rule": str}``, each ``{...}``
    holding ``tp`` (predictions that hit), ``fp``, ``found`` and ``gold`` (gold spans found / all),
    ``recall`` and ``precision``. With ``keep_misses``, ``misses`` lists missed gold spans and
    false positives.
    """
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    loaded = load_seconds()
    counts: dict[str, dict[str, int]] = defaultdict(lambda: {"tp": 0, "fp": 0, "found": 0, "gold": 0})
    unscored: dict[str, int] = defaultdict(int)
    latency: dict[str, list[float]] = defaultdict(list)
    misses: list[dict[str, Any]] = []
    for row in rows:
        text, lang = row["text"], row.get("lang") or None
        labelled = {_norm(t) for t in row["labelled"]} if "labelled" in row else None
        t0 = time.perf_counter()
        predicted: list[PIIEntity] = detect_pii(text, lang, entities=entities)
        latency[lang or "auto"].append((time.perf_counter() - t0) * 1000)
        gold = [(s["start"], s["end"], _norm(s["entity_type"])) for s in row.get("spans", [])]
        pred = [(p.start, p.end, _norm(p.entity_type)) for p in predicted]
        for g in gold:
            hit = any(p[2] == g[2] and _overlaps(p[:2], g[:2]) for p in pred)
            for key in ("*", f"type:{g[2]}", f"lang:{lang}", f"{lang}/{g[2]}"):
                counts[key]["gold"] += 1
                counts[key]["found"] += hit
            if not hit and keep_misses:
                misses.append({"miss": text[g[0] : g[1]], "type": g[2], "text": text})
        for p in pred:
            if labelled is not None and p[2] not in labelled:
                unscored[p[2]] += 1
                continue
            ok = any(p[2] == g[2] and _overlaps(p[:2], g[:2]) for g in gold)
            for key in ("*", f"type:{p[2]}", f"lang:{lang}", f"{lang}/{p[2]}"):
                counts[key]["tp" if ok else "fp"] += 1
            if not ok and keep_misses:
                misses.append({"false_positive": text[p[0] : p[1]], "type": p[2], "text": text})

    def figures(key: str) -> dict[str, Any]:
        c = counts[key]
        return {**c, "recall": _ratio(c["found"], c["gold"]), "precision": _ratio(c["tp"], c["tp"] + c["fp"])}

    report: dict[str, Any] = {
        "lines": len(rows),
        "rule": "a prediction is correct when it overlaps a gold span of the same type "
        "(STREET_ADDRESS and LOCATION compared as one type); types a corpus does not label are unscored",
        "load_seconds": round(loaded, 3),
        "overall": figures("*"),
        "by_type": {k[5:]: figures(k) for k in sorted(counts) if k.startswith("type:")},
        "by_language": {k[5:]: figures(k) for k in sorted(counts) if k.startswith("lang:")},
        "by_language_type": {k: figures(k) for k in sorted(counts) if "/" in k},
        "unscored": dict(sorted(unscored.items())),
        "latency_ms": _latency(latency),
    }
    if keep_misses:
        report["misses"] = misses
    return report


def scifact_persons(path: Path = SCIFACT, limit: int = SCIFACT_CLAIMS) -> dict[str, Any]:
    """How many of the first ``limit`` SciFact claims get a PERSON (each is a false positive:
    the claims name genes, drugs, proteins and diseases, not people)."""
    claims = [json.loads(line)["text"] for line in path.read_text(encoding="utf-8").splitlines()[:limit]]
    flagged = [{"claim": claim, "persons": names} for claim, names in _persons(claims)]
    return {"claims": len(claims), "with_person": len(flagged), "flagged": flagged}


def _persons(texts: Sequence[str]) -> list[tuple[str, list[str]]]:
    """Each text that gets a PERSON (read as English, as a question without a language is), with its spans."""
    found = ((text, [e.text for e in detect_pii(text, "en") if e.entity_type == "PERSON"]) for text in texts)
    return [(text, names) for text, names in found if names]


def german_question_persons(path: Path = XQUAD) -> dict[str, Any]:
    """How many of XQuAD's German questions get a PERSON, with the spans to read. Unlabelled: some
    name people (Peyton Manning), but a span of capitalised nouns ("Welche Partei") is English NER
    misreading German, which redacts the question's words from logs and answers."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    questions = [r["text"] for r in rows if r.get("lang") == "de" and r.get("category") == "benign_question"]
    flagged = [{"question": question, "persons": names} for question, names in _persons(questions)]
    return {"questions": len(questions), "with_person": len(flagged), "flagged": flagged}


def question_latency(path: Path = QUESTIONS, rounds: int = 5) -> dict[str, dict[str, float]]:
    """p50/p95 ms of one warm ``detect_pii`` on each vault question, ``rounds`` passes, per language."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    load_seconds()
    for row in rows:  # first calls per shape allocate buffers: one untimed pass
        detect_pii(row["question"], row["lang"])
    times: dict[str, list[float]] = defaultdict(list)
    for _ in range(rounds):
        for row in rows:
            t0 = time.perf_counter()
            detect_pii(row["question"], row["lang"])
            times[row["lang"]].append((time.perf_counter() - t0) * 1000)
    return _latency(times)


def _print(name: str, report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    def fmt(v: float | None) -> str:
        return "-" if v is None else f"{v:.3f}"

    table = Table(title=f"PII detection, {name}: {report['lines']} lines (load {report['load_seconds']:.2f} s)")
    for col in ("scope", "recall", "found/gold", "precision", "tp", "fp"):
        table.add_column(col, justify="left" if col == "scope" else "right")
    sections = (
        [("overall", report["overall"])]
        + [(f"lang {k}", v) for k, v in report["by_language"].items()]
        + list(report["by_language_type"].items())
    )
    for scope, f in sections:
        found = f"{f['found']}/{f['gold']}"
        table.add_row(scope, fmt(f["recall"]), found, fmt(f["precision"]), str(f["tp"]), str(f["fp"]))
    console = Console()
    console.print(table)
    if report["unscored"]:
        console.print(f"predictions of types this set does not label (not scored): {report['unscored']}")
    lat = ", ".join(f"{k} p50 {v['p50']:.1f} ms p95 {v['p95']:.1f} ms" for k, v in report["latency_ms"].items())
    console.print(f"latency per call: {lat}")
    for m in report.get("misses", []):
        console.print(m, markup=False)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Score guardrails.pii.detect_pii on labelled PII JSONL files.")
    parser.add_argument("files", type=Path, nargs="*", help="labelled files (default: every set in SETS)")
    parser.add_argument("--entities", default="", help="comma-separated entity types (default: the redacted set)")
    parser.add_argument("--misses", action="store_true", help="list missed spans and false positives")
    parser.add_argument("--report", "--json", type=Path, default=Path("evals/reports/pii.json"))
    parser.add_argument("--scifact", type=Path, default=SCIFACT, help="SciFact queries.jsonl (skipped if absent)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    from rich.console import Console

    console = Console()
    entities = [e.strip() for e in args.entities.split(",") if e.strip()] or None
    chosen = {f.stem: (f, "given") for f in args.files} or SETS
    out: dict[str, Any] = {"sets": {}}
    for name, (path, role) in chosen.items():
        report = score_pii(path, entities=entities, keep_misses=args.misses)
        report["role"] = role
        _print(name, report)
        out["sets"][name] = report
    if not args.files:
        if args.scifact.is_file():
            out["scifact"] = scifact_persons(args.scifact)
            console.print(f"SciFact: {out['scifact']['with_person']} of {out['scifact']['claims']} claims get a PERSON")
        out["german_questions"] = german_question_persons()
        german = out["german_questions"]
        console.print(f"XQuAD German: {german['with_person']} of {german['questions']} questions get a PERSON")
        out["question_latency_ms"] = question_latency()
        console.print(f"one detect_pii per vault question, warm: {out['question_latency_ms']}")
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text(json.dumps(out, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    console.print(f"report written to {args.report}")


if __name__ == "__main__":
    main()
