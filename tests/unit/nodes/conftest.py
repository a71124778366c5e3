"""What the node tests share: a few notes ingested once into an embedded store, a public and a
restricted note in another, and the fake servers."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from components.factory import Components
from components.settings import Settings
from tests.conftest import SAMPLE_VAULTS
from tests.fakes.ollama_server import Behaviour, ollama_server
from tests.integration.helpers import ingest
from tests.unit.nodes.helpers import INBOX, NOTES, RESTRICTED


@pytest.fixture(scope="session")
def notes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Components]:
    """Three sample notes (English and Japanese, two vaults) and a note holding injected instructions,
    ingested once into an embedded store. The nodes under test only read it (or optimise it); tests
    that write to its semantic cache clear the cache first."""
    root = tmp_path_factory.mktemp("notes")
    vaults = root / "vaults"
    for note in NOTES:
        (vaults / note).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(SAMPLE_VAULTS / note, vaults / note)
    for vault in ("life", "research"):  # the nearest .obsidian names a note's vault
        shutil.copytree(SAMPLE_VAULTS / vault / ".obsidian", vaults / vault / ".obsidian")
    (vaults / "research" / "Inbox.md").write_text(INBOX, encoding="utf-8")
    yield from ingested(root, vaults)


@pytest.fixture(scope="session")
def restricted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Components]:
    """A note shared with the hr group only and a public one, ingested once into a store of their
    own: the notes above are all public, and a restricted chunk changes how every read is filtered."""
    root = tmp_path_factory.mktemp("restricted")
    folder = root / "notes"
    folder.mkdir()
    for name, text in RESTRICTED.items():
        (folder / name).write_text(text, encoding="utf-8")
    yield from ingested(root, folder)


def ingested(root: Path, folder: Path) -> Iterator[Components]:
    """Components over an embedded store under ``root`` holding the notes of ``folder``, closed after use."""
    s = Settings(qdrant_path=root / "qdrant", data_dir=root / "data", _env_file=None)  # type: ignore[call-arg]
    c = Components(s)
    assert ingest(c, folder)["failures"] == []
    yield c
    c.close()


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A folder of two sample notes, one English and one Japanese, for the ingestion nodes."""
    folder = tmp_path / "vault"
    folder.mkdir()
    for note in NOTES[:2]:
        shutil.copy(SAMPLE_VAULTS / note, folder)
    return folder


@pytest.fixture
def ollama() -> Iterator[tuple[str, Behaviour]]:
    """A server speaking Ollama's API (the chat models' protocol boundary); tests set its chat handler."""
    with ollama_server() as server:
        yield server


@pytest.fixture
def dead_url() -> str:
    """The address of a server that has stopped: connections are refused at once."""
    with ollama_server() as (url, _):
        pass
    return url
