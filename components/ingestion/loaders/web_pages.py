"""Saved web pages (HTML): readable text with the page's headings as sections."""

from __future__ import annotations

from typing import Any

from components.ingestion.documents import Document
from components.ingestion.loaders.source import SourceFile, mtime, read_text
from components.resilience.errors import IndexingError


def load_html(src: SourceFile) -> list[Document]:
    """HTML to Markdown-ish text: headings become ``#`` lines so chunking keeps sections."""
    from bs4 import BeautifulSoup

    raw = read_text(src.path)
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
            modified=mtime(src.path),
            metadata=meta,
        )
    ]
