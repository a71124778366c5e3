"""Builds the street-address samples under guardrails/data/pii/ from usaddress's labelled addresses
(datamade/usaddress, MIT; guardrails/data/PII_SOURCES.md says which commit and files).

usaddress tags every token of a real US address string (``AddressNumber``, ``StreetName``,
``OccupancyIdentifier``, ``USPSBoxID``, ``PlaceName``, ``StateName``, ``ZipCode``, ``Recipient``
...). A line is kept when it is street-level (a house number or a PO box); the gold
STREET_ADDRESS span runs from its first address token to its last, a recipient, building or
landmark name outside it (the address as the project labels it: street, unit, PO box, city,
state and ZIP). Lower case, capitals, "#" units and missing commas are kept as the corpus has them.

    python scripts/make_pii_addresses.py USADDRESS_REPO guardrails/data/pii/

``training/labeled.xml`` (addresses from many sources: lobbyist filings, business listings,
hand-typed forms) is split in two by a hash of the text: the tune half (``usaddress_labeled_tune.jsonl``:
rules may be fitted on it) and the check half (``usaddress_labeled_check.jsonl``);
``measure_performance/test_data/us50_test_tagged.xml`` (businesses in the 50 states, written the way a
listing writes them) is a second check (``usaddress_us50_check.jsonl``). An address that appears twice
is kept once, in the first file that has it.
"""

from __future__ import annotations

import json
import logging
import sys
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

log = logging.getLogger(__name__)

#: tokens that are not part of the address as redacted: who it is for, a building or landmark name
OUTSIDE = {"Recipient", "BuildingName", "LandmarkName", "NotAddress"}
#: a line is street-level when it holds one of these
STREET_LEVEL = {"AddressNumber", "USPSBoxID"}
SOURCE = "usaddress (datamade/usaddress, MIT) labelled US addresses"
LABELED = "training/labeled.xml"
US50 = "measure_performance/test_data/us50_test_tagged.xml"


def address_lines(xml_path: Path) -> list[tuple[str, list[tuple[str, str]]]]:
    """Each AddressString as its text and its (tag, token) pairs, in order."""
    root = ET.parse(xml_path).getroot()
    out = []
    for node in root.iter("AddressString"):
        tokens = [(child.tag, (child.text or "").strip()) for child in node]
        tokens = [(tag, tok) for tag, tok in tokens if tok]
        if tokens:
            out.append((" ".join(tok for _, tok in tokens), tokens))
    return out


def gold(text: str, tokens: list[tuple[str, str]]) -> dict[str, int | str] | None:
    """The STREET_ADDRESS span of one line, or None when the line is not street-level."""
    if not {tag for tag, _ in tokens} & STREET_LEVEL:
        return None
    starts, pos = [], 0
    for _, tok in tokens:
        starts.append(pos)
        pos += len(tok) + 1
    inside = [i for i, (tag, _) in enumerate(tokens) if tag not in OUTSIDE]
    first, last = inside[0], inside[-1]
    start, end = starts[first], starts[last] + len(tokens[last][1])
    while end > start and text[end - 1] in ",;.":
        end -= 1
    return {"start": start, "end": end, "entity_type": "STREET_ADDRESS"}


def half(text: str) -> str:
    """``tune`` or ``check``, by a hash of the text (stable across runs and machines)."""
    return "check" if zlib.crc32(text.casefold().encode()) % 2 else "tune"


def main(repo: Path, out: Path) -> None:
    seen: set[str] = set()
    files: dict[str, list[dict[str, object]]] = {
        "usaddress_labeled_tune.jsonl": [],
        "usaddress_labeled_check.jsonl": [],
        "usaddress_us50_check.jsonl": [],
    }
    for rel in (LABELED, US50):
        for i, (text, tokens) in enumerate(address_lines(repo / rel)):
            span = gold(text, tokens)
            key = text.casefold()
            if span is None or key in seen:
                continue
            seen.add(key)
            name = f"usaddress_labeled_{half(text)}.jsonl" if rel == LABELED else "usaddress_us50_check.jsonl"
            files[name].append(
                {
                    "text": text,
                    "lang": "en",
                    "spans": [span],
                    "labelled": ["STREET_ADDRESS"],
                    "source": f"{SOURCE}, {rel}",
                    "id": f"{Path(rel).stem}-{i:04d}",
                }
            )
    for name, rows in files.items():
        (out / name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        log.info("%s: %d street-level addresses", name, len(rows))


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    main(Path(sys.argv[1]), Path(sys.argv[2]))
