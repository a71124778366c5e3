"""Builds guardrails/data/pii/names_en.tsv, the English name lexicon the PII detector reads.

Sources (both works of the US government, in the public domain; see PII_SOURCES.md):

- given names: the Social Security Administration's national baby-name files (``yobYYYY.txt``,
  1880-2020, names given to five or more babies a year), as copied in hackerb9/ssa-baby-names;
  a name is kept when some year gave it to at least ``MIN_BABIES`` babies;
- surnames: the Census Bureau's 2010 surnames, top 1,000 (``Names_2010Census.csv``).

Each line ``name<TAB>kind<TAB>count<TAB>word``: kind ``given`` or ``surname``; count the largest
number of babies in one year (given) or of people (surname); word ``1`` when the name written in
lower case is also an English word in SCOWL's small american-english list (Debian ``wamerican-small``,
``/usr/share/dict/american-english-small``): Will, May, Grace, Bush and Hall need a cue to be names.

    python scripts/make_pii_lexicons.py SSA_DIR CENSUS_CSV /usr/share/dict/american-english-small \\
        > guardrails/data/pii/names_en.tsv
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

MIN_BABIES = 100


def main(ssa_dir: Path, census_csv: Path, words_file: Path) -> None:
    words = {w for w in words_file.read_text(encoding="utf-8").split() if w.islower()}
    given: dict[str, int] = {}
    for path in sorted(ssa_dir.glob("yob*.txt")):
        for line in path.read_text(encoding="utf-8").splitlines():
            name, _sex, count = line.split(",")
            given[name] = max(given.get(name, 0), int(count))
    out = sys.stdout
    out.write("# name\tkind\tcount\tword (see scripts/make_pii_lexicons.py and guardrails/data/PII_SOURCES.md)\n")
    for name, count in sorted(given.items(), key=lambda kv: (-kv[1], kv[0])):
        if count >= MIN_BABIES:
            out.write(f"{name}\tgiven\t{count}\t{int(name.lower() in words)}\n")
    with census_csv.open(encoding="utf-8") as f:
        for row in csv.DictReader(f):
            name = row["name"].capitalize()
            if name.isalpha():
                out.write(f"{name}\tsurname\t{row['count']}\t{int(name.lower() in words)}\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))
