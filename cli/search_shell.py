"""``rag search -i``: a search loop with filters that persist, history, re-run and a switch to Q&A.

A plain line is a search under the current filters. Colon commands change them (``:tag rag``,
``:from 2025-01-01``, ``:clear``); ``!N`` runs the N-th query of ``:history`` again; ``:show N``
prints result N whole; ``:ask [QUESTION]`` answers from the documents of the last results. The
filters are the same options as ``rag search`` (``search_cmd.build_filters``), checked when they
are set, so a typo is refused at once instead of emptying every later search.

History is a plain file under ``DATA_DIR`` (one line per entry, the last 1,000), fed to
``readline`` where it exists so the arrow keys recall earlier lines across sessions.
"""

from __future__ import annotations

import asyncio
import logging
import shlex
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from cli.ask_cmd import EXITS, Ask, Turn, new_thread_id, prompt_lines, render_details, run_turn
from cli.dispatch import Remote
from cli.output import err_console
from cli.search_cmd import SearchRequest, build_filters
from cli.search_formats import FORMATS, render
from components.resilience.errors import QueryError, RAGError
from components.retrieval.filters import SearchFilters

if TYPE_CHECKING:
    from components.factory import Components

log = logging.getLogger(__name__)

HISTORY_LENGTH = 1000
HELP = """\
type words to search; commands:
  :tag T  :vault V  :type abstract|body|table|code|heading  :lang ja|en  :section S  :source PREFIX
  :from YYYY-MM-DD  :to YYYY-MM-DD  :year-min N  :year-max N  :collection C  :item-type T  :where key=value
  :filters (show)  :clear [NAME] (all filters, or one)  :k N  :min SCORE  :format text|brief|markdown|citations|json
  :group (documents instead of chunks, toggles)  :history  !N (run query N again)  :show N (result N whole)
  :ask [QUESTION] (answer from the last results' documents)  :help  quit, exit, Ctrl-D or Ctrl-C leaves"""

#: command → (``build_filters`` option, takes several values); a list option grows with each use
FILTER_COMMANDS: dict[str, tuple[str, bool]] = {
    "tag": ("tag", True),
    "vault": ("vault", True),
    "type": ("chunk_types", True),
    "lang": ("lang", False),
    "section": ("section", False),
    "source": ("source_prefix", False),
    "from": ("date_from", False),
    "to": ("date_to", False),
    "year-min": ("year_min", False),
    "year-max": ("year_max", False),
    "collection": ("collections", True),
    "item-type": ("item_types", True),
    "where": ("where", True),
}


class History:
    """Lines typed in earlier sessions and this one, kept in ``path``; the queries among them are numbered."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines: list[str] = []
        if path.exists():
            self.lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()][-HISTORY_LENGTH:]
        self._readline = _readline()
        if self._readline is not None:
            self._readline.clear_history()
            for ln in self.lines:
                self._readline.add_history(ln)

    def add(self, line: str, *, typed_at_terminal: bool) -> None:
        self.lines.append(line)
        if self._readline is not None and not typed_at_terminal:  # readline records what it read itself
            self._readline.add_history(line)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keep = self.lines[-HISTORY_LENGTH:]
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text("\n".join(keep) + "\n", encoding="utf-8")
        tmp.replace(self.path)

    def queries(self) -> list[str]:
        """Searches, oldest first, each once (at its latest use)."""
        out = [ln for ln in self.lines if not ln.startswith((":", "!")) and ln.casefold() not in EXITS]
        return list(reversed(dict.fromkeys(reversed(out))))


def _readline() -> Any:
    try:
        import readline
    except ImportError:  # Windows without pyreadline: no line editing, history still kept in the file
        return None
    return readline


@dataclass
class Shell:
    """The loop's state: options of ``build_filters``, the request each search starts from (its
    knobs: results, least score, grouping, collection, access groups), output settings and the last results."""

    c: Components | None
    data_dir: Path
    options: dict[str, Any] = field(default_factory=dict)
    request: SearchRequest = field(default_factory=SearchRequest)
    fmt: str = "brief"
    last: dict[str, Any] | None = None
    thread_id: str = field(default_factory=new_thread_id)

    def filters(self) -> dict[str, Any]:
        return build_filters(**self.options)

    # ------------------------------------------------------------ commands
    def set_option(self, name: str, value: str) -> str:
        if name not in FILTER_COMMANDS:
            raise QueryError(f"unknown command :{name}; type :help for the list")
        key, several = FILTER_COMMANDS[name]
        if not value:
            raise QueryError(f":{name} needs a value, e.g. :{name} {'2025-01-01' if key.startswith('date') else 'x'}")
        new = dict(self.options)
        if key in {"year_min", "year_max"}:
            try:
                new[key] = int(value)
            except ValueError:
                raise QueryError(f":{name} needs a year as a number (got {value!r})") from None
        elif several:
            new[key] = [*new.get(key, []), value]
        else:
            new[key] = value
        SearchFilters.parse(build_filters(**new))  # refuse a bad value now, not at every later search
        self.options = new
        return self.describe()

    def clear(self, name: str) -> str:
        if not name:
            self.options = {}
        elif name in FILTER_COMMANDS:
            self.options.pop(FILTER_COMMANDS[name][0], None)
        else:
            raise QueryError(f"no filter :{name} to clear; filters: {', '.join(FILTER_COMMANDS)}")
        return self.describe()

    def describe(self) -> str:
        shown = {k: v for k, v in self.filters().items() if v}
        return "filters: " + (", ".join(f"{k}={v}" for k, v in shown.items()) if shown else "none")

    def result(self, number: str) -> str:
        rows = (self.last or {}).get("results") or []
        if not number.isdigit() or not 1 <= int(number) <= len(rows):
            raise QueryError(f":show needs a result number from 1 to {len(rows)}" if rows else "no results yet")
        return render({**(self.last or {}), "results": [rows[int(number) - 1]]}, "text")

    def search(self, query: str) -> SearchRequest:
        return replace(self.request, question=query, filters=self.filters())

    def last_documents(self) -> list[str]:
        return list(dict.fromkeys(str(r["doc_id"]) for r in (self.last or {}).get("results") or [] if r.get("doc_id")))


def reader(first: str, out: TextIO) -> Callable[[str], str]:
    """The loop's ``read``: ``first`` (the query given on the command line, if any) is the first search."""
    lines = iter([first] if first.strip() else [])

    def read(prompt: str) -> str:
        line = next(lines, None)
        if line is not None:
            out.write(prompt + line + "\n")
            return line
        return input(prompt)

    return read


def shell(
    state: Shell,
    *,
    read: Callable[[str], str] = input,
    out: TextIO,
    at_terminal: bool = False,
    remote: Remote | None = None,
) -> int:
    """Run the loop until quit, exit, Ctrl-D or Ctrl-C; every error ends one command, not the session.

    With ``remote`` (a running `rag serve`), searches and ``:ask`` run there; otherwise here.
    """
    history = History(state.data_dir / "history" / "search")
    with asyncio.Runner() as runner:
        stack = AsyncExitStack()
        graphs: dict[str, Any] = {}

        def graph(kind: str) -> Any:
            """This process's search or Q&A graph, built when first needed."""
            from graph.rag import build_rag_graph
            from graph.threads import open_rag_graph

            assert state.c is not None, "a shell without components runs through rag serve"
            if kind not in graphs:
                graphs[kind] = (
                    build_rag_graph(state.c)
                    if kind == "search"
                    else runner.run(stack.enter_async_context(open_rag_graph(state.c)))
                )
            return graphs[kind]

        out.write(f"interactive search · {state.describe()} · :help lists the commands\n")
        out.flush()
        try:
            for line in prompt_lines(read, "search> ", out):
                history.add(line, typed_at_terminal=at_terminal)
                try:
                    if line.startswith("!"):
                        line = _nth_query(history, line[1:])
                        out.write(f"search> {line}\n")
                    if line.startswith(":"):
                        name, _, arg = line[1:].partition(" ")
                        name, arg = name.strip().lower(), arg.strip()
                        if name == "ask":
                            turn = _ask_turn(state, arg)
                            if remote is not None:
                                result = remote("ask", Ask(turn, state.thread_id).args())
                            else:
                                result = runner.run(run_turn(graph("qa"), turn, state.thread_id))
                            out.write(
                                (result.get("answer") or "").rstrip() + "\n" + render_details(result, debug=False)
                            )
                        else:
                            out.write(_command(state, history, name, arg) + "\n")
                        out.flush()
                        continue
                    request = state.search(line)
                    if remote is not None:
                        state.last = remote("search", request.args())
                    else:
                        state.last = request.report(runner.run(request.run(graph("search"))))
                    out.write(render(state.last or {}, state.fmt))
                    out.flush()
                except RAGError as e:
                    err_console.print(f"error: {e}", highlight=False, markup=False, soft_wrap=True)
        except KeyboardInterrupt:
            out.write("\n")
        finally:
            runner.run(stack.aclose())
            out.write("bye\n")
            out.flush()
    return 0


def _command(state: Shell, history: History, name: str, arg: str) -> str:
    if name == "help":
        return HELP
    if name == "filters":
        return state.describe()
    if name == "clear":
        return state.clear(arg)
    if name == "history":
        queries = history.queries()
        return "\n".join(f"{i:>4}  {q}" for i, q in enumerate(queries, start=1)) or "no searches yet"
    if name == "show":
        return state.result(arg).rstrip()
    if name == "group":
        state.request = replace(state.request, group_by_document=not state.request.group_by_document)
        return "results: one per document" if state.request.group_by_document else "results: one per chunk"
    if name == "k":
        if not arg.isdigit() or not 1 <= int(arg) <= 1000:
            raise QueryError(":k needs a number of results from 1 to 1000")
        state.request = replace(state.request, top_k=int(arg))
        return f"results per search: {state.request.top_k}"
    if name == "min":
        try:
            score = float(arg)
        except ValueError:
            score = -1.0
        if not 0.0 <= score <= 1.0:
            raise QueryError(
                ":min needs a score from 0 to 1 (0 shows the closest chunks even when none looks relevant)"
            )
        state.request = replace(state.request, min_score=score)
        return f"least score: {score}"
    if name == "format":
        if arg not in FORMATS:
            raise QueryError(f":format needs one of {', '.join(FORMATS)}")
        state.fmt = arg
        return f"format: {arg}"
    values = shlex.split(arg) if arg else [""]
    said = ""
    for v in values:
        said = state.set_option(name, v)
    return said


def _nth_query(history: History, number: str) -> str:
    queries = history.queries()
    if not number.isdigit() or not 1 <= int(number) <= len(queries):
        raise QueryError(
            f"!N needs a query number from 1 to {len(queries)} (see :history)" if queries else "no searches yet"
        )
    return queries[int(number) - 1]


def _ask_turn(state: Shell, question: str) -> Turn:
    """Q&A restricted to the documents of the last results (their question when none is given)."""
    docs = state.last_documents()
    if not docs:
        raise QueryError(":ask answers from the last results; search first (there are none yet)")
    return Turn(
        question=question or str((state.last or {}).get("query") or ""),
        filters={"doc_ids": docs},
        top_k=min(5, len(docs)) if state.request.group_by_document else 5,
        collection=state.request.collection,
        groups=tuple(state.request.groups),
    )
