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
        label = i % 2
        rows.append({"label": label, "lang": "en", "tune": i < n // 2, "text": str(i)})
        x.append([1.0 if label else -1.0, *rng.normal(size=3)])
    return np.asarray(x, dtype=np.float32), rows


def test_out_of_fold_never_fits_the_scored_document(monkeypatch: pytest.MonkeyPatch) -> None:
    x, rows = _rows(40)
    seen: list[set[str]] = []
    real_fit = tph.fit

    def spy(xs: np.ndarray, rs: list[dict[str, Any]], *args: Any) -> Any:
        seen.append({r["text"] for r in rs})
        return real_fit(xs, rs, *args)

    monkeypatch.setattr(tph, "fit", spy)
    scores = tph.out_of_fold(x, rows, 1.0, 4.0, True, 4)
    tune = [r["text"] for r in rows if r["tune"]]
    assert not np.isnan(scores[: len(tune)]).any() and np.isnan(scores[len(tune) :]).all()
    for fold, fitted in enumerate(seen):
        held = set(tune[fold::4])
        assert not held & fitted
        assert len(fitted) == len(rows) - len(held)


def test_threshold_reads_tune_benign_only() -> None:
    rows = [
        {"label": 0, "lang": "en", "tune": True},
        {"label": 0, "lang": "en", "tune": True},
        {"label": 1, "lang": "en", "tune": True},
        {"label": 0, "lang": "en", "tune": False},  # a public document: not the tune split
    ]
    t = tph.choose_threshold(rows, np.asarray([0.2, 0.3, 0.9, 0.99]), 0.0)
    assert 0.3 < t < 0.31
