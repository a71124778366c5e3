"""Presidio PII detection: every type in English and Japanese, look-alikes that are not PII,
offsets into full-width text, redaction, canonical forms, and no network access."""

from __future__ import annotations

import itertools
import socket
import threading
from typing import Any

import pytest

from guardrails.checksums import my_number_ok
from guardrails.pii import (
    REDACTED_ENTITIES,
    PIIEntity,
    canonical,
    detect_pii,
    fold,
    redact,
)
from guardrails.pii.detection import may_hold_personal_data
from guardrails.pii.engine import _offline_tld_extractor


def _valid_my_number(body: str) -> str:
    """``body`` (11 digits) with the check digit that makes it a valid My Number."""
    return next(body + str(d) for d in range(10) if my_number_ok(body + str(d)))


MY_NUMBER = _valid_my_number("12345678901")
BAD_MY_NUMBER = MY_NUMBER[:-1] + str((int(MY_NUMBER[-1]) + 1) % 10)

CASES = [
    # English
    ("en", "Please call Sarah Johnson tomorrow about the lease.", "PERSON", "Sarah Johnson"),
    ("en", "What did Dr. Maria Garcia say about the results?", "PERSON", "Maria Garcia"),
    (
        "en",
        "Ship it to 42 Oak Street, Springfield, IL 62704 please.",
        "STREET_ADDRESS",
        "42 Oak Street, Springfield, IL 62704",
    ),
    ("en", "Her office is 221B Baker Street, London NW1 6XE.", "STREET_ADDRESS", "221B Baker Street, London NW1 6XE"),
    ("en", "Mail me at taro.yamada+rag@example.co.jp please", "EMAIL_ADDRESS", "taro.yamada+rag@example.co.jp"),
    ("en", "My number is (212) 555-0199, call after six.", "PHONE_NUMBER", "(212) 555-0199"),
    ("en", "Reach the London desk on +44 20 7946 0958.", "PHONE_NUMBER", "+44 20 7946 0958"),
    ("en", "Charge it to 4111-1111-1111-1111 again.", "CREDIT_CARD", "4111-1111-1111-1111"),
    ("en", "Wire it to GB82 WEST 1234 5698 7654 32 today.", "IBAN_CODE", "GB82 WEST 1234 5698 7654 32"),
    ("en", "The login came from 203.0.113.45 at night.", "IP_ADDRESS", "203.0.113.45"),
    ("en", "The login came from 2001:db8::8a2e:370:7334 at night.", "IP_ADDRESS", "2001:db8::8a2e:370:7334"),
    ("en", "Is SSN 536-22-1234 valid for the form?", "US_SSN", "536-22-1234"),
    # Japanese
    ("ja", "山田太郎さんに明日連絡してください。", "PERSON", "山田太郎"),
    ("ja", "担当の佐藤花子から折り返します。", "PERSON", "佐藤花子"),
    ("ja", "住所は東京都千代田区丸の内1丁目9番1号です。", "STREET_ADDRESS", "東京都千代田区丸の内1丁目9番1号"),
    ("ja", "送り先は大阪府大阪市北区梅田3-1-3 です", "STREET_ADDRESS", "大阪府大阪市北区梅田3-1-3"),
    ("ja", "郵便番号は〒100-0005です", "JP_POSTAL_CODE", "100-0005"),
    ("ja", "携帯は090-1234-5678です", "PHONE_NUMBER", "090-1234-5678"),
    ("ja", "代表番号 03-1234-5678 にどうぞ", "PHONE_NUMBER", "03-1234-5678"),
    ("ja", "海外からは+81 90 1234 5678へ", "PHONE_NUMBER", "+81 90 1234 5678"),
    ("ja", "メールはhanako@example.jpまで", "EMAIL_ADDRESS", "hanako@example.jp"),
    ("ja", "カード番号4111111111111111で払った", "CREDIT_CARD", "4111111111111111"),
    ("ja", f"マイナンバーは{MY_NUMBER}です", "JP_MY_NUMBER", MY_NUMBER),
    ("ja", "サーバーのIPアドレスは192.168.0.12です。", "IP_ADDRESS", "192.168.0.12"),
    ("ja", "振込先 DE89 3704 0044 0532 0130 00 に送金", "IBAN_CODE", "DE89 3704 0044 0532 0130 00"),
]


@pytest.mark.parametrize(("lang", "text", "kind", "value"), CASES)
def test_each_type_is_found_with_offsets_into_the_text(lang: str, text: str, kind: str, value: str) -> None:
    found = detect_pii(text, lang)
    assert (kind, value) in [(e.entity_type, text[e.start : e.end]) for e in found], found
    assert all(e.text == text[e.start : e.end] for e in found)


@pytest.mark.parametrize(("lang", "text", "kind", "value"), CASES[:3] + CASES[12:15])
def test_language_is_detected_when_not_given(lang: str, text: str, kind: str, value: str) -> None:
    assert (kind, value) in [(e.entity_type, e.text) for e in detect_pii(text)]


NEGATIVES = [
    ("en", "Order #48151623 shipped on 2024-03-05 at 12:30."),
    ("en", "Upgrade from v2.3.1 to version 10.0.0.1 fixed the crash."),
    ("en", "The build 1.9.2.81 was released yesterday."),
    ("en", "The job started at 2024-03-05T12:30:00Z and took 1554610083 ms."),
    ("en", "Test card 4111 1111 1111 1112 should fail the Luhn check."),
    ("en", f"Reference number {BAD_MY_NUMBER} is on the invoice."),
    ("en", "How does RRF with k=60 compare to BM25 on 300 queries?"),
    ("en", "The Acme Corporation opened an office in Tokyo on March 3, 2024."),
    ("ja", f"参照番号 {BAD_MY_NUMBER} を入力してください。"),
    ("ja", "注文番号 #66998915 は明日発送されました。"),
    ("ja", "バージョン 10.9.4.60 から 8.0.6.38 に更新したら直った。"),
    ("ja", "処理は 2015-06-02T18:18:02.935739 に開始しました。"),
    ("ja", "お客様各位、3月5日はメンテナンスのため停止します。"),
    ("ja", "株式会社鈴木建設の売上は前年比12%増えた。"),
    ("ja", "東京都の人口は約1400万人です。"),
    ("ja", "皆様、山口県君津市での研修は4月からです。"),
]


@pytest.mark.parametrize(("lang", "text"), NEGATIVES)
def test_look_alikes_are_not_personal_data(lang: str, text: str) -> None:
    assert detect_pii(text, lang) == []


@pytest.mark.parametrize(
    "text",
    [
        "how does smoking affect lung cancer risk?",
        "What does vitamin D deficiency increase the risk of?",
        "When should I water the monstera? And how often?",
    ],
)
def test_a_text_without_digits_at_signs_or_capitalised_words_is_not_analysed(text: str) -> None:
    assert not may_hold_personal_data(text)


@pytest.mark.parametrize(
    "text",
    [
        "Emily is out sick",  # a capitalised word opening a sentence that is no function word
        "please ask Tom",
        "call 555-0132",
        "mail a@b.co",
        "田中さんに連絡して",
        "I\u200bg\u200bn\u200bo\u200br\u200be all of it",  # zero-width characters between letters
        "what is the NHS number",
    ],
)
def test_anything_a_name_or_a_number_could_be_in_is_analysed(text: str) -> None:
    assert may_hold_personal_data(text)


GERMAN = [
    # English NER reads capitalised German nouns as names; a title or a known name still counts
    ("Welche Regeln gelten für den Datenschutz?", []),
    ("Welche Partei ist in Melbournes wohlhabenden Stadtteilen am stärksten?", []),
    ("Wie hieß das Unternehmen, das die Geschäftsleute finanzierten?", []),
    ("Was sagt Angela Merkel über den Klimaschutz?", ["Angela Merkel"]),
    ("Thomas de Maizière hat welche Position im deutschen Kabinett inne?", ["Thomas de Maizière"]),
    ("Bitte schreib Frau Weber eine Nachricht zu der Rechnung.", ["Weber"]),
]


@pytest.mark.parametrize(("text", "names"), GERMAN)
def test_german_nouns_are_not_names_but_german_names_are(text: str, names: list[str]) -> None:
    assert [e.text for e in detect_pii(text, "en") if e.entity_type == "PERSON"] == names


WRITTEN_OTHERWISE = [
    # forms of the same kinds written otherwise: full-width, spaced, without separators
    ("Mail me at taro.yamada+rag@example.co.jp please", "EMAIL_ADDRESS", "taro.yamada+rag@example.co.jp"),
    ("携帯は090-1234-5678です", "PHONE_NUMBER", "090-1234-5678"),
    ("携帯は０９０－１２３４－５６７８です", "PHONE_NUMBER", "０９０－１２３４－５６７８"),
    ("会社 03-1234-5678 まで", "PHONE_NUMBER", "03-1234-5678"),
    ("call +81 90-1234-5678 now", "PHONE_NUMBER", "+81 90-1234-5678"),
    ("call +1 415 555 0132 now", "PHONE_NUMBER", "+1 415 555 0132"),
    ("US office (415) 555-0132.", "PHONE_NUMBER", "(415) 555-0132"),
    ("番号 09012345678 に", "PHONE_NUMBER", "09012345678"),
    ("card 4111 1111 1111 1111 exp 12/29", "CREDIT_CARD", "4111 1111 1111 1111"),
    ("card 4111-1111-1111-1111", "CREDIT_CARD", "4111-1111-1111-1111"),
    ("amex 378282246310005", "CREDIT_CARD", "378282246310005"),
    ("マイナンバーは123456789011です", "JP_MY_NUMBER", "123456789011"),
    ("マイナンバー 1234 5678 9011", "JP_MY_NUMBER", "1234 5678 9011"),
    ("server at 192.168.10.254 is down", "IP_ADDRESS", "192.168.10.254"),
    ("住所は〒100-0001 東京都千代田区", "JP_POSTAL_CODE", "100-0001"),  # the span is the code, as above
    ("郵便番号は 100-0001", "JP_POSTAL_CODE", "100-0001"),  # named as one, without 〒
]


@pytest.mark.parametrize(("text", "kind", "value"), WRITTEN_OTHERWISE)
def test_each_type_is_found_however_it_is_written(text: str, kind: str, value: str) -> None:
    assert (kind, value) in [(e.entity_type, text[e.start : e.end]) for e in detect_pii(text)]


LOOK_ALIKES = [
    "card 4111 1111 1111 1112",  # fails Luhn
    "マイナンバーは123456789012です",  # wrong check digit
    "order 2024-01-15 at 10:30",
    "version 1.2.3 and 3.14159",
    "999.1.1.1 is not an address",
    "see arXiv 2310.12345 and doi 10.1000/182",
    "price ¥12,800",
    "sha 9f86d081884c7d659a2feaa0c55ad015",
]


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_numbers_that_look_like_personal_data_are_not(text: str) -> None:
    assert detect_pii(text) == []


def test_full_width_text_keeps_original_offsets() -> None:
    text = "連絡先：ＴＥＬ ０９０－１２３４－５６７８、メール ｔａｒｏ＠ｅｘａｍｐｌｅ．ｃｏｍ（山田）"
    found = {e.entity_type: text[e.start : e.end] for e in detect_pii(text, "ja")}
    assert found["PHONE_NUMBER"] == "０９０－１２３４－５６７８"
    assert found["EMAIL_ADDRESS"] == "ｔａｒｏ＠ｅｘａｍｐｌｅ．ｃｏｍ"
    assert len(fold(text)) == len(text)
    assert fold("メール０９０ー１２３４") == "メール090-1234"  # ー is a dash between digits only


def test_results_are_sorted_and_never_overlap() -> None:
    text = "John Smith (john.smith@example.com, +1 212 555 0199) lives at 10 Downing Street, London SW1A 2AA."
    found = detect_pii(text, "en")
    assert [e.start for e in found] == sorted(e.start for e in found)
    assert all(a.end <= b.start for a, b in itertools.pairwise(found))
    assert {e.entity_type for e in found} == {"PERSON", "EMAIL_ADDRESS", "PHONE_NUMBER", "STREET_ADDRESS"}


def test_mixed_japanese_and_english_text_finds_both_names() -> None:
    text = "田中さんにJohn Smithの件を伝えて"
    names = [e.text for e in detect_pii(text) if e.entity_type == "PERSON"]
    assert names == ["田中", "John Smith"]


def test_dates_organisations_and_places_are_detected_only_on_request() -> None:
    text = "Meet Anna Berg at Acme Corp in Paris on March 3, 2024."
    assert {e.entity_type for e in detect_pii(text, "en")} == {"PERSON"}
    asked = {e.entity_type for e in detect_pii(text, "en", entities=["DATE_TIME", "ORGANIZATION", "LOCATION"])}
    assert asked == {"DATE_TIME", "ORGANIZATION", "LOCATION"}
    assert "DATE_TIME" not in REDACTED_ENTITIES and "PERSON" in REDACTED_ENTITIES


def test_redact_uses_placeholders_and_kind_mirrors_entity_type() -> None:
    text = "山田太郎さんの電話は090-1234-5678です"
    found = detect_pii(text, "ja")
    assert redact(text, found) == "<PERSON>さんの電話は<PHONE_NUMBER>です"
    assert all(e.kind == e.entity_type for e in found)
    assert redact("abc", []) == "abc"
    entity = PIIEntity(start=0, end=3, entity_type="PERSON", score=0.9, text="abc")
    assert PIIEntity.model_validate(entity.model_dump()) == entity


@pytest.mark.parametrize(
    ("kind", "a", "b"),
    [
        ("PHONE_NUMBER", "+81 3-1234-5678", "03-1234-5678"),
        ("PHONE_NUMBER", "+1 (212) 555-0199", "212.555.0199"),
        ("PHONE_NUMBER", "０９０－１２３４－５６７８", "09012345678"),
        ("EMAIL_ADDRESS", "HANAKO@Example.org", "hanako@example.org"),
        ("CREDIT_CARD", "4111 1111 1111 1111", "4111-1111-1111-1111"),
        ("IBAN_CODE", "gb82 west 1234 5698 7654 32", "GB82WEST12345698765432"),
        ("IP_ADDRESS", "2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"),
        ("PERSON", "山田 太郎", "山田太郎"),
        ("PERSON", "Dr. Jane Doe", "jane doe"),
    ],
)
def test_canonical_forms_match_across_formatting(kind: str, a: str, b: str) -> None:
    assert canonical(kind, a) == canonical(kind, b)


def test_canonical_keeps_different_numbers_apart() -> None:
    assert canonical("PHONE_NUMBER", "03-1234-5678") != canonical("PHONE_NUMBER", "03-1234-5679")


def test_email_validation_never_touches_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    extractor = _offline_tld_extractor()  # a fresh one: the suffix list must come from the package
    assert extractor("mail.example.co.jp").suffix == "co.jp"
    found = detect_pii("write to someone@example.co.uk", "en")
    assert [e.entity_type for e in found] == ["EMAIL_ADDRESS"]


def test_concurrent_calls_share_one_engine() -> None:
    texts = ["山田太郎さんの電話は090-1234-5678です", "Call John Smith at (212) 555-0199."] * 4
    results: list[list[PIIEntity]] = [[] for _ in texts]

    def run(i: int) -> None:
        results[i] = detect_pii(texts[i])

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(texts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r == results[i % 2] for i, r in enumerate(results))
    assert {e.entity_type for e in results[0]} == {"PERSON", "PHONE_NUMBER"}


@pytest.mark.parametrize(
    "text",
    [
        "A strong bias in CRISPR spacer acquisition has been observed.",
        "Deltex has no known interactions with eIF3f.",
        "Ectopic expression of Sall4, Nanog, Esrrb, and Lin28 generates stem cells.",
        "Alirocumab treatment reduces apo(a) fractional clearance rate.",
        "BLM gene encodes RecQ-class DNA helicase.",
        "What is RAG?",
    ],
)
def test_capitalised_science_words_are_not_people(text: str) -> None:
    assert [e for e in detect_pii(text, "en") if e.entity_type == "PERSON"] == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Can you ask Sarah about the budget?", "Sarah"),
        ("Dear Tom, the invoice is attached.", "Tom"),
        ("Add John Barron (john.barron@example.org) to the channel.", "John Barron"),
    ],
)
def test_a_first_name_with_a_person_cue_is_still_found(text: str, name: str) -> None:
    assert name in [e.text for e in detect_pii(text, "en") if e.entity_type == "PERSON"]


def test_a_verb_is_not_a_japanese_name() -> None:
    found = detect_pii("マーラーが診察を受けた医師の名前は？", "ja")
    assert "受けた" not in [e.text for e in found]


def test_presidio_loads_without_torch_and_only_the_spacy_pipelines_a_text_needs() -> None:
    # a fresh interpreter: other tests have imported torch and transformers already
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "from guardrails.pii import detect_pii\n"
        "found = {e.entity_type for e in detect_pii('山田太郎さんの電話は090-1234-5678です', language='ja')}\n"
        "print(sorted(found), 'torch' in sys.modules or 'transformers' in sys.modules)\n"
        "from transformers import pipeline\n"
        "import torch\n"
        "print(callable(pipeline) and torch.ones(2).sum().item() == 2)\n"
        "from guardrails.pii import loaded_languages\n"
        "print(loaded_languages())\n"
        "found = {e.text for e in detect_pii('私の同僚の John Smith に連絡して', language='ja')}\n"
        "print(sorted(found), loaded_languages())\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, check=True)
    lines = out.stdout.splitlines()
    found, pipelines = lines[0].rsplit(" ", 1)
    assert "PERSON" in found and "PHONE_NUMBER" in found
    assert pipelines == "False"  # 2 s of every one-shot question, for engines not used
    assert lines[1] == "True"  # imported later, both load as usual
    # a Japanese text without Latin names never waits for the English pipeline, and one with them does
    assert lines[2] == "['ja']"
    assert lines[3] == "['John Smith'] ['en', 'ja']"


def test_only_the_thread_importing_presidio_is_told_torch_is_missing() -> None:
    # while one thread imports Presidio, another (a server ingesting) must get torch as usual
    from guardrails.pii.engine import _WITHOUT_TORCH

    seen: list[object] = []
    with _WITHOUT_TORCH.in_this_thread():
        with pytest.raises(ModuleNotFoundError):
            _WITHOUT_TORCH.find_spec("torch.nn")
        other = threading.Thread(target=lambda: seen.append(_WITHOUT_TORCH.find_spec("torch.nn")))
        other.start()
        other.join()
    assert seen == [None]
    assert _WITHOUT_TORCH.find_spec("torch") is None and _WITHOUT_TORCH.find_spec("torchvision") is None


NATIONAL_PHONES = [
    # national formats without a country code (issue 35): one per region the matcher reads
    ("Call me on 555-0134 after six.", "555-0134"),
    ("London office 020 7946 0321 today.", "020 7946 0321"),
    ("The Berlin number is 030 12345678.", "030 12345678"),
    ("Paris: 01 42 68 53 00, ask for Anne.", "01 42 68 53 00"),
    ("Sydney office (02) 9374 4000.", "(02) 9374 4000"),
    ("Call 98765 43210 for the warehouse.", "98765 43210"),
    ("Madrid: 912 345 678 until noon.", "912 345 678"),
    ("Rome office 06 6982 1234.", "06 6982 1234"),
    ("Amsterdam 020 123 4567.", "020 123 4567"),
    ("São Paulo: (11) 91234-5678.", "(11) 91234-5678"),
    ("The Shanghai contact gave 138 0013 8000.", "138 0013 8000"),
    ("Seoul mobile 010-1234-5678.", "010-1234-5678"),
    ("My number is 555 0134, after five.", "555 0134"),
]


@pytest.mark.parametrize(("text", "value"), NATIONAL_PHONES)
def test_local_phone_numbers_of_many_regions_are_found(text: str, value: str) -> None:
    assert ("PHONE_NUMBER", value) in [(e.entity_type, e.text) for e in detect_pii(text, "en")]


@pytest.mark.parametrize(
    "text",
    [
        "Order 2024-0012-3345 shipped yesterday.",
        "ISBN 978-3-16-148410-0 is the second edition.",
        "The city had 3 645 000 inhabitants in 2021.",
        "Coordinates 35.6895, 139.6917 mark the station.",
        "Tracking number 1Z 999 AA1 01 2345 6784 for the parcel.",
        "Austin, Texas 78712-1179 is the campus.",
    ],
)
def test_numbers_that_phone_metadata_accepts_are_not_phones_in_context(text: str) -> None:
    assert [e for e in detect_pii(text, "en") if e.entity_type == "PHONE_NUMBER"] == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("My name is Priya and I can't log in.", "Priya"),
        ("Hi, I'm Tomasz, the new intern.", "Tomasz"),
        ("Everyone calls me Bongani.", "Bongani"),
        ("My husband Rajesh will sign for the package.", "Rajesh"),
        ('"We are done," says Marguerite.', "Marguerite"),
        ("Kwame said the numbers look right.", "Kwame"),
        ("Dear Siobhan, thanks for the report.", "Siobhan"),
        ("Emily is out sick today.", "Emily"),
        ("I gave Dr. Rohatgi 2 stars.", "Rohatgi"),
        ("Regards,\nNiamh", "Niamh"),
        ("Megan, please see the attached guaranty.", "Megan"),  # addressed: a name before a comma
        # a verb of saying or a relative "who" vouches for a name no list knows, a title before it too
        ("Listing her goals, Oyelaran told the committee she would stay.", "Oyelaran"),
        ("We welcome Darius Okafor, who joins the sales team.", "Darius Okafor"),
        ("Party Leader Hamid Qureshi has resigned.", "Hamid Qureshi"),
        ("In the interview, PM Okonjo answered every question.", "Okonjo"),
        ("Both Priya and Megan are on leave this week.", "Megan"),  # a pair of given names
        ("Please forward this to Heath before Friday.", "Heath"),
        ("Just so you know, Matt has confirmed the booking.", "Matt"),
    ],
)
def test_a_given_name_is_found_the_way_people_write_it(text: str, name: str) -> None:
    assert name in [e.text for e in detect_pii(text, "en") if e.entity_type == "PERSON"]


@pytest.mark.parametrize(
    "text",
    [
        "Good Morning",
        "Please update the attached Legal Risk Report.",
        "I have a Kodak Camera with a zoom lens.",
        "Posted by Hidden Nook to Hidden Nook at 2/15/2005.",
        "Pay the supplier Phillips, Ortiz and Reid by card.",
        "Huntington's disease is caused by CAG repeats.",
        "Broadly Neutralizing Antibodies have no affinity for phospholipids.",
        "Mark the items you want to keep.",
        "Dear Customer Service, my order is late.",
    ],
)
def test_title_case_phrases_firms_and_eponyms_are_not_people(text: str) -> None:
    assert [e.text for e in detect_pii(text, "en") if e.entity_type == "PERSON"] == []


ADDRESSES = [
    "1427 Maple Avenue\nApt. 3B\nColumbus, OH 43215",
    "PSC 1234, Box 5678\nAPO AE 09001",
    "Unit 2050 Box 4190\nDPO AP 96522",
    "PO Box 4417\nBoise, ID 83711",
    "Hauptstraße 12\n10115 Berlin",
    "12 rue de la Paix\n75002 Paris",
    "Calle de Alcalá 48, 28014 Madrid",
    "Keizersgracht 123\n1015 CJ Amsterdam",
    "Drottninggatan 53, 111 21 Stockholm",
    "350 Bay Street, Suite 700\nToronto, ON M5H 2S6",
    "14 Birchwood Close\nHarrogate\nHG2 8QT",
    "Studio 4\nMill lane\nHebden Bridge\nHX7 8AD",
    "USS Nimitz\nFPO AP 96620-2820",
    # written the way forms and listings write US addresses: capitals, lower case, no street suffix
    "2701 W 18TH ST, Chicago, IL 60608",
    "440 S. LaSalle, Chicago, IL 60605",
    "88175 US Highway 278, Altoona, AL 35952",
    "1201 F ST NW STE 675 WASHINGTON DC 20004",
    "340 loyola dr apt b elgin il 60123-4610",
    "po box 419267 kansas city mo 64141",
    "rr 4, box 164",
]


@pytest.mark.parametrize("address", ADDRESSES)
def test_a_postal_address_is_one_span_across_its_lines(address: str) -> None:
    text = f"Please send it to:\n{address}\nThanks!"
    found = [e.text for e in detect_pii(text, "en") if e.entity_type == "STREET_ADDRESS"]
    assert found == [address]


@pytest.mark.parametrize(
    "text",
    [
        "We drove 300 miles down Route 66 last summer.",
        "In 2020 Paris had 2 million residents.",
        "Suite 2 of the benchmark ran for 40 minutes.",
        "Unit tests cover 85% of the code.",
        "I suggest Two Door Cinema Club and Wallis Bird.",
        # an English word ending in -ring is no German street (Kaiserring 12 is)
        "RESULTS During 24 years of follow-up, 310 events occurred.",
        "Spring 1932 | 1",
        "I ran 5 miles down the road to the station.",
        "Payment date   21 Feb 2022 UTC     Previous balance",
    ],
)
def test_numbers_before_capitalised_words_are_not_addresses(text: str) -> None:
    assert [e for e in detect_pii(text, "en") if e.entity_type == "STREET_ADDRESS"] == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("はじめまして、田中と申します。", "田中"),
        ("私は佐々木です。よろしくお願いします。", "佐々木"),
        ("健太君は明日来ますか？", "健太"),
        ("さくらちゃんの誕生日は来週です。", "さくら"),
        ("林先生の講義は休講です。", "林"),
        ("息子の大翔が熱を出しました。", "大翔"),
        ("アンナ・シュミット氏が来日した。", "アンナ・シュミット"),
        ("1509年、ヘンリー8世が即位した。", "ヘンリー8世"),  # a ruler's ordinal, digits and all
        ("カール十二世の遠征", "カール十二世"),
        # a foreign name Sudachi's dictionary lacks, which GiNZA calls a person
        ("ポールセンは会議で新しい計画を発表した。", "ポールセン"),
    ],
)
def test_japanese_names_with_cues(text: str, name: str) -> None:
    assert name in [e.text for e in detect_pii(text, "ja") if e.entity_type == "PERSON"]


@pytest.mark.parametrize(
    "text",
    [
        "国内線仕様の「400D型」が引退した。",
        "2003年と同様にメキシコと対戦。",
        "感じのいいスタッフさんなので安心して通えます。",
        "福島の7割が「以前住んでいた場所」と答えた。",
        "キリスト教世界でも聖書に手を置く。",
        # loanwords the dictionary holds, which GiNZA sometimes calls people
        "バトルの後でカステラを食べた。",
        "昨日のゴールキーパーは素晴らしかった。",
    ],
)
def test_japanese_words_before_sama_places_and_job_words_are_not_people(text: str) -> None:
    assert [e.text for e in detect_pii(text, "ja") if e.entity_type == "PERSON"] == []


def test_a_name_ending_in_s_is_not_read_as_a_plural_word() -> None:
    from guardrails.pii.names_en import is_word

    # "Abbas" is not "abb" + "as"; plurals and verb endings still reach their dictionary word
    assert not is_word("Abbas")
    assert all(is_word(w) for w in ("Reports", "boxes", "studies", "Neutralizing"))
