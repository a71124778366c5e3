"""BEIR-style JSONL corpora: one document a line (``_id``, ``title``, ``text``, optional ``metadata``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from components.ingestion.documents import Document
from components.ingestion.loaders.fields import access_groups, as_list, iso_date, jsonable
from components.ingestion.loaders.source import Failure, SourceFile


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
                tags=as_list(meta.get("tags")),
                created=iso_date(meta.get("created") or meta.get("date")),
                metadata=jsonable({k: v for k, v in meta.items() if k not in {"tags", "vault", "access"}}),
                origin=str(src.path),
                access=access_groups(meta.get("access")),
            )
        if not any_line:
            yield Failure(str(src.path), "file is empty")
