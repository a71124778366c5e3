"""Builds the public-corpus PII samples under guardrails/data/pii/ from snapshots of two open NER
corpora (see guardrails/data/PII_SOURCES.md for their licences):

- UNER English-EWT (Universal NER over the English Web Treebank, CC BY-SA 4.0), test split, IOB2
  with PER/ORG/LOC: a seeded sample of sentences, PERSON scored (``uner_en_ewt_test.jsonl``), and
  every test sentence with seven digits or more, where phone numbers, e-mail and street addresses
  are labelled by hand on top of UNER's persons (``uner_en_ewt_contacts.jsonl``);
- UD Japanese-GSD with Megagon Labs' named-entity labels (CC BY-SA 4.0), test split, the
  ``NE=`` field of ``ja_gsd-ud-test.ne.conllu``: every sentence, PERSON scored
  (``ud_ja_gsd_ne_test.jsonl``).

    python scripts/make_pii_public.py EWT_TEST.iob2 GSD_TEST.ne.conllu guardrails/data/pii/ \\
        [EWT_DEV.iob2 GSD_DEV.ne.conllu]

The dev splits, when given, become the tune sets (``uner_en_ewt_dev.jsonl``, a sample as the test's,
and ``ud_ja_gsd_ne_dev.jsonl``): public text the name rules may be fitted on, so that the test
splits stay a check.

Each line: ``{"text", "lang", "spans": [{"start", "end", "entity_type"}], "labelled": [types],
"source", "id"}``; ``labelled`` names the types the corpus annotates, so that the scorer counts
only predictions of those types as false positives.
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

SEED = 35
EWT_SAMPLE = 800
#: phones, e-mails and street addresses in the EWT test sentences with seven digits or more,
#: labelled by hand for this project: sentence id -> [(type, exact substring), ...]
CONTACT_LABELS: dict[str, list[tuple[str, str]]] = {
    "email-enronsent04_01-0024": [
        ("STREET_ADDRESS", "28601 Chagrin Blvd. Cleveland, Ohio 44122"),
        ("EMAIL_ADDRESS", "recruiters@marvelconsultants.com"),
        ("PHONE_NUMBER", "216-292-2855"),
        ("PHONE_NUMBER", "216-292-7207"),
    ],
    "email-enronsent09_02-0046": [
        ("EMAIL_ADDRESS", "rtackett@abacustech.net"),
        ("STREET_ADDRESS", "17611 Loring Lane, Spring, TX 77388-5746"),
        ("PHONE_NUMBER", "(281)651-7106"),
        ("PHONE_NUMBER", "(281)528-8636"),
    ],
    "email-enronsent18_01-0017": [
        ("PHONE_NUMBER", "(202) 828-3933"),
        ("STREET_ADDRESS", "1776 Eye Street, N.W."),
        ("PHONE_NUMBER", "(202) 296-3858"),
        ("STREET_ADDRESS", "Washington, D.C. 20006-3700"),
        ("EMAIL_ADDRESS", "mvanbell@haglerbailly.com"),
    ],
    "email-enronsent18_02-0008": [("EMAIL_ADDRESS", "titman@mail.utexas.edu")],
    "email-enronsent18_02-0014": [
        ("STREET_ADDRESS", "Austin, Texas 78712-1179"),
        ("PHONE_NUMBER", "512-232-2787"),
        ("PHONE_NUMBER", "512-471-5073"),
        ("EMAIL_ADDRESS", "titman@mail.utexas.edu"),
    ],
    "email-enronsent18_02-0042": [("EMAIL_ADDRESS", "duffie@Stanford.EDU")],
    "email-enronsent18_02-0049": [
        ("STREET_ADDRESS", "Stanford CA 94305-5015"),
        ("PHONE_NUMBER", "650 723 1976"),
        ("PHONE_NUMBER", "650 725 7979"),
        ("EMAIL_ADDRESS", "duffie@stanford.edu"),
    ],
    "email-enronsent18_02-0056": [("PHONE_NUMBER", "(713) 853-7408")],
    "email-enronsent18_02-0064": [("EMAIL_ADDRESS", "arfsten@bflassociates.com")],
    "email-enronsent18_02-0073": [("PHONE_NUMBER", "713 965 2158")],
    "email-enronsent21_01-0003": [
        ("PHONE_NUMBER", "212-902-3724"),
        ("PHONE_NUMBER", "212-428-1181"),
        ("EMAIL_ADDRESS", "hilary.ackermann@gs.com"),
    ],
    "email-enronsent21_02-0054": [("EMAIL_ADDRESS", "chris.abel@enron.com"), ("PHONE_NUMBER", "713.853.3102")],
    "email-enronsent29_02-0016": [
        ("EMAIL_ADDRESS", "Stacey.Richardson@enron.com"),
        ("PHONE_NUMBER", "(713) 853-0569"),
        ("PHONE_NUMBER", "(713) 646-2495"),
        ("PHONE_NUMBER", "(713) 710-6084"),
    ],
    "email-enronsent29_02-0026": [
        ("PHONE_NUMBER", "(713) 853-7906"),
        ("PHONE_NUMBER", "(713) 646-2600"),
        ("EMAIL_ADDRESS", "janette.elbertson@enron.com"),
    ],
    "email-enronsent32_01-0050": [
        ("STREET_ADDRESS", "One Sullivan Road Holyoke, MA 01040-2841"),
        ("PHONE_NUMBER", "(413) 535-4000"),
        ("EMAIL_ADDRESS", "mhain@ISO-NE.com"),
    ],
    "email-enronsent32_02-0018": [("PHONE_NUMBER", "713/853-5025")],
    "email-enronsent36_01-0010": [("PHONE_NUMBER", "203-719-8385"), ("PHONE_NUMBER", "203-719-7031")],
    "email-enronsent36_01-0016": [
        ("STREET_ADDRESS", "1400 Smith Street, EB3801a Houston, TX 77002"),
        ("PHONE_NUMBER", "(713) 853-5620"),
        ("PHONE_NUMBER", "(713) 646-3490"),
    ],
    "email-enronsent36_01-0035": [
        ("PHONE_NUMBER", "(212) 909-0951"),
        ("PHONE_NUMBER", "(212) 891-5042"),
        ("EMAIL_ADDRESS", "vijay.suchdev@funb.com"),
    ],
    "newsgroup-groups.google.com_alt.animals.bears_07e0e03c803ffdbd_ENG_20040217_113500-0002": [
        ("PHONE_NUMBER", "732-657-3416")
    ],
    "newsgroup-groups.google.com_alt.animals.bears_07e0e03c803ffdbd_ENG_20040217_113500-0015": [
        ("EMAIL_ADDRESS", "animalsr...@aol.com"),
        ("PHONE_NUMBER", "732-657-3416"),
        ("STREET_ADDRESS", "1027 Jolson Court Manchester, N.J. 08759"),
    ],
    "reviews-002317-0002": [("PHONE_NUMBER", "07551310002"), ("PHONE_NUMBER", "01634 710033")],
}


def _spans_from_tokens(text: str, tokens: list[tuple[str, str]], label_map: dict[str, str]) -> list[dict] | None:
    """Character spans of the labelled entities, aligning each token to ``text`` in order."""
    spans: list[dict] = []
    pos = 0
    current: dict | None = None
    for form, tag in tokens:
        at = text.find(form, pos)
        if at < 0:
            return None
        pos = at + len(form)
        kind = tag[2:] if len(tag) > 2 else ""
        begins = tag.startswith(("B-", "U-", "S-")) or (tag.startswith(("I-", "L-", "E-")) and current is None)
        if kind in label_map and not begins and current is not None and current["_kind"] == kind:
            current["end"] = pos
        elif kind in label_map:
            current = {"start": at, "end": pos, "entity_type": label_map[kind], "_kind": kind}
            spans.append(current)
        else:
            current = None
        if tag.startswith(("L-", "U-", "E-", "S-")):
            current = None
    for s in spans:
        del s["_kind"]
    return spans


def _sentences(path: Path, tag_of: Callable[[list[str]], str]) -> Iterator[tuple[str, str, list[tuple[str, str]]]]:
    """(sentence id, text, [(word, tag)]) per sentence of a CoNLL-style file; ``tag_of`` reads a
    token line's tag from its columns (the two corpora keep it in different columns)."""
    sent_id, text, tokens = "", "", []
    for line in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        if line.startswith("# sent_id = "):
            sent_id = line[12:].strip()
        elif line.startswith("# text = "):
            text = line[9:]
        elif line.strip() and not line.startswith("#"):
            cols = line.split("\t")
            tokens.append((cols[1], tag_of(cols)))
        elif not line.strip() and tokens:
            yield sent_id, text, tokens
            sent_id, text, tokens = "", "", []


def _iob2_tag(cols: list[str]) -> str:
    """UNER's IOB2 files: the tag is the third column."""
    return cols[2]


def _conllu_ne_tag(cols: list[str]) -> str:
    """UD Japanese-GSD's NE files: the tag is ``NE=`` in the MISC column, O where absent."""
    ne = re.search(r"(?:^|\|)NE=([^|]+)", cols[9])
    return ne.group(1) if ne else "O"


def _add_contacts(sent_id: str, text: str, spans: list[dict]) -> list[dict]:
    for kind, value in CONTACT_LABELS.get(sent_id, []):
        found = [m.start() for m in re.finditer(re.escape(value), text)]
        if not found:
            raise ValueError(f"{sent_id}: {value!r} not in the sentence")
        spans += [{"start": at, "end": at + len(value), "entity_type": kind} for at in found]
    return sorted(spans, key=lambda s: s["start"])


def _ewt(path: Path) -> list[tuple[str, str, list[dict]]]:
    out = []
    for sent_id, text, tokens in _sentences(path, _iob2_tag):
        spans = _spans_from_tokens(text, tokens, {"PER": "PERSON"})
        if spans is not None:
            out.append((sent_id, text, spans))
    return out


def _write_ewt_sample(ewt: list[tuple[str, str, list[dict]]], path: Path, source: str) -> None:
    """A seeded sample of the sentences of three words or more, PERSON scored."""
    rng = random.Random(SEED)
    long_enough = [s for s in ewt if len(s[1].split()) >= 3]
    sample = sorted(rng.sample(range(len(long_enough)), EWT_SAMPLE))
    with path.open("w", encoding="utf-8") as f:
        for i in sample:
            sent_id, text, spans = long_enough[i]
            row = {"text": text, "lang": "en", "spans": spans, "labelled": ["PERSON"], "source": source, "id": sent_id}
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def _write_gsd(gsd: Path, path: Path, source: str) -> None:
    """Every sentence, PERSON scored."""
    with path.open("w", encoding="utf-8") as f:
        for sent_id, text, tokens in _sentences(gsd, _conllu_ne_tag):
            spans = _spans_from_tokens(text, tokens, {"PERSON": "PERSON"})
            if spans is None:
                continue
            row = {"text": text, "lang": "ja", "spans": spans, "labelled": ["PERSON"], "source": source, "id": sent_id}
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def main(ewt_test: Path, gsd_test: Path, out: Path, ewt_dev: Path | None = None, gsd_dev: Path | None = None) -> None:
    ewt = _ewt(ewt_test)
    source = "UNER English-EWT test (CC BY-SA 4.0)"
    _write_ewt_sample(ewt, out / "uner_en_ewt_test.jsonl", source)
    contact_types = ["PERSON", "PHONE_NUMBER", "EMAIL_ADDRESS", "STREET_ADDRESS"]
    seen: set[str] = set()
    with (out / "uner_en_ewt_contacts.jsonl").open("w", encoding="utf-8") as f:
        for sent_id, text, spans in ewt:
            if len(re.findall(r"\d", text)) < 7 or text in seen:
                continue
            seen.add(text)
            row = {
                "text": text,
                "lang": "en",
                "spans": _add_contacts(sent_id, text, list(spans)),
                "labelled": contact_types,
                "source": source + "; phones, e-mails, addresses labelled by hand for this project",
                "id": sent_id,
            }
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    _write_gsd(gsd_test, out / "ud_ja_gsd_ne_test.jsonl", "UD Japanese-GSD test, Megagon Labs NE labels (CC BY-SA 4.0)")
    # the dev splits: public text to tune the name rules on, so that the test splits stay a check
    if ewt_dev is not None:
        _write_ewt_sample(_ewt(ewt_dev), out / "uner_en_ewt_dev.jsonl", "UNER English-EWT dev (CC BY-SA 4.0)")
    if gsd_dev is not None:
        source = "UD Japanese-GSD dev, Megagon Labs NE labels (CC BY-SA 4.0)"
        _write_gsd(gsd_dev, out / "ud_ja_gsd_ne_dev.jsonl", source)


if __name__ == "__main__":
    main(*(Path(a) for a in sys.argv[1:6]))  # type: ignore[arg-type]
