"""Semantic cache on GPTCache: near-duplicates hit, other scopes and stale entries miss, the least used go first."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from components.stores.gptcache_backend import FILE_NAME, GPTCacheBackend

DIM = 32


def vec(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=DIM).astype(np.float32)


def near(v: np.ndarray, eps: float = 0.02, seed: int = 99) -> np.ndarray:
    """The same direction, slightly perturbed (a reworded question)."""
    noise = np.random.default_rng(seed).normal(size=v.shape)
    return (v / np.linalg.norm(v) + eps * noise / np.linalg.norm(noise)).astype(np.float32)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


SCOPE = "rag|v3|{}|en"
Make = Callable[..., GPTCacheBackend]


@pytest.fixture
def make(tmp_path: Path) -> Iterator[Make]:
    made: list[GPTCacheBackend] = []

    def build(**kw: Any) -> GPTCacheBackend:
        made.append(GPTCacheBackend(tmp_path / "cache", **kw))
        return made[-1]

    yield build
    for cache in made:
        cache.close()


def test_a_near_duplicate_question_hits_and_gets_the_stored_answer(make: Make) -> None:
    cache = make(threshold=0.95)
    q = vec(1)
    cache.store(q * 7.5, scope=SCOPE, question="When should I water the monstera?", value={"answer": "Weekly [1]."})
    entry = cache.lookup(near(q), scope=SCOPE)
    assert entry is not None
    assert entry.value == {"answer": "Weekly [1]."}
    assert entry.question == "When should I water the monstera?"
    assert entry.similarity >= 0.95
    assert cache.lookup(vec(2), scope=SCOPE) is None  # an unrelated question
    assert cache.stats().as_dict() == {"hits": 1, "misses": 1, "size": 1}


def test_the_best_match_wins_and_the_threshold_can_be_tightened_per_lookup(make: Make) -> None:
    cache = make(threshold=0.9)
    a, b = vec(1), vec(2)
    cache.store(a, scope=SCOPE, question="a", value={"answer": "A"})
    cache.store(b, scope=SCOPE, question="b", value={"answer": "B"})
    probe = near(b, eps=0.2)
    hit = cache.lookup(probe, scope=SCOPE)
    assert hit is not None and hit.value["answer"] == "B"
    assert cache.lookup(probe, scope=SCOPE, threshold=0.999) is None


def test_another_scope_misses(make: Make) -> None:
    cache = make()
    q = vec(1)
    cache.store(q, scope="rag|v3|{}|en", question="q", value={"answer": "old index"})
    assert cache.lookup(q, scope="rag|v4|{}|en") is None  # re-ingested: new index version
    assert cache.lookup(q, scope='rag|v3|{"tags":["rag"]}|en') is None  # other filters
    assert cache.lookup(q, scope="rag|v3|{}|ja") is None
    assert cache.lookup(q, scope="rag|v3|{}|en") is not None


def test_entries_expire_after_their_time_to_live(make: Make) -> None:
    clock = Clock()
    cache = make(ttl_seconds=60, clock=clock)
    q = vec(1)
    cache.store(q, scope=SCOPE, question="q", value={"answer": "x"})
    clock.now += 59
    assert cache.lookup(q, scope=SCOPE) is not None
    clock.now += 2
    assert cache.lookup(q, scope=SCOPE) is None
    assert cache.stats().size == 0


def test_the_least_recently_used_entry_is_evicted_first(make: Make) -> None:
    cache = make(max_entries=3)
    v = [vec(i) for i in range(4)]
    for i in range(3):
        cache.store(v[i], scope=SCOPE if i else "other", question=str(i), value={"answer": i})
    assert cache.lookup(v[0], scope="other") is not None  # 0 is now the most recently used
    cache.store(v[3], scope=SCOPE, question="3", value={"answer": 3})
    assert cache.stats().size == 3
    assert cache.lookup(v[1], scope=SCOPE) is None  # the least recently used went
    assert [cache.lookup(v[i], scope=s) is not None for i, s in [(0, "other"), (2, SCOPE), (3, SCOPE)]] == [True] * 3


def test_storing_the_same_question_again_replaces_it(make: Make) -> None:
    cache = make()
    q = vec(1)
    cache.store(q, scope=SCOPE, question="q", value={"answer": "first"})
    cache.store(q, scope=SCOPE, question="q", value={"answer": "second"})
    assert cache.stats().size == 1
    hit = cache.lookup(q, scope=SCOPE)
    assert hit is not None and hit.value["answer"] == "second"


def test_a_returned_value_is_a_copy(make: Make) -> None:
    cache = make()
    q = vec(1)
    cache.store(q, scope=SCOPE, question="q", value={"sources": [{"n": 1}]})
    hit = cache.lookup(q, scope=SCOPE)
    assert hit is not None
    hit.value["sources"].append({"n": 2})
    again = cache.lookup(q, scope=SCOPE)
    assert again is not None and again.value == {"sources": [{"n": 1}]}


def test_vectors_of_another_dimension_or_zero_vectors_miss_instead_of_failing(make: Make) -> None:
    cache = make()
    cache.store(vec(1), scope=SCOPE, question="q", value={})
    assert cache.lookup(np.ones(DIM * 2), scope=SCOPE) is None
    assert cache.lookup(np.zeros(DIM), scope=SCOPE) is None
    cache.store(np.zeros(DIM), scope=SCOPE, question="zero", value={})
    assert cache.stats().size == 1


def test_invalid_settings_are_refused(make: Make) -> None:
    with pytest.raises(ValueError, match="threshold"):
        make(threshold=0)
    with pytest.raises(ValueError, match="max_entries"):
        make(max_entries=0)


def test_the_database_is_opened_by_the_first_use_not_by_construction(make: Make, tmp_path: Path) -> None:
    """Building the graph reads the cache object; a search, which never asks it, must not pay for it."""
    cache = make()
    assert not (tmp_path / "cache" / FILE_NAME).exists()
    assert cache.lookup(vec(1), scope=SCOPE) is None
    assert (tmp_path / "cache" / FILE_NAME).exists()


def test_concurrent_use_keeps_the_cache_consistent(make: Make) -> None:
    cache = make(max_entries=50)
    vectors = [vec(i) for i in range(200)]

    def work(offset: int) -> None:
        for i in range(offset, 200, 4):
            cache.store(vectors[i], scope=f"s{i % 3}", question=str(i), value={"i": i})
            cache.lookup(vectors[(i * 7) % 200], scope=f"s{i % 3}")

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    s = cache.stats()
    assert s.size == 50
    assert s.hits + s.misses == 200
    found = [cache.lookup(v, scope=f"s{i % 3}") for i, v in enumerate(vectors)]
    assert sum(e is not None for e in found) == 50
    assert all(e.value == {"i": i} for i, e in enumerate(found) if e is not None)


def test_a_second_instance_on_the_same_folder_sees_the_entries(make: Make) -> None:
    """Another process (here: another instance over the same file) answers from the cache."""
    first = make()
    q = vec(1)
    first.store(q, scope=SCOPE, question="q", value={"answer": "from the first process"})
    second = make()
    hit = second.lookup(near(q), scope=SCOPE)
    assert hit is not None and hit.value == {"answer": "from the first process"}
    assert second.lookup(q, scope="rag|v3|{}|ja") is None
    assert second.clear() == 1 and first.lookup(q, scope=SCOPE) is None


def test_gptcache_never_installs_a_package(make: Make) -> None:
    make().lookup(vec(1), scope=SCOPE)  # GPTCache loads on first use
    import gptcache.utils.dependency_control as control

    with pytest.raises(RuntimeError, match="pip-install"):
        control.prompt_install("milvus")


def test_the_cache_works_with_the_package_index_unreachable(make: Make, monkeypatch: pytest.MonkeyPatch) -> None:
    """GPTCache installs missing backends with pip; every backend used here is a declared dependency."""
    import subprocess

    def no_network(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"a subprocess was started: {args!r}")

    monkeypatch.setattr(subprocess, "check_call", no_network)
    monkeypatch.setattr(subprocess, "run", no_network)
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")
    cache = make()
    cache.store(vec(1), scope=SCOPE, question="q", value={"answer": "offline"})
    hit = cache.lookup(vec(1), scope=SCOPE)
    assert hit is not None and hit.value == {"answer": "offline"}
