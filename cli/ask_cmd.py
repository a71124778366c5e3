"""``rag ask`` / ``rag chat`` / ``rag profile``: cited answers in persistent threads.

Every question runs in a thread (SQLite checkpointer from ``graph.threads``), so a follow-up
asked in another process, with ``--thread``, sees the conversation so far; ``rag chat`` keeps
one thread across turns. ``rag profile`` writes the default filters ``analyze_query`` reads
for ``--user``. Streaming shows the LLM's answer as it is generated; the extractive path has
no tokens, so its answer is printed when the run ends.

The ``--json`` object is a contract for scripts and evaluation harnesses (see README):
``answer, sources, confidence, route, path, escalation, warnings, cache_hit, thread_id,
request_id, examples`` (+ ``steps`` and ``debug_info`` with ``--debug``); ``examples`` lists the
answers rated good that the LLM generator was shown (``rag feedback``).
"""

from __future__ import annotations

import asyncio
import logging
import sys
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, ClassVar, TextIO, cast

from cli.dispatch import OnEvent, Request, ignore
from cli.output import err_console, print_json
from components.resilience.errors import QueryError, RAGError

if TYPE_CHECKING:  # an ask forwarded to `rag serve` loads none of these here
    from components.factory import Components
    from graph.context import Context

log = logging.getLogger(__name__)

ANSWER_NODES = frozenset({"generate_answer", "answer_directly"})  # nodes whose LLM tokens are the answer
"""The node whose LLM tokens are the answer (graders and rewriters stream nothing worth showing)."""
JSON_KEYS = (
    "answer",
    "sources",
    "confidence",
    "route",
    "path",
    "escalation",
    "warnings",
    "cache_hit",
    "request_id",
    "examples",
)
DEBUG_KEYS = ("steps", "debug_info")
VERDICTS = (("context", "context_verdict"), ("hallucination", "hallucination"), ("answer", "answer_verdict"))
REGENERATING = "[regenerating the answer]"
REPLACED = "[final answer]"
CHAT_HELP = "commands: /new starts a new thread, quit, exit, /quit or Ctrl-D leaves"
#: lines that leave the chat instead of being asked (a user types "quit" without the slash)
EXITS = frozenset({"/quit", "/exit", "/q", "quit", "exit", "bye", ":q", "終了", "やめる"})


def prompt_lines(read: Callable[[str], str], prompt: str, out: TextIO) -> Iterator[str]:
    """The lines a person types at ``prompt``, blank ones skipped, until an exit word or Ctrl-D."""
    while True:
        try:
            line = read(prompt).strip()
        except EOFError:
            out.write("\n")
            return
        if line.casefold() in EXITS:
            return
        if line:
            yield line


def new_thread_id() -> str:
    return uuid.uuid4().hex


@dataclass(frozen=True)
class Turn:
    """One question and the knobs that go with it; everything is sent on every turn.

    A thread keeps the previous run's state, inputs included, so a turn that left out
    ``filters`` or ``debug`` would silently inherit the previous question's.
    """

    question: str
    filters: dict[str, Any] = field(default_factory=dict)
    top_k: int = 5
    debug: bool = False
    collection: str = ""
    user_id: str = ""
    use_llm: bool = True
    groups: tuple[str, ...] = ()
    web: bool = False
    #: documents given with the question (``rag ask --attach``): text, title, source
    documents: tuple[dict[str, str], ...] = ()

    def graph_input(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "documents": [dict(d) for d in self.documents],
            "mode": "qa",
            "filters": dict(self.filters),
            "top_k": self.top_k,
            "debug": self.debug,
        }

    def context(self) -> Context:
        from cli.search_cmd import collection_knobs
        from graph.context import Context

        return Context(
            **collection_knobs(self.collection),
            top_k=self.top_k,
            user_id=self.user_id,
            use_llm=self.use_llm,
            access_groups=self.groups,
            web_search=self.web,
        )


@dataclass(frozen=True)
class Ask(Request):
    """One turn in a thread, sent whole to `rag serve` (``rag ask``, each turn of ``chat`` and ``:ask``)."""

    command: ClassVar[str] = "ask"

    turn: Turn
    thread_id: str
    #: the answer's tokens come as events while it is generated
    stream: bool = False

    @classmethod
    def of(cls, args: Mapping[str, Any]) -> Ask:
        """The request of ``args`` (JSON turned the turn's tuple of groups into a list)."""
        known = {f.name for f in fields(Turn)}
        turn = Turn(**{k: v for k, v in dict(args.get("turn") or {}).items() if k in known})
        turn = replace(turn, groups=tuple(turn.groups), filters=dict(turn.filters))
        return cls(turn=turn, thread_id=str(args["thread_id"]), stream=bool(args.get("stream")))

    async def run(self, graph: Any, on_event: OnEvent = ignore) -> dict[str, Any]:
        """The turn through the Q&A graph: what ``present`` reads of its output."""
        sink = cast(TextIO, TokenSink(on_event)) if self.stream else None
        return answer_fields(await run_turn(graph, self.turn, self.thread_id, stream_to=sink))

    def here(self, c: Components, on_event: OnEvent = ignore) -> dict[str, Any]:
        from components.retrieval.filters import SearchFilters
        from graph.threads import open_rag_graph

        if not self.turn.question.strip():
            raise QueryError('the question is empty: ask something, e.g. rag ask "When should I water the monstera?"')
        SearchFilters.parse(self.turn.filters)  # a bad --from is the caller's mistake: say so before loading models

        async def go() -> dict[str, Any]:
            async with open_rag_graph(c) as graph:
                return await self.run(graph, on_event)

        return asyncio.run(go())


class TokenSink:
    """A text stream for ``TokenPrinter`` whose writes become token events (``dispatch.tokens_to`` prints them)."""

    def __init__(self, on_event: OnEvent) -> None:
        self.on_event = on_event

    def write(self, text: str) -> int:
        if text:
            self.on_event({"event": "token", "text": text})
        return len(text)

    def flush(self) -> None:
        return None


class TokenPrinter:
    """Writes the answer's tokens as they arrive, and says so when the graph starts the answer again.

    A new visit of ``generate_answer`` (after a failed hallucination check, or a rewrite
    after an unhelpful answer) streams a whole new answer; the task namespace in the chunk's
    metadata tells visits apart.
    """

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.visit: str | None = None
        self.text = ""

    def feed(self, chunk: Any, metadata: dict[str, Any]) -> None:
        if metadata.get("langgraph_node") not in ANSWER_NODES:
            return
        content = getattr(chunk, "content", "")
        token = content if isinstance(content, str) else ""
        if not token:
            return
        visit = str(metadata.get("langgraph_checkpoint_ns") or metadata.get("langgraph_step") or "")
        if self.visit is not None and visit != self.visit and self.text:
            self.out.write(f"\n{REGENERATING}\n")
            self.text = ""
        self.visit = visit
        self.text += token
        self.out.write(token)
        self.out.flush()

    def finish(self, final_answer: str) -> None:
        """Print the final answer when nothing streamed, or when it is not what streamed (fallback, redaction)."""
        if not self.text:
            self.out.write(final_answer.rstrip() + "\n")
        elif " ".join(self.text.split()) != " ".join(final_answer.split()):
            self.out.write(f"\n{REPLACED}\n{final_answer.rstrip()}\n")
        else:
            self.out.write("\n")
        self.out.flush()


async def run_turn(graph: Any, turn: Turn, thread_id: str, *, stream_to: TextIO | None = None) -> dict[str, Any]:
    """Run one question in a thread; with ``stream_to``, the answer's tokens are written there as they come."""
    config = {"configurable": {"thread_id": thread_id}}
    if stream_to is None:
        out: dict[str, Any] = await graph.ainvoke(turn.graph_input(), config, context=turn.context())
        return out
    printer = TokenPrinter(stream_to)
    final: dict[str, Any] = {}
    async for mode, data in graph.astream(
        turn.graph_input(), config, context=turn.context(), stream_mode=["messages", "values"]
    ):
        if mode == "messages":
            chunk, metadata = data
            printer.feed(chunk, metadata)
        elif mode == "values":
            final = data
    printer.finish(final.get("answer") or "")
    return final


# ---------------------------------------------------------------- rendering
def report(out: dict[str, Any], thread_id: str, *, debug: bool) -> dict[str, Any]:
    """The ``--json`` contract."""
    data = {k: out.get(k) for k in JSON_KEYS}
    data["sources"] = data["sources"] or []
    data["warnings"] = data["warnings"] or []
    data["examples"] = data["examples"] or []
    data["cache_hit"] = bool(data["cache_hit"])
    data["thread_id"] = thread_id
    if debug:
        data.update({k: out.get(k) or ([] if k == "steps" else {}) for k in DEBUG_KEYS})
    return data


def render_details(out: dict[str, Any], *, debug: bool, thread_hint: str = "") -> str:
    """Sources, the confidence/route/path line, and with ``debug`` the nodes visited and the verdicts."""
    lines: list[str] = []
    sources = out.get("sources") or []
    if sources:
        lines.append("")
        # a listed document (the metadata route) is the whole document: no section to name
        lines += [
            f"[{s.get('n')}] {s.get('title') or 'unknown'}"
            + (f" — {s.get('section') or '-'}" if out.get("path") != "metadata" else "")
            + f" ({s.get('source') or 'unknown'})"
            for s in sources
        ]
    lines.append("")
    lines.append(
        f"confidence {float(out.get('confidence') or 0):.2f} · route {out.get('route') or '-'} · "
        f"path {out.get('path') or '-'}" + (" · from cache" if out.get("cache_hit") else "")
    )
    escalation = out.get("escalation")
    if escalation:
        lines.append(f"gave up: {escalation.get('reason')} (at {escalation.get('node') or '-'})")
    if thread_hint:
        lines.append(thread_hint)
    if debug:
        lines.append("")
        lines.append(f"nodes visited (request {out.get('request_id') or '-'}):")
        lines += [f"  {s.get('node'):<22} {float(s.get('ms') or 0):>9.1f} ms" for s in out.get("steps") or []]
        info = out.get("debug_info") or {}
        lines.append("verdicts:")
        for label, key in VERDICTS:
            verdict = info.get(key) or {}
            text = ", ".join(f"{k}={v}" for k, v in verdict.items()) if verdict else "not graded"
            lines.append(f"  {label}: {text}")
    return "\n".join(lines) + "\n"


def warn(out: dict[str, Any]) -> None:
    for w in out.get("warnings") or []:
        err_console.print(f"warning: {w}", highlight=False, markup=False, soft_wrap=True)


def thread_hint(thread_id: str) -> str:
    return f"thread {thread_id} (continue with --thread {thread_id})"


# ---------------------------------------------------------------- commands
def answer_fields(out: dict[str, Any]) -> dict[str, Any]:
    """What ``present`` reads of a run's output: the ``--json`` keys and the debug ones (JSON-safe)."""
    return {k: out.get(k) for k in (*JSON_KEYS, *DEBUG_KEYS)}


def present(
    result: dict[str, Any], tid: str, turn: Turn, *, as_json: bool, streamed: bool, out: TextIO | None = None
) -> None:
    """Print an answer as ``rag ask`` does (the answer unless it streamed, sources, line, warnings)."""
    sink = out or sys.stdout
    if as_json:
        print_json(report(result, tid, debug=turn.debug))
        return
    if not streamed:
        sink.write((result.get("answer") or "").rstrip() + "\n")
    sink.write(render_details(result, debug=turn.debug, thread_hint=thread_hint(tid)))
    sink.flush()
    warn(result)


#: one turn of a chat: (turn, thread id, where its tokens go) -> the run's output
TurnRunner = Callable[[Turn, str, TextIO], dict[str, Any]]


def chat_loop(
    run: TurnRunner, base: Turn, tid: str, *, read: Callable[[str], str] = input, out: TextIO | None = None
) -> int:
    """The REPL of ``rag chat``, whatever runs the turns (this process or `rag serve`)."""
    sink = out or sys.stdout
    try:
        sink.write(f"thread {tid} · {CHAT_HELP}\n")
        sink.flush()
        for line in prompt_lines(read, "you> ", sink):
            if line == "/new":
                tid = new_thread_id()
                sink.write(f"new thread {tid}\n")
                continue
            if line.startswith("/"):
                sink.write(f"unknown command {line.split()[0]}; {CHAT_HELP}\n")
                continue
            sink.write("rag> ")
            sink.flush()
            try:
                result = run(replace(base, question=line), tid, sink)
            except RAGError as e:  # one failed turn does not end the conversation
                err_console.print(f"error: {e}", highlight=False, markup=False, soft_wrap=True)
                continue
            sink.write(render_details(result, debug=base.debug))
            sink.flush()
            warn(result)
    except KeyboardInterrupt:
        sink.write("\n")
    finally:
        sink.write(f"bye · continue later with: rag chat --thread {tid}\n")
        sink.flush()
    return 0


def chat(
    c: Components,
    base: Turn,
    *,
    thread_id: str | None,
    read: Callable[[str], str] = input,
    out: TextIO | None = None,
) -> int:
    """``rag chat`` in this process: a REPL over one thread, answers streamed; ``/new`` starts another.

    One event loop for the whole session (``asyncio.Runner``): the SQLite connections belong
    to it, and ``input()`` stays a plain blocking call between turns.
    """
    from graph.threads import open_rag_graph

    with asyncio.Runner() as runner:
        stack = AsyncExitStack()
        graph = runner.run(stack.enter_async_context(open_rag_graph(c)))
        try:
            return chat_loop(
                lambda turn, tid, sink: runner.run(run_turn(graph, turn, tid, stream_to=sink)),
                base,
                thread_id or new_thread_id(),
                read=read,
                out=out,
            )
        finally:
            runner.run(stack.aclose())


def profile(c: Components, user_id: str, filters: dict[str, Any], *, clear: bool = False) -> dict[str, Any]:
    """``rag profile``: set (replace), clear or show a user's default filters; returns what is stored now.

    The command has refused an empty user id (a usage error) before this runs."""
    from components.retrieval.filters import SearchFilters
    from graph.threads import delete_profile, open_store, read_profile, threads_location, write_profile

    if filters and clear:
        raise QueryError("--clear removes the profile; give either --clear or filters, not both")
    SearchFilters.parse(filters)
    where = threads_location(c.settings)

    async def go() -> dict[str, Any] | None:
        async with open_store(c.settings) as store:
            if clear:
                await delete_profile(store, user_id)
                return None
            if filters:
                return await write_profile(store, user_id, filters)
            return await read_profile(store, user_id)

    stored = asyncio.run(go())
    log.info("profile of %s in %s: %s", user_id, where, stored)
    return {"user_id": user_id, "profile": stored, "db": where}
