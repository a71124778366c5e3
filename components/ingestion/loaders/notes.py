"""Markdown notes (Obsidian: frontmatter, ``[[wikilinks]]``, inline ``#tags``, ``%%comments%%``) and plain text."""

from __future__ import annotations

import re
from typing import Any

from components.ingestion.documents import Document
from components.ingestion.loaders.fields import access_groups, as_list, iso_date, jsonable
from components.ingestion.loaders.source import SourceFile, mtime, read_text
from components.resilience.errors import IndexingError

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
    tags = [t.lstrip("#") for t in as_list(meta.get("tags") or meta.get("tag"))]
    for t in inline_tags:
        if t not in tags:
            tags.append(t)
    return {
        "body": body.strip(),
        "title": title,
        "tags": tags,
        "aliases": as_list(meta.get("aliases") or meta.get("alias")),
        "created": iso_date(meta.get("created") or meta.get("date") or meta.get("created_at")),
        "modified": iso_date(meta.get("modified") or meta.get("updated")),
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
    """One note: its body made readable, with the frontmatter's fields."""
    parsed = parse_markdown(read_text(src.path), fallback_title=src.path.stem)
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
            modified=parsed["modified"] or mtime(src.path),
            links=parsed["links"],
            metadata=jsonable(parsed["extra"]),
            access=parsed["access"],
        )
    ]


def load_text(src: SourceFile) -> list[Document]:
    """A plain-text file, titled by its name."""
    text = read_text(src.path)
    return [
        Document(
            doc_id=str(src.path),
            text=text.strip(),
            source=str(src.path),
            title=src.path.stem,
            format="text",
            vault=src.vault,
            modified=mtime(src.path),
        )
    ]
