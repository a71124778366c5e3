"""Find and parse source files: Markdown (Obsidian), text, HTML, PDF and BEIR-style JSONL (``LOADERS``).

Each loader turns one file into ``Document`` records or raises ``IndexingError`` with the
reason in plain words; the ingestion run reports it and goes on with the other files.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from components.ingestion.documents import Document
from components.ingestion.pdf_info import pdf_metadata
from components.resilience.errors import IndexingError

log = logging.getLogger(__name__)

_SKIP_DIRS = {".obsidian", ".git", ".trash", "node_modules", "__pycache__", ".rag"}


@dataclass(frozen=True)
class SourceFile:
    path: Path
    vault: str | None


@dataclass(frozen=True)
class Failure:
    """A file (or a line of one) that was not ingested, and why."""

    source: str
    reason: str


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


def _read_text(path: Path) -> str:
    data = path.read_bytes()
    if not data.strip():
        raise IndexingError("file is empty")
    if b"\x00" in data[:8192]:
        raise IndexingError(f"file holds binary data, not text (is it really {path.suffix}?)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise IndexingError(f"file is not UTF-8 text (byte {e.start}); re-save it as UTF-8") from e
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _iso(value: Any) -> str | None:
    """Dates from frontmatter or metadata as ISO 8601 strings; unparseable values are dropped."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    s = str(value).strip()
    for fmt in (
        "%Y-%m-%d",
        "%Y/%m/%d",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M",
        "%Y%m%d",
    ):
        try:
            return (
                datetime.strptime(s, fmt).date().isoformat()
                if fmt in ("%Y-%m-%d", "%Y/%m/%d", "%Y%m%d")
                else datetime.strptime(s, fmt).isoformat()
            )
        except ValueError:
            continue
    try:
        return datetime.fromisoformat(s.replace("Z", "+00:00")).isoformat()
    except ValueError:
        log.debug("unparseable date %r", value)
        return None


def _mtime(path: Path) -> str:
    return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC).isoformat(timespec="seconds")


def access_groups(value: Any) -> list[str]:
    """``access: finance`` or ``access: [finance, hr]``: the groups, trimmed, deduplicated, sorted."""
    return sorted({g.strip() for g in _as_list(value) if g.strip()})


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in re.split(r"[,\s]+", value) if v.strip()]
    if isinstance(value, (list, tuple)):
        return [str(v).strip() for v in value if v is not None and str(v).strip()]
    return [str(value)]


# --------------------------------------------------------------------------- Markdown
_FRONTMATTER = re.compile(r"\A---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
_WIKILINK = re.compile(r"(!?)\[\[([^\]|#^]*)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]")
_INLINE_TAG = re.compile(r"(?<![\w/&#])#([^\s#.,;:!?()\[\]{}\"'`、。！？「」（）]+)")
_COMMENT = re.compile(r"%%.*?%%", re.S)


def parse_markdown(text: str, *, fallback_title: str) -> dict[str, Any]:
    """Frontmatter, body with Obsidian syntax made readable, inline tags and links."""
    meta: dict[str, Any] = {}
    body = text
    m = _FRONTMATTER.match(text)
    if m:
        import yaml

        try:
            loaded = yaml.safe_load(m.group(1))
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            where = f" at line {mark.line + 2}" if mark is not None else ""
            raise IndexingError(
                f"malformed YAML frontmatter{where}: "
                f"{getattr(e, 'problem', None) or e}; fix the block between the --- lines"
            ) from e
        if loaded is not None and not isinstance(loaded, dict):
            raise IndexingError("malformed frontmatter: expected `key: value` pairs between the --- lines")
        meta = loaded or {}
        body = text[m.end() :]
    elif text.startswith("---\n"):
        raise IndexingError("frontmatter starts with --- but is never closed; add the closing --- line")
    links: list[str] = []

    def _link(mm: re.Match[str]) -> str:
        target, label = mm.group(2).strip(), mm.group(3)
        if target:
            links.append(target)
        if mm.group(1):  # ![[embed]]: keep the name, drop the embed syntax
            return label or target
        return (label or target).strip()

    body = _COMMENT.sub("", body)
    body = _WIKILINK.sub(_link, body)
    code_free = _FENCE.sub("", body)
    inline_tags = [
        t.rstrip("/")
        for t in _INLINE_TAG.findall(
            "\n".join(
                line
                for line in code_free.splitlines()
                if not line.lstrip().startswith("#")
                or (line.lstrip().startswith("#") and not re.match(r"#{1,6}\s", line.lstrip()))
            )
        )
    ]
    title = str(meta.get("title") or "").strip()
    if not title:
        h1 = re.search(r"^#\s+(.+)$", code_free, re.M)
        title = h1.group(1).strip() if h1 else fallback_title
    tags = [t.lstrip("#") for t in _as_list(meta.get("tags") or meta.get("tag"))]
    for t in inline_tags:
        if t not in tags:
            tags.append(t)
    return {
        "body": body.strip(),
        "title": title,
        "tags": tags,
        "aliases": _as_list(meta.get("aliases") or meta.get("alias")),
        "created": _iso(meta.get("created") or meta.get("date") or meta.get("created_at")),
        "modified": _iso(meta.get("modified") or meta.get("updated")),
        "links": sorted(set(links)),
        "access": access_groups(meta.get("access")),
        "extra": {
            k: v
            for k, v in meta.items()
            if k
            not in {
                "title",
                "tags",
                "tag",
                "aliases",
                "alias",
                "created",
                "date",
                "created_at",
                "modified",
                "updated",
                "access",
            }
        },
    }


def load_markdown(src: SourceFile) -> list[Document]:
    parsed = parse_markdown(_read_text(src.path), fallback_title=src.path.stem)
    if not parsed["body"] and not parsed["title"]:
        raise IndexingError("note has no text")
    return [
        Document(
            doc_id=str(src.path),
            text=parsed["body"],
            source=str(src.path),
            title=parsed["title"],
            format="markdown",
            vault=src.vault,
            tags=parsed["tags"],
            aliases=parsed["aliases"],
            created=parsed["created"],
            modified=parsed["modified"] or _mtime(src.path),
            links=parsed["links"],
            metadata=_jsonable(parsed["extra"]),
            access=parsed["access"],
        )
    ]


def _jsonable(d: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(d, default=str))


def load_text(src: SourceFile) -> list[Document]:
    text = _read_text(src.path)
    return [
        Document(
            doc_id=str(src.path),
            text=text.strip(),
            source=str(src.path),
            title=src.path.stem,
            format="text",
            vault=src.vault,
            modified=_mtime(src.path),
        )
    ]


# --------------------------------------------------------------------------- HTML
def load_html(src: SourceFile) -> list[Document]:
    """HTML to Markdown-ish text: headings become ``#`` lines so chunking keeps sections."""
    from bs4 import BeautifulSoup

    raw = _read_text(src.path)
    soup = BeautifulSoup(raw, "html.parser")
    title = (soup.title.string or "").strip() if soup.title and soup.title.string else ""
    url = None
    for sel, attr in (("link[rel=canonical]", "href"), ("meta[property='og:url']", "content")):
        tag = soup.select_one(sel)
        if tag and tag.get(attr):
            url = str(tag.get(attr))
            break
    lang = soup.html.get("lang") if soup.html else None
    for t in soup(["script", "style", "nav", "footer", "header", "noscript", "svg", "form"]):
        t.decompose()
    root = soup.find("main") or soup.find("article") or soup.body or soup
    lines: list[str] = []
    for el in root.find_all(["h1", "h2", "h3", "h4", "h5", "h6", "p", "li", "pre", "td", "blockquote"]):
        if el.find_parent(["p", "li", "pre", "td", "blockquote"]) is not None:
            continue
        text = " ".join(el.get_text(" ", strip=True).split())
        if not text:
            continue
        if el.name and el.name[0] == "h" and el.name[1:].isdigit():
            lines.append(f"{'#' * int(el.name[1:])} {text}")
            if not title and el.name == "h1":
                title = text
        elif el.name == "li":
            lines.append(f"- {text}")
        else:
            lines.append(text)
    body = "\n\n".join(lines).strip()
    if not body:
        raise IndexingError("HTML page has no readable text")
    meta: dict[str, Any] = {"url": url} if url else {}
    if lang:
        meta["html_lang"] = str(lang)
    return [
        Document(
            doc_id=str(src.path),
            text=body,
            source=url or str(src.path),
            title=title or src.path.stem,
            format="html",
            vault=src.vault,
            modified=_mtime(src.path),
            metadata=meta,
        )
    ]


# --------------------------------------------------------------------------- PDF
def load_pdf(src: SourceFile) -> list[Document]:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(str(src.path))
        if reader.is_encrypted:
            raise IndexingError("PDF is encrypted; decrypt it first (e.g. `qpdf --decrypt`)")
        pages = [(f"p. {i + 1}", (page.extract_text() or "").strip()) for i, page in enumerate(reader.pages)]
        info = reader.metadata
        meta = pdf_metadata(reader, next((t for _, t in pages if t), ""))
    except PdfReadError as e:
        raise IndexingError(f"not a readable PDF ({e})") from e
    except IndexingError:
        raise
    except Exception as e:  # pypdf raises a zoo of errors on damaged files
        raise IndexingError(f"PDF could not be parsed ({type(e).__name__}: {e})") from e
    pages = [(label, t) for label, t in pages if t]
    if not pages:
        raise IndexingError("PDF has no extractable text (scanned? run OCR first)")
    title = str(info.title).strip() if info and info.title else src.path.stem
    created = None
    if info and info.creation_date:
        created = info.creation_date.date().isoformat()
    return [
        Document(
            doc_id=str(src.path),
            text="\n\n".join(t for _, t in pages),
            source=str(src.path),
            title=title,
            format="pdf",
            vault=src.vault,
            created=created,
            modified=_mtime(src.path),
            pages=pages,
            metadata=meta,
        )
    ]


# --------------------------------------------------------------------------- JSONL (BEIR)
def iter_jsonl(src: SourceFile) -> Iterator[Document | Failure]:
    """BEIR corpus lines; a malformed line becomes a Failure and the rest still load."""
    try:
        fh = src.path.open(encoding="utf-8")
    except OSError as e:
        yield Failure(str(src.path), f"cannot open: {e.strerror}")
        return
    with fh:
        any_line = False
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            any_line = True
            where = f"{src.path}:{n}"
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                yield Failure(where, f"malformed JSON ({e.msg} at column {e.colno})")
                continue
            if not isinstance(obj, dict) or "_id" not in obj:
                yield Failure(where, 'line lacks "_id"; BEIR corpus lines are {"_id", "title", "text"}')
                continue
            text = str(obj.get("text") or "").strip()
            title = str(obj.get("title") or "").strip()
            if not text and not title:
                yield Failure(where, f"document {obj['_id']!r} has no title and no text")
                continue
            raw_meta = obj.get("metadata")
            meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
            yield Document(
                doc_id=str(obj["_id"]),
                text=text,
                source=str(meta.get("url") or meta.get("source") or src.path),
                title=title,
                format="jsonl",
                vault=str(meta["vault"]) if meta.get("vault") else src.vault,
                tags=_as_list(meta.get("tags")),
                created=_iso(meta.get("created") or meta.get("date")),
                metadata=_jsonable({k: v for k, v in meta.items() if k not in {"tags", "vault", "access"}}),
                origin=str(src.path),
                access=access_groups(meta.get("access")),
            )
        if not any_line:
            yield Failure(str(src.path), "file is empty")


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
"""The registry: file extension (lower case) → loader. A new format is a function above and a line here."""
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
