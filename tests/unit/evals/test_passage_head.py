"""The passage head's trainer never lets the check split of the poisoned documents reach the fit
or the threshold, and scores each tune document with a model fit without it.

No model is loaded: rows carry hand-made vectors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evals import train_passage_head as tph


def _line(id_: str, text: str, label: str, category: str) -> dict[str, str]:
    return {"id": id_, "text": text, "label": label, "category": category, "lang": "en", "group": id_}


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_check_split_never_read(tmp_path: Path) -> None:
    docs = _write(
        tmp_path / "docs.jsonl",
        [
            {"id": f"{s}-{b}", "lang": "en", "label": b, "split": s, "kind": "k", "title": "T", "text": f"{s} {b}"}
            for s in ("tune", "check")
            for b in ("poisoned", "benign")
        ],
    )
    public = tmp_path / "injection"
    public.mkdir()
    _write(
        public / "bipia.jsonl",
        [
            _line("a", "mail attack", "attack", "indirect_email"),
            _line("b", "mail clean", "benign", "benign_document"),
            _line("c", "a request", "benign", "benign_request"),
        ],
    )
    _write(
        public / "xsid.jsonl",
        [_line("d", "doc elsewhere", "benign", "benign_document")],
    )
    rows = tph.training_rows(docs, public, tmp_path / "absent.jsonl")
    texts = {r["text"] for r in rows}
    assert not any("check" in t for t in texts), texts
    assert {"T\ntune poisoned", "T\ntune benign", "mail attack", "mail clean"} == texts
    assert [r["label"] for r in rows if r["text"] == "mail attack"] == [1]


def _rows(n: int) -> tuple[np.ndarray, list[dict[str, Any]]]:
    rng = np.random.default_rng(0)
    rows: list[dict[str, Any]] = []
    x = []
    for i in range(n):
        label, lang, number = i % 2, ("en", "de")[(i // 2) % 2], i // 4
        # document n of each language is one scenario (as in poisoned_docs.jsonl)
        group = f"{lang}-{'p' if label else 'b'}-{number:02d}"
        rows.append({"label": label, "lang": lang, "tune": i < n // 2, "text": str(i), "group": group})
        x.append([1.0 if label else -1.0, *rng.normal(size=3)])
    return np.asarray(x, dtype=np.float32), rows


def test_out_of_fold_never_fits_the_scored_document_nor_its_translation(monkeypatch: pytest.MonkeyPatch) -> None:
    x, rows = _rows(40)
    seen: list[set[str]] = []
    real_fit = tph.fit

    def spy(xs: np.ndarray, cues: np.ndarray | None, rs: list[dict[str, Any]], *args: Any) -> Any:
        seen.append({r["text"] for r in rs})
        assert cues is not None and len(cues) == len(rs)  # the cues travel with their rows
        return real_fit(xs, cues, rs, *args)

    monkeypatch.setattr(tph, "fit", spy)
    cues = np.asarray([[float(r["label"]), 0.0] for r in rows], dtype=np.float32)
    scores = tph.out_of_fold(x, cues, rows, 1.0, 4.0, True, 4)
    tune = [r for r in rows if r["tune"]]
    assert not np.isnan(scores[: len(tune)]).any() and np.isnan(scores[len(tune) :]).all()
    scenario_of = {r["text"]: r["group"].split("-", 1)[1] for r in tune}
    held_out: set[str] = set()
    for fitted in seen:
        held = {r["text"] for r in tune} - fitted
        held_out |= held
        # a held document's scenario is held in every language: no translation of it was fitted
        assert not {scenario_of[t] for t in held} & {scenario_of[t] for t in fitted if t in scenario_of}
        assert {scenario_of[t] for t in held} and len({r["lang"] for r in tune if r["text"] in held}) == 2
    assert held_out == {r["text"] for r in tune}


def test_threshold_reads_tune_benign_only() -> None:
    rows = [
        {"label": 0, "lang": "en", "tune": True},
        {"label": 0, "lang": "en", "tune": True},
        {"label": 1, "lang": "en", "tune": True},
        {"label": 0, "lang": "en", "tune": False},  # a public document: not the tune split
    ]
    t = tph.choose_threshold(rows, np.asarray([0.2, 0.3, 0.9, 0.99]), 0.0)
    assert 0.3 < t < 0.31
