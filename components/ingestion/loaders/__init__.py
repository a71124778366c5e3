"""Find and parse source files: Markdown (Obsidian), text, HTML, PDF and BEIR-style JSONL (``LOADERS``).

Each loader turns one file into ``Document`` records or raises ``IndexingError`` with the
reason in plain words; the ingestion run reports it and goes on with the other files. This
module finds the files and holds the registry; each format's loader is a module of this package
(``notes``, ``web_pages``, ``pdf``, ``jsonl``), and what they share is in ``source`` (the file,
its text, a failure) and ``fields`` (metadata values).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from components.ingestion.documents import Document
from components.ingestion.loaders.jsonl import iter_jsonl
from components.ingestion.loaders.notes import load_markdown, load_text
from components.ingestion.loaders.pdf import load_pdf
from components.ingestion.loaders.source import Failure, SourceFile
from components.ingestion.loaders.web_pages import load_html
from components.resilience.errors import DocumentTooLarge, IndexingError

log = logging.getLogger(__name__)

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


CORPORA = frozenset({".jsonl"})
"""Extensions of files that hold many documents: the size limit applies to each of their documents, not to the file."""


def load_file(src: SourceFile, *, max_bytes: int | None = None) -> Iterator[Document | Failure]:
    """Documents of one file, or Failures explaining what could not be read.

    With ``max_bytes``, a file of one document that is larger fails before it is read, and a
    corpus's document whose text is larger fails on its own (``DocumentTooLarge``). Whatever a
    loader raises fails the file, never the run: the documents it yielded before stay.
    """
    loader = LOADERS.get(src.path.suffix.lower())
    if loader is None:
        yield Failure(
            str(src.path),
            f"unsupported file type {src.path.suffix or '(none)'}; supported: {', '.join(sorted(SUPPORTED))}",
        )
        return
    corpus = src.path.suffix.lower() in CORPORA
    try:
        if max_bytes is not None and not corpus:
            size = src.path.stat().st_size
            if size > max_bytes:
                raise DocumentTooLarge("the file", size, max_bytes)
        for item in loader(src):
            if isinstance(item, Document):
                if item.origin is None:
                    item.origin = str(src.path)
                over = _size_over(item, max_bytes)
                if over is not None and max_bytes is not None:
                    yield Failure(str(src.path), str(DocumentTooLarge(f"document {item.doc_id!r}", over, max_bytes)))
                    continue
            yield item
    except IndexingError as e:
        yield Failure(str(src.path), str(e))
    except OSError as e:
        yield Failure(str(src.path), f"cannot read: {e.strerror or e}")
    except Exception as e:  # a parser's bug or an input it never met: this file fails, the others go on
        log.warning("%s could not be parsed", src.path, exc_info=True)
        yield Failure(str(src.path), f"could not be parsed ({type(e).__name__}: {e})")


def _size_over(doc: Document, limit: int | None) -> int | None:
    """The size of a document's title and text in UTF-8 when it is over ``limit``, else None.

    UTF-8 spends at most 4 bytes on a character, so a text of fewer than a quarter of the limit's
    characters is under it without being encoded.
    """
    if limit is None or (len(doc.title) + len(doc.text)) * 4 <= limit:
        return None
    size = len(doc.title.encode()) + len(doc.text.encode())
    return size if size > limit else None
