"""Web search for questions the user's documents cannot answer (recent or outside events).

Off by default (``WEB_SEARCH_PROVIDER=""``): a personal knowledge base should not send its
questions to a third party unless the user asked for it. The one provider is Tavily, called
over its REST API with httpx rather than its SDK, so timeouts and errors are ours to shape:
every failure becomes a typed error whose message says what to do, which the graph's web
node turns into a fallback and its circuit breaker counts.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from components.resilience.errors import ConfigurationError, QueryError, ServiceUnavailable, WebSearchUnauthorized
from components.settings import Settings

if TYPE_CHECKING:
    import httpx

log = logging.getLogger(__name__)

#: Tavily returns at most this many results per query
MAX_RESULTS = 20


class WebResult(BaseModel):
    """One web page as the answer generator sees it."""

    title: str = Field(default="", description="Page title.")
    url: str = Field(description="Address of the page; the citation's source.")
    content: str = Field(default="", description="The provider's extract of the page, relevant to the query.")
    score: float = Field(default=0.0, ge=0.0, le=1.0, description="Provider's relevance score, 0..1.")


@runtime_checkable
class WebSearch(Protocol):
    """What the graph needs from a web search provider."""

    async def search(self, query: str, *, k: int = 5) -> list[WebResult]:
        """Up to ``k`` results for ``query``, best first."""
        ...


class TavilySearch:
    """Tavily's search API (``POST {base_url}/search``, bearer key)."""

    provider = "tavily"

    def __init__(self, api_key: str, *, base_url: str = "https://api.tavily.com", timeout: float = 10.0) -> None:
        if not api_key or not api_key.strip():
            raise ConfigurationError(
                "Web search with Tavily needs an API key: set WEB_SEARCH_API_KEY, or set "
                "WEB_SEARCH_PROVIDER= (empty) to turn web search off."
            )
        if not base_url.startswith(("http://", "https://")):
            raise ConfigurationError(f"WEB_SEARCH_URL must be an http(s) URL, not {base_url!r}.")
        if timeout <= 0:
            raise ConfigurationError(f"WEB_SEARCH_TIMEOUT must be positive, not {timeout}.")
        self._api_key = api_key.strip()
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout

    def __repr__(self) -> str:  # never show the key in logs or tracebacks
        return f"TavilySearch(base_url={self.base_url!r}, timeout={self.timeout})"

    async def search(self, query: str, *, k: int = 5) -> list[WebResult]:
        """Up to ``k`` results, best first; typed errors for every way the call can fail."""
        query = query.strip()
        if not query:
            raise QueryError("Web search needs a non-empty query.")
        if k < 1:
            raise QueryError(f"Web search needs k of at least 1, not {k}.")
        k = min(k, MAX_RESULTS)  # the API's own ceiling; asking for more is an error there
        url = f"{self.base_url}/search"
        body = {"query": query, "max_results": k, "search_depth": "basic"}
        headers = {"Authorization": f"Bearer {self._api_key}"}
        # A client per call: the graph may run each request in its own event loop (CLI, tests,
        # the API server), and an AsyncClient must not outlive the loop it was created in.
        import httpx  # here, where the web is searched: a search of the store alone never pays its import

        try:
            async with httpx.AsyncClient(timeout=self.timeout) as client:
                response = await client.post(url, json=body, headers=headers)
        except httpx.TimeoutException as e:
            raise ServiceUnavailable(
                f"Web search did not answer within {self.timeout:g} s ({self.base_url}). Try again later, "
                f"or raise WEB_SEARCH_TIMEOUT."
            ) from e
        except httpx.HTTPError as e:
            raise ServiceUnavailable(
                f"Web search at {self.base_url} could not be reached ({type(e).__name__}). Check the network "
                f"and WEB_SEARCH_URL, or set WEB_SEARCH_PROVIDER= (empty) to turn web search off."
            ) from e
        self._raise_for_status(response)
        try:
            data = response.json()
        except ValueError as e:
            raise ServiceUnavailable(f"Web search at {self.base_url} answered with something that is not JSON.") from e
        results = [_result(r) for r in (data.get("results") or []) if isinstance(r, dict) and r.get("url")]
        results.sort(key=lambda r: r.score, reverse=True)
        log.info("web search: %d results in %.2f s", len(results), response.elapsed.total_seconds())
        return results[:k]

    def _raise_for_status(self, response: httpx.Response) -> None:
        code = response.status_code
        if code < 400:
            return
        detail = _detail(response)
        if code in (401, 403):
            raise WebSearchUnauthorized(
                f"Web search refused the API key (HTTP {code}{': ' + detail if detail else ''}). Check "
                f"WEB_SEARCH_API_KEY (a Tavily key starts with 'tvly-'), or set WEB_SEARCH_PROVIDER= (empty) "
                f"to turn web search off."
            )
        if code == 400:
            raise QueryError(f"Web search rejected the query (HTTP 400{': ' + detail if detail else ''}).")
        if code == 429:
            raise ServiceUnavailable("Web search is rate-limited (HTTP 429). Wait a minute and ask again.")
        if code in (432, 433):
            raise ServiceUnavailable(
                f"The web search plan's limit is reached (HTTP {code}{': ' + detail if detail else ''}). "
                f"Raise the limit in the Tavily dashboard, or turn web search off."
            )
        raise ServiceUnavailable(
            f"Web search at {self.base_url} failed (HTTP {code}{': ' + detail if detail else ''}). Try again later."
        )


def _detail(response: httpx.Response) -> str:
    """The provider's error text (Tavily: ``{"detail": {"error": ...}}``), short, or ''."""
    try:
        data: Any = response.json()
    except ValueError:
        return response.text[:200].strip()
    if isinstance(data, dict):
        d = data.get("detail", data.get("error", ""))
        if isinstance(d, dict):
            d = d.get("error", "")
        return str(d)[:200]
    return ""


def _result(r: dict[str, Any]) -> WebResult:
    try:
        score = float(r.get("score") or 0.0)
    except (TypeError, ValueError):
        score = 0.0
    return WebResult(
        title=str(r.get("title") or ""),
        url=str(r["url"]),
        content=str(r.get("content") or ""),
        score=min(1.0, max(0.0, score)),
    )


def make_web_search(settings: Settings) -> WebSearch | None:
    """The configured provider, or None when web search is off (the default)."""
    provider = settings.web_search_provider
    if not provider:
        return None
    if provider == "tavily":
        if not settings.web_search_api_key:
            raise ConfigurationError(
                "WEB_SEARCH_PROVIDER=tavily needs WEB_SEARCH_API_KEY (get a key at https://app.tavily.com), "
                "or set WEB_SEARCH_PROVIDER= (empty) to turn web search off."
            )
        return TavilySearch(
            settings.web_search_api_key, base_url=settings.web_search_url, timeout=settings.web_search_timeout
        )
    raise ConfigurationError(f"Unknown WEB_SEARCH_PROVIDER {provider!r}: use 'tavily' or leave it empty.")
