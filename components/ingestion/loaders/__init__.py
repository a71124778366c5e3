"""Find and parse source files: Markdown (Obsidian), text, HTML, PDF and BEIR-style JSONL (``LOADERS``).

Each loader turns one file into ``Document`` records or raises ``IndexingError`` with the
reason in plain words; the ingestion run reports it and goes on with the other files. This
module finds the files and holds the registry; each format's loader is a module of this package
(``notes``, ``web_pages``, ``pdf``, ``jsonl``), and what they share is in ``source`` (the file,
its text, a failure) and ``fields`` (metadata values).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from components.ingestion.documents import Document
from components.ingestion.loaders.jsonl import iter_jsonl
from components.ingestion.loaders.notes import load_markdown, load_text
from components.ingestion.loaders.pdf import load_pdf
from components.ingestion.loaders.source import Failure, SourceFile
from components.ingestion.loaders.web_pages import load_html
from components.resilience.errors import IndexingError

_SKIP_DIRS = {".obsidian", ".git", ".trash", "node_modules", "__pycache__", ".rag"}


def find_vault(path: Path, root: Path) -> str:
    """The vault a file belongs to: the nearest folder holding ``.obsidian/``, else the root.

    Obsidian marks a vault by that folder, so users see the names they know; plain folders
    fall back to the name of the folder that was given to ``rag ingest``.
    """
    for parent in [path.parent, *path.parent.parents]:
        if (parent / ".obsidian").is_dir():
            return parent.name
        if parent == root:
            break
    return root.name if root.is_dir() else path.parent.name


def discover(paths: list[Path]) -> tuple[list[SourceFile], list[Failure], int]:
    """Expand files and folders into supported source files.

    Returns (files, failures, ignored). A missing path or an explicitly named file of an
    unsupported type is a failure; unsupported files met while walking a folder (images,
    canvases) are only counted as ignored, as a vault is full of them.
    """
    files: list[SourceFile] = []
    failures: list[Failure] = []
    ignored = 0
    seen: set[Path] = set()
    for raw in paths:
        p = Path(raw).expanduser()
        if not p.exists():
            failures.append(Failure(str(raw), "path does not exist; check the spelling or mount"))
            continue
        p = p.resolve()
        if p.is_file():
            if p.suffix.lower() not in SUPPORTED:
                failures.append(
                    Failure(
                        str(p),
                        f"unsupported file type {p.suffix or '(none)'}; supported: {', '.join(sorted(SUPPORTED))}",
                    )
                )
                continue
            if p not in seen:
                seen.add(p)
                files.append(SourceFile(p, find_vault(p, p.parent)))
            continue
        for f in sorted(_walk(p)):
            if f.suffix.lower() not in SUPPORTED:
                ignored += 1
                continue
            if f not in seen:
                seen.add(f)
                files.append(SourceFile(f, find_vault(f, p)))
    return files, failures, ignored


def _walk(root: Path) -> Iterator[Path]:
    for entry in root.iterdir():
        if entry.is_dir():
            if entry.name not in _SKIP_DIRS and not entry.name.startswith("."):
                yield from _walk(entry)
        elif entry.is_file() and not entry.name.startswith("."):
            yield entry


Loader = Callable[[SourceFile], Iterable[Document | Failure]]
"""One file in, its documents out (or Failures for the parts that could not be read); raises
IndexingError, with the reason in plain words, when the whole file cannot be read."""

LOADERS: dict[str, Loader] = {
    ".md": load_markdown,
    ".markdown": load_markdown,
    ".txt": load_text,
    ".html": load_html,
    ".htm": load_html,
    ".pdf": load_pdf,
    ".jsonl": iter_jsonl,
}
"""The registry: file extension (lower case) → loader. A new format is a module beside ``notes`` and a line here."""
SUPPORTED = frozenset(LOADERS)


def load_file(src: SourceFile) -> Iterator[Document | Failure]:
    """Documents of one file, or Failures explaining what could not be read."""
    loader = LOADERS.get(src.path.suffix.lower())
    if loader is None:
        yield Failure(
            str(src.path),
            f"unsupported file type {src.path.suffix or '(none)'}; supported: {', '.join(sorted(SUPPORTED))}",
        )
        return
    try:
        for item in loader(src):
            if isinstance(item, Document) and item.origin is None:
                item.origin = str(src.path)
            yield item
    except IndexingError as e:
        yield Failure(str(src.path), str(e))
    except OSError as e:
        yield Failure(str(src.path), f"cannot read: {e.strerror or e}")
