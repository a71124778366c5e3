"""`rag ingest --help` names the formats the loaders read: none missing, none invented."""

from __future__ import annotations

from cli.commands.index import INGEST_FORMATS
from components.ingestion.loaders import LOADERS


def test_the_ingest_help_names_every_registered_format_and_no_other() -> None:
    named = set(INGEST_FORMATS.split())
    assert named <= set(LOADERS), f"the help names formats no loader reads: {named - set(LOADERS)}"
    # aliases (.markdown, .htm) share a loader; each loader needs one of its extensions named
    unnamed = {fn.__name__ for ext, fn in LOADERS.items()} - {LOADERS[ext].__name__ for ext in named}
    assert not unnamed, f"loaders whose formats `rag ingest --help` does not name: {unnamed}"
