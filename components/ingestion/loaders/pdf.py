"""PDF files: the text of each page (labelled ``p. N``) and the file's bibliographic metadata."""

from __future__ import annotations

from components.ingestion.documents import Document
from components.ingestion.loaders.source import SourceFile, mtime
from components.ingestion.pdf_info import pdf_metadata
from components.resilience.errors import IndexingError


def load_pdf(src: SourceFile) -> list[Document]:
    """One document of the pages that hold text; encrypted, scanned or damaged files are IndexingErrors."""
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
            modified=mtime(src.path),
            pages=pages,
            metadata=meta,
        )
    ]
