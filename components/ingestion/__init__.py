"""From files to chunks: the document and chunk records, the loader registry (one loader per file
extension: Markdown with frontmatter, text, HTML, PDF, BEIR JSONL), the heading-aware chunker, and
the batch pipeline the ingestion graph's nodes call."""
