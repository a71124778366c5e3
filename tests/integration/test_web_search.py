"""Web search against a local server speaking Tavily's API: results, empties, and every failure."""

from __future__ import annotations

import asyncio
import socket
import time

import pytest

from components.resilience.errors import ConfigurationError, QueryError, ServiceUnavailable, WebSearchUnauthorized
from components.retrieval.web import TavilySearch, WebResult, WebSearch, make_web_search
from components.settings import Settings
from tests.fakes.web_search_server import API_KEY, Behaviour, result, web_search_server

pytestmark = pytest.mark.integration

RESULTS = [
    result("Monstera care", "https://example.org/monstera", "Water when the top soil is dry.", 0.81),
    result("Miso soup", "https://example.jp/miso", "味噌は火を止めてから溶き入れる。", 0.93),
    result("Odd score", "https://example.net/odd", "A provider bug", 1.7),
    result("No url", "", "dropped", 0.5),
]


def search(base_url: str, query: str = "monstera watering", *, k: int = 5, timeout: float = 5.0) -> list[WebResult]:
    return asyncio.run(TavilySearch(API_KEY, base_url=base_url, timeout=timeout).search(query, k=k))


def test_results_come_back_best_first_in_tavilys_request_shape() -> None:
    with web_search_server(Behaviour(results=RESULTS)) as (url, b):
        out = search(url, "味噌汁 作り方", k=3)
    assert [r.url for r in out] == [
        "https://example.net/odd",
        "https://example.jp/miso",
        "https://example.org/monstera",
    ]
    assert out[0].score == 1.0  # clamped into 0..1
    assert all(0 <= r.score <= 1 and r.url for r in out)
    assert any(r.content == "味噌は火を止めてから溶き入れる。" for r in out)
    path, headers, body = b.requests[0]
    assert path == "/search"
    assert headers["Authorization"] == f"Bearer {API_KEY}"
    assert body == {"query": "味噌汁 作り方", "max_results": 3, "search_depth": "basic"}


def test_k_limits_the_results_and_results_without_an_address_are_dropped() -> None:
    with web_search_server(Behaviour(results=RESULTS)) as (url, b):
        assert len(search(url, k=1)) == 1
        assert [r.title for r in search(url, k=5)] == ["Odd score", "Miso soup", "Monstera care"]
        search(url, k=50)
        assert b.requests[-1][2]["max_results"] == 20  # the API's ceiling, not an error


def test_no_results_is_an_empty_list() -> None:
    with web_search_server(Behaviour(results=[])) as (url, _):
        assert search(url) == []


def test_a_slow_provider_times_out_with_an_actionable_error() -> None:
    with web_search_server(Behaviour(results=RESULTS, delay=1.0)) as (url, _):
        t0 = time.perf_counter()
        with pytest.raises(ServiceUnavailable, match=r"did not answer within 0.2 s.*WEB_SEARCH_TIMEOUT"):
            search(url, timeout=0.2)
        assert time.perf_counter() - t0 < 1.0


def test_a_server_error_is_service_unavailable() -> None:
    with web_search_server(Behaviour(status=500)) as (url, _), pytest.raises(ServiceUnavailable, match="HTTP 500"):
        search(url)


def test_a_wrong_key_names_the_setting_to_fix() -> None:
    with (
        web_search_server(Behaviour(api_key="tvly-another-key")) as (url, _),
        pytest.raises(WebSearchUnauthorized, match="WEB_SEARCH_API_KEY") as e,
    ):
        search(url)
    assert "invalid API key" in str(e.value)
    assert isinstance(e.value, ConfigurationError)


def test_a_provider_that_is_down_is_service_unavailable() -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ServiceUnavailable, match="could not be reached"):
        search(f"http://127.0.0.1:{port}")


def test_an_empty_query_is_a_query_error_and_sends_nothing() -> None:
    with web_search_server(Behaviour(results=RESULTS)) as (url, b):
        with pytest.raises(QueryError):
            search(url, "   ")
        assert b.requests == []


def test_factory_follows_the_settings() -> None:
    off = Settings(_env_file=None)  # type: ignore[call-arg]
    assert make_web_search(off) is None
    with pytest.raises(ConfigurationError, match="WEB_SEARCH_API_KEY"):
        make_web_search(Settings(web_search_provider="tavily", _env_file=None))  # type: ignore[call-arg]
    with web_search_server(Behaviour(results=RESULTS)) as (url, _):
        s = Settings(
            web_search_provider="tavily",
            web_search_api_key=API_KEY,
            web_search_url=url,
            web_search_timeout=3,
            _env_file=None,  # type: ignore[call-arg]
        )
        web = make_web_search(s)
        assert isinstance(web, WebSearch) and isinstance(web, TavilySearch)
        assert API_KEY not in repr(web)
        assert len(asyncio.run(web.search("miso", k=2))) == 2
