"""Search filters: one list of conditions, evaluated inside Qdrant by both retrievers.

One ``SearchFilters`` value becomes both a store filter (Qdrant Edge's ``Filter``) and a predicate on
chunk payloads, built from the same list of conditions so the two cannot drift; the store
evaluates the filter, and the predicate states the semantics below in Python (the tests hold
the store's answers to it). Each condition has a human label, so an empty result can name the
condition responsible.

Semantics: ``vaults`` any of; ``tags`` all of; ``any_tags`` at least one of;
``created_from``/``created_to`` inclusive on the created date; ``source`` exact, ``source_prefix``
a path or URL prefix; ``section`` any heading of the chunk's section path; ``language``;
``doc_ids`` any of; ``chunk_types`` any of; ``where`` free conditions on any payload field: ``eq``
(a list field matches when any element equals), ``in`` (any of), ``contains`` (case-sensitive
substring of a text field, or of any element of a list field) and ``range``
(``gte``/``lte``/``gt``/``lt``; numbers, or ISO dates on date fields).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Literal

import qdrant_edge as qe
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator

from components.ingestion.chunk_types import ChunkType
from components.resilience.errors import QueryError
from components.stores.corpus import ACCESS_KEY, Corpus, field, field_values
from components.stores.points import AUTHORS_KEY, norm_prefix

Predicate = Callable[[dict[str, Any]], bool]

ACCESS_NOT_A_FILTER = (
    "'access' cannot be filtered on: the access groups a search may see are set by the calling "
    "app (Context.access_groups, or rag --group), never by a query"
)


class FieldFilter(BaseModel):
    """A condition on any payload field (``metadata.*`` reaches into JSONL metadata)."""

    model_config = ConfigDict(extra="forbid")
    key: str = Field(description="Payload field, e.g. `format` or `metadata.journal`.")
    op: Literal["eq", "in", "contains", "range"] = Field(default="eq")
    value: Any = Field(default=None, description="Value for eq/contains; list for in.")
    gte: float | str | None = None
    lte: float | str | None = None
    gt: float | str | None = None
    lt: float | str | None = None

    @model_validator(mode="after")
    def _check(self) -> FieldFilter:
        if not self.key.strip():
            raise ValueError("filter key is empty")
        if self.key.split(".")[0] == ACCESS_KEY:
            raise ValueError(ACCESS_NOT_A_FILTER)
        if self.op == "range" and all(v is None for v in (self.gte, self.lte, self.gt, self.lt)):
            raise ValueError(f"range filter on {self.key!r} needs gte, lte, gt or lt")
        if self.op == "in" and (not isinstance(self.value, list) or not self.value):
            raise ValueError(f"`in` filter on {self.key!r} needs a non-empty list of values")
        if self.op in {"eq", "contains"} and self.value is None:
            raise ValueError(f"`{self.op}` filter on {self.key!r} needs a value")
        for bound in (self.gte, self.lte, self.gt, self.lt):
            if isinstance(bound, str):
                try:
                    _as_dt(bound)
                except ValueError:
                    raise ValueError(
                        f"range bound {bound!r} on {self.key!r} is neither a number nor an ISO date"
                    ) from None
        if len({isinstance(b, str) for b in (self.gte, self.lte, self.gt, self.lt) if b is not None}) > 1:
            raise ValueError(f"range filter on {self.key!r} mixes ISO dates and numbers")
        return self


class SearchFilters(BaseModel):
    """Everything a search may be restricted to; all given conditions must hold."""

    model_config = ConfigDict(extra="forbid")
    _access: tuple[str, ...] | None = PrivateAttr(default=None)
    vaults: list[str] | None = Field(default=None, description="Any of these vaults.")
    tags: list[str] | None = Field(default=None, description="All of these tags.")
    any_tags: list[str] | None = Field(default=None, description='At least one of these tags ("tagged X or Y").')
    authors: list[str] | None = Field(
        default=None, description="Any of these authors, as a paper's metadata.authors writes them."
    )
    created_from: date | None = Field(default=None, description="Created on or after (inclusive).")
    created_to: date | None = Field(default=None, description="Created on or before (inclusive).")
    source: str | None = Field(default=None, description="Exactly this source path or URL.")
    source_prefix: str | None = Field(default=None, description="Source path or URL starts with this.")
    section: str | None = Field(default=None, description="A heading in the chunk's section path.")
    language: str | None = Field(default=None, description="ja, en, ...")
    doc_ids: list[str] | None = Field(default=None, description="Any of these document ids.")
    chunk_types: list[ChunkType] | None = Field(
        default=None, description="Any of these chunk types: heading, abstract, body, table, code."
    )
    where: list[FieldFilter] = Field(default_factory=list, description="Conditions on any payload field.")

    @field_validator("tags", "any_tags", "vaults", "authors", "doc_ids", "chunk_types")
    @classmethod
    def _no_blank(cls, v: list[str] | None) -> list[str] | None:
        if v is not None:
            v = [x.strip().lstrip("#") if isinstance(x, str) else x for x in v]
            if not v or any(not x for x in v):
                raise ValueError("empty value in list filter")
        return v

    @model_validator(mode="after")
    def _dates_in_order(self) -> SearchFilters:
        if self.created_from and self.created_to and self.created_from > self.created_to:
            raise ValueError(f"created_from {self.created_from} is after created_to {self.created_to}")
        return self

    @classmethod
    def parse(cls, raw: dict[str, Any] | SearchFilters | None) -> SearchFilters:
        """Validate user input, turning pydantic's error into an actionable QueryError."""
        if isinstance(raw, SearchFilters):
            return raw
        try:
            return cls.model_validate(raw or {})
        except ValidationError as e:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or 'filters'}: {err['msg']}"
                + (f" (got {err['input']!r})" if err.get("type") != "extra_forbidden" else "")
                for err in e.errors()
            )
            raise QueryError(f"Invalid filters: {problems}. Allowed keys: {', '.join(cls.model_fields)}.") from None

    def within(self, groups: Sequence[str]) -> SearchFilters:
        """A copy that also admits only chunks that are public or shared with one of ``groups``.

        The groups are kept out of the model's fields, so no query, filter dict or serialised
        state can set or widen them; each retrieval applies the run's own (``Context``).
        """
        out = self.model_copy()
        out._access = tuple(sorted({g for g in groups if g}))
        return out

    def access_only(self) -> SearchFilters:
        """Only the access restriction of these filters (what any read of a chunk must respect)."""
        out = SearchFilters()
        out._access = self._access
        return out

    def without_access(self) -> SearchFilters:
        """These filters less their access restriction: the conditions a caller chose."""
        out = self.model_copy()
        out._access = None
        return out

    def is_empty(self) -> bool:
        return not self.conditions()

    def conditions(self) -> list[Condition]:
        return _conditions(self)

    def to_qdrant(self) -> qe.Filter | None:
        conds = self.conditions()
        if not conds:
            return None
        return qe.Filter(must=[c.qdrant for c in conds])

    def matches(self, payload: dict[str, Any]) -> bool:
        return all(c.test(payload) for c in self.conditions())


@dataclass(frozen=True)
class Condition:
    label: str
    qdrant: Any
    test: Predicate
    key: str = ""
    """For a condition on a field's values (vault, tag, language, ``where`` eq/in): the field, so
    that an empty result can suggest the values the index does hold."""
    wanted: tuple[Any, ...] = ()


def access_scope(corpus: Corpus, groups: Sequence[str]) -> list[Condition]:
    """The conditions that keep a read of ``corpus`` to what ``groups`` may see (none where every
    chunk is public: a condition costs the embedded store a pass over the payloads)."""
    return SearchFilters().within(groups).conditions() if corpus.restricted else []


def _ts(d: date, end: bool = False) -> float:
    dt = datetime(d.year, d.month, d.day, tzinfo=UTC)
    return dt.timestamp() + (86400 - 1e-3 if end else 0.0)


def _any_of(key: str, values: list[Any], label: str) -> Condition:
    """The field (or any element of a list field) equals one of ``values``."""
    match: Any = qe.MatchAny(values) if len(values) > 1 else qe.MatchValue(values[0])
    return Condition(
        label,
        qe.FieldCondition(key=key, match=match),
        lambda p: any(x in values for x in field_values(p, key)),
        key=key,
        wanted=tuple(values),
    )


def _conditions(f: SearchFilters) -> list[Condition]:
    out: list[Condition] = []
    if f.vaults:
        out.append(_any_of("vault", list(f.vaults), f"vault in {f.vaults}"))
    out.extend(_any_of("tags", [tag], f"tag {tag!r}") for tag in f.tags or [])
    if f.any_tags:
        out.append(_any_of("tags", list(f.any_tags), f"tag in {f.any_tags}"))
    if f.authors:
        out.append(_any_of(AUTHORS_KEY, list(f.authors), f"author in {f.authors}"))
    if f.created_from or f.created_to:
        lo = _ts(f.created_from) if f.created_from else None
        hi = _ts(f.created_to, end=True) if f.created_to else None

        def in_range(p: dict[str, Any]) -> bool:
            ts = p.get("created_ts")
            return isinstance(ts, (int, float)) and (lo is None or ts >= lo) and (hi is None or ts <= hi)

        out.append(
            Condition(
                f"created {f.created_from or '…'}..{f.created_to or '…'}",
                qe.FieldCondition(key="created_ts", range=qe.RangeFloat(gte=lo, lte=hi)),
                in_range,
            )
        )
    if f.source:
        out.append(_any_of("source", [f.source], f"source == {f.source!r}"))
    if f.source_prefix:
        out.append(
            _any_of("source_prefixes", [norm_prefix(f.source_prefix)], f"source starts with {f.source_prefix!r}")
        )
    if f.section:
        out.append(_any_of("section_hierarchy", [f.section], f"section {f.section!r}"))
    if f.language:
        out.append(_any_of("language", [f.language], f"language {f.language!r}"))
    if f.doc_ids:
        out.append(_any_of("doc_id", list(f.doc_ids), f"doc_id in {f.doc_ids}"))
    if f.chunk_types:
        out.append(_any_of("chunk_type", list(f.chunk_types), f"chunk type in {f.chunk_types}"))
    out.extend(_field_condition(w) for w in f.where)
    if f._access is not None:
        out.append(_access_condition(f._access))
    return out


def _access_condition(groups: tuple[str, ...]) -> Condition:
    """Public chunks (no ``access``) or chunks shared with one of ``groups``."""
    public = qe.IsEmptyCondition(ACCESS_KEY)
    shared = [qe.FieldCondition(key=ACCESS_KEY, match=qe.MatchAny(list(groups)))] if groups else []
    return Condition(
        f"access: public or {list(groups)}",
        qe.Filter(should=[public, *shared]),
        lambda p: not p.get(ACCESS_KEY) or any(g in groups for g in field_values(p, ACCESS_KEY)),
    )


def _field_condition(w: FieldFilter) -> Condition:
    key = w.key
    if w.op == "eq":
        v = w.value
        return Condition(
            f"{key} == {v!r}",
            qe.FieldCondition(key=key, match=qe.MatchValue(v)),
            lambda p: v in field_values(p, key),
            key=key,
            wanted=(v,),
        )
    if w.op == "in":
        vs = list(w.value)
        return Condition(
            f"{key} in {vs}",
            qe.FieldCondition(key=key, match=qe.MatchAny(vs)),
            lambda p: any(x in vs for x in field_values(p, key)),
            key=key,
            wanted=tuple(vs),
        )
    if w.op == "contains":
        v = str(w.value)
        return Condition(
            f"{key} contains {v!r}",
            qe.FieldCondition(key=key, match=qe.MatchSubstring(v)),
            lambda p: any(isinstance(x, str) and v in x for x in field_values(p, key)),
        )
    bounds = {"gte": w.gte, "lte": w.lte, "gt": w.gt, "lt": w.lt}
    label = f"{key} " + " ".join(f"{k} {v}" for k, v in bounds.items() if v is not None)
    if any(isinstance(v, str) for v in bounds.values()):
        dt_bounds = {k: _as_dt(v) for k, v in bounds.items() if v is not None}
        qf = qe.FieldCondition(key=key, range=qe.RangeDateTime(**{k: v.isoformat() for k, v in dt_bounds.items()}))

        def test_dt(p: dict[str, Any]) -> bool:
            raw = field(p, key)
            try:
                x = _as_dt(raw)
            except (TypeError, ValueError):
                return False
            return _cmp(x, dt_bounds)

        return Condition(label, qf, test_dt)
    num = {k: float(v) for k, v in bounds.items() if v is not None}

    def test_num(p: dict[str, Any]) -> bool:
        raw = field(p, key)
        return isinstance(raw, (int, float)) and not isinstance(raw, bool) and _cmp(float(raw), num)

    return Condition(label, qe.FieldCondition(key=key, range=qe.RangeFloat(**num)), test_num)


def _as_dt(v: Any) -> datetime:
    if isinstance(v, datetime):
        dt = v
    elif isinstance(v, date):
        dt = datetime(v.year, v.month, v.day)
    elif isinstance(v, str):
        dt = datetime.fromisoformat(v.replace("Z", "+00:00"))
    else:
        raise TypeError(f"not a date: {v!r}")
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def _cmp(x: Any, b: dict[str, Any]) -> bool:
    return (
        ("gte" not in b or x >= b["gte"])
        and ("lte" not in b or x <= b["lte"])
        and ("gt" not in b or x > b["gt"])
        and ("lt" not in b or x < b["lt"])
    )
