"""Personal data (PII) in English and Japanese, found by Presidio with two spaCy pipelines.

One module per job:

- ``engine.py``: the process's one Presidio analyzer, its spaCy pipelines (loaded on first use,
  behind locks) and the import of Presidio without torch;
- ``specs.py`` and ``recognizers.py``: what NER cannot find (e-mail, phones, cards, IBAN, IP,
  US SSN, マイナンバー, 〒 postal codes, Japanese addresses, titled names) as pattern data, and the
  Presidio recognizers built from it; context words in both languages lift scores;
- ``addresses.py``: Latin-script postal addresses, each as one span across its lines;
- ``names_en.py`` and ``names_ja.py``: names the way people write them (cue words, honorifics,
  subject position), the English name lexicon (``guardrails/data/pii/names_en.tsv``) and the
  checks that keep Title Case phrases, eponyms, places and job words from being people;
- ``lexicons.py``: the word lists (prefectures, street suffixes, titles and honorifics, words
  that are not names);
- ``detection.py`` and ``filters.py``: :func:`detect_pii`, which folds full-width text without
  moving offsets, and the heuristics that trim, drop or extend what the recognizers report;
- ``redaction.py``: placeholders and :func:`canonical` forms for comparison;
- ``entities.py``: the entity types and :class:`PIIEntity`.

Which types are redacted (``REDACTED_ENTITIES``) is a decision, documented next to it:
locations, organisations and dates are detected on request only. Importing this package
imports neither Presidio nor spaCy; the first detection does.
"""

from guardrails.pii.detection import detect_pii, fold
from guardrails.pii.engine import LANGUAGES, analyzer, load_seconds, loaded_languages, preload
from guardrails.pii.entities import CONTEXT_ENTITIES, REDACTED_ENTITIES, SUPPORTED_ENTITIES, PIIEntity
from guardrails.pii.redaction import canonical, has_placeholder, placeholder, redact, redact_personal_data

__all__ = [
    "CONTEXT_ENTITIES",
    "LANGUAGES",
    "REDACTED_ENTITIES",
    "SUPPORTED_ENTITIES",
    "PIIEntity",
    "analyzer",
    "canonical",
    "detect_pii",
    "fold",
    "has_placeholder",
    "load_seconds",
    "loaded_languages",
    "placeholder",
    "preload",
    "redact",
    "redact_personal_data",
]
