"""Last step: the question router's exemplar vectors are embedded while ingestion has the model loaded."""

from __future__ import annotations

from components.factory import Components
from nodes.ingest import prepare_routing
from tests.unit.nodes.helpers import run


def test_after_a_write_the_router_is_ready_on_disk_and_otherwise_nothing_is_done(components: Components) -> None:
    cache = components.settings.data_dir / "cache"
    assert run(prepare_routing.make(components), {"written_chunks": 0}) == {}
    assert not list(cache.glob("route-exemplars-*.npy"))
    assert run(prepare_routing.make(components), {"written_chunks": 4}) == {}
    assert len(list(cache.glob("route-exemplars-*.npy"))) == 1
