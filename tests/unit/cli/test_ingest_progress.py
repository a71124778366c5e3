"""`rag ingest`'s progress display: it names the file the run spends its time on, in a terminal line."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text

from cli.ingest_cmd import ProgressView, progress_label, shorten

DEEP = "/data/archive/2026/projects/search/notes/a-rather-long-file-name.md"


def test_a_path_that_fits_is_shown_whole() -> None:
    assert progress_label("/notes/big.txt", 0, 120) == "embedding + writing /notes/big.txt"


def test_a_long_path_keeps_its_file_name_and_the_folders_that_fit() -> None:
    label = progress_label(DEEP, 0, 120)
    assert label == "embedding + writing …/projects/search/notes/a-rather-long-file-name.md"
    assert len(label) <= 120 - 68 + len("embedding + writing ")


def test_a_narrow_terminal_keeps_the_end_of_the_file_name() -> None:
    assert shorten(DEEP, 12) == "…ile-name.md"
    assert progress_label(DEEP, 0, 80) == "embedding + writing …ile-name.md"


def test_the_other_files_of_a_batch_are_counted_where_there_is_room() -> None:
    assert progress_label("/corpus/scifact.jsonl", 0, 120).endswith("scifact.jsonl")
    assert progress_label("/n/a.md", 1, 120) == "embedding + writing /n/a.md (+1 more file)"
    assert progress_label("/n/a.md", 63, 120) == "embedding + writing /n/a.md (+63 more files)"
    assert progress_label("/n/a.md", 63, 80) == "embedding + writing /n/a.md"


def test_a_path_under_home_starts_with_a_tilde() -> None:
    assert progress_label(str(Path.home() / "notes" / "big.txt"), 0, 120) == "embedding + writing ~/notes/big.txt"


def test_the_bar_names_the_batchs_file_and_counts_failed_documents_as_done(monkeypatch: pytest.MonkeyPatch) -> None:
    with ProgressView(show=False) as view:
        monkeypatch.setattr(view, "width", lambda: 80)  # an 80-column terminal, whatever runs the test
        view.feed({"event": "parsed", "documents": 3, "pending": 3, "unchanged": 0})
        view.feed({"event": "batch", "file": "/n/[b].txt", "other_files": 0, "documents": 1})
        [task] = view.progress.tasks
        # the description column reads markup: a file name is shown as it is written
        assert Text.from_markup(task.description).plain == "embedding + writing /n/[b].txt"
        view.feed({"event": "failed", "documents": 1})
        view.feed({"event": "batch", "file": "/n/a.md", "other_files": 1, "documents": 2})
        view.feed({"event": "written", "documents": 2, "chunks": 2})
        assert (task.completed, task.total) == (3, 3)
        assert task.description == "embedding + writing /n/a.md"  # no room to count the other file
