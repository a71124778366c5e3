# ruff: noqa: E501  (template sentences are data; they stay on one line each)
"""Generates guardrails/data/pii_dev.jsonl: template sentences (written for this project) filled
with Faker values and hand-written formats. Seeded: reruns on one day give the same file (Faker's
relative timestamps move with the date, nothing else does).

    .venv/bin/python scripts/make_pii_dev.py > guardrails/data/pii_dev.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys

from faker import Faker

from guardrails.checksums import luhn_ok

SEED = 15
rng = random.Random(SEED)
Faker.seed(SEED)
fen = Faker(["en_US", "en_GB"])
fus = Faker("en_US")
fgb = Faker("en_GB")
fja = Faker("ja_JP")
fint = Faker(["es_ES", "fr_FR", "de_DE", "it_IT", "nl_NL", "pt_BR", "en_IN", "pl_PL"])
fiban = {loc: Faker(loc) for loc in ("de_DE", "fr_FR", "en_GB", "es_ES", "it_IT", "nl_NL")}


def luhn_digit(body: str) -> str:
    return next(d for d in "0123456789" if luhn_ok(body + d))


def my_number(valid: bool = True) -> str:
    body = [rng.randint(0, 9) for _ in range(11)]
    total = sum(body[11 - n] * (n + 1 if n <= 6 else n - 6) for n in range(1, 12))
    rest = total % 11
    check = 0 if rest <= 1 else 11 - rest
    if not valid:
        check = (check + rng.randint(1, 9)) % 10
    return "".join(map(str, body)) + str(check)


def fmt_my_number(d: str) -> str:
    return rng.choice([d, f"{d[:4]} {d[4:8]} {d[8:]}", f"{d[:4]}-{d[4:8]}-{d[8:]}"])


def card() -> str:
    kind = rng.choice(["visa16", "mastercard", "amex", "discover", "jcb16", "visa16"])
    n = fus.credit_card_number(card_type=kind)
    style = rng.random()
    if kind == "amex":
        return n if style < 0.3 else f"{n[:4]} {n[4:10]} {n[10:]}"
    if style < 0.45:
        return " ".join(n[i : i + 4] for i in range(0, len(n), 4))
    if style < 0.75:
        return "-".join(n[i : i + 4] for i in range(0, len(n), 4))
    return n


def bad_card() -> str:
    n = fus.credit_card_number(card_type="visa16")
    last = str((int(n[-1]) + rng.randint(1, 9)) % 10)
    n = n[:-1] + last
    return " ".join(n[i : i + 4] for i in range(0, 16, 4))


def iban() -> str:
    f = fiban[rng.choice(list(fiban))]
    v = f.iban()
    return " ".join(v[i : i + 4] for i in range(0, len(v), 4)) if rng.random() < 0.55 else v


def ipv4() -> str:
    if rng.random() < 0.35:
        return rng.choice(["10.0.%d.%d", "192.168.%d.%d", "172.16.%d.%d"]) % (rng.randint(0, 254), rng.randint(1, 254))
    return fus.ipv4_public()


def ip() -> str:
    r = rng.random()
    if r < 0.7:
        return ipv4()
    if r < 0.85:
        return fus.ipv6()
    return f"2001:db8:{rng.randint(1, 0xFFFF):x}::{rng.randint(1, 0xFFF):x}"


AREA_US = ["212", "415", "312", "617", "206", "512", "303", "404", "702", "646", "213", "720"]


def phone_en() -> str:
    a, b, c = rng.choice(AREA_US), f"{rng.randint(200, 989)}", f"{rng.randint(0, 9999):04d}"
    forms = [
        f"({a}) {b}-{c}",
        f"{a}-{b}-{c}",
        f"{a}.{b}.{c}",
        f"+1 {a} {b} {c}",
        f"+1-{a}-{b}-{c}",
        f"1-{a}-{b}-{c}",
        f"({a}) {b}-{c} ext. {rng.randint(10, 999)}",
        f"+44 20 7{rng.randint(100, 999)} {rng.randint(1000, 9999)}",
        f"020 7{rng.randint(100, 999)} {rng.randint(1000, 9999)}",
        f"+44 7{rng.randint(700, 999)} {rng.randint(100000, 999999)}",
        f"+49 30 {rng.randint(1000000, 99999999)}",
        f"+33 1 {rng.randint(10, 99)} {rng.randint(10, 99)} {rng.randint(10, 99)} {rng.randint(10, 99)}",
        f"+81 90 {rng.randint(1000, 9999)} {rng.randint(1000, 9999)}",
        fus.phone_number(),
        fus.phone_number(),
        f"+61 2 {rng.randint(1000, 9999)} {rng.randint(1000, 9999)}",
        f"+91 98{rng.randint(100, 999)} {rng.randint(10000, 99999)}",
    ]
    return rng.choice(forms)


FW = str.maketrans("0123456789-", "０１２３４５６７８９－")


def phone_ja() -> str:
    m = f"0{rng.choice('789')}0"
    x, y = f"{rng.randint(1000, 9999)}", f"{rng.randint(1000, 9999)}"
    area = rng.choice(["03", "06", "052", "011", "092", "075", "045"])
    local = f"{rng.randint(100, 9999):04d}" if len(area) == 2 else f"{rng.randint(100, 999)}"
    forms = [
        f"{m}-{x}-{y}",
        f"{m}-{x}-{y}",
        f"{m}{x}{y}",
        f"{m} {x} {y}",
        f"{area}-{local}-{y}",
        f"{area}-{local}-{y}",
        f"{area}({local}){y}",
        f"0120-{rng.randint(100, 999)}-{rng.randint(100, 999)}",
        f"+81 {m[1:]} {x} {y}",
        f"+81-{area[1:]}-{local}-{y}",
        f"{m}-{x}-{y}".translate(FW),
        f"{area}-{local}-{y}".translate(FW),
        f"{m}ー{x}ー{y}".translate(FW),
        f"{area}−{local}−{y}",
    ]
    return rng.choice(forms)


def us_address(full: bool) -> str:
    street = fus.street_address()
    if rng.random() < 0.3:
        street = f"{rng.randint(1, 9999)} {rng.choice(['Oak', 'Maple', 'Main', 'Elm', 'Cedar', 'Park', 'Washington', 'Lake', 'Hill', 'Pine'])} {rng.choice(['Street', 'St.', 'Avenue', 'Ave', 'Road', 'Rd.', 'Boulevard', 'Blvd', 'Lane', 'Drive', 'Court', 'Way'])}"
        if rng.random() < 0.3:
            street += rng.choice(
                [
                    f", Apt {rng.randint(1, 40)}{rng.choice('ABC')}",
                    f" Suite {rng.randint(100, 900)}",
                    f", Unit {rng.randint(1, 30)}",
                ]
            )
    if not full:
        return street
    return f"{street}, {fus.city()}, {fus.state_abbr()} {fus.postcode()}"


def gb_address() -> str:
    return f"{rng.randint(1, 250)} {fgb.street_name()}, {fgb.city()} {fgb.postcode()}"


def ja_address() -> str:
    a = fja.address()  # 都道府県 + 市区 + 町 + N丁目N番N号 [building]
    if rng.random() < 0.35:  # hyphenated block numbers, as people write them
        a = re.sub(r"(\d+)丁目(\d+)番(\d+)号", r"\1-\2-\3", a)
    return a


def ja_name(space: bool | None = None) -> str:
    n = fja.name()
    if space is None:
        space = rng.random() < 0.3
    return n if space else n.replace(" ", "")


def ja_last() -> str:
    return fja.last_name()


KATAKANA_NAMES = [
    "ジョン・スミス",
    "マリア・ガルシア",
    "エミリー・ブラウン",
    "デイビッド・リー",
    "アンナ・シュミット",
    "トーマス・ミュラー",
]


def en_name() -> str:
    r = rng.random()
    if r < 0.6:
        return (
            fen.name()
            .replace("Dr. ", "")
            .replace("Mr. ", "")
            .replace("Mrs. ", "")
            .replace("Ms. ", "")
            .split(" MD")[0]
            .split(" DDS")[0]
            .split(" PhD")[0]
            .split(" Jr.")[0]
        )
    if r < 0.85:
        return f"{fint.first_name()} {fint.last_name()}"
    return f"{fen.first_name()} {fen.last_name()}"


def email_for(name: str | None = None) -> str:
    if name and rng.random() < 0.5 and re.fullmatch(r"[A-Za-z ]+", name):
        parts = name.lower().split()
        return f"{parts[0]}.{parts[-1]}@{fen.free_email_domain() if rng.random() < 0.5 else fen.domain_name()}"
    return fen.email() if rng.random() < 0.7 else fja.email()


def ssn() -> str:
    return fus.ssn()


def date_en() -> str:
    return rng.choice(
        [
            fus.date(pattern="%B %d, %Y"),
            fus.date(pattern="%Y-%m-%d"),
            "next Tuesday",
            "tomorrow at 3pm",
            fus.date(pattern="%d %b %Y"),
        ]
    )


def date_ja() -> str:
    return rng.choice(
        [fja.date(pattern="%Y年%m月%d日"), "来週の火曜日", "明日の15時", fja.date(pattern="%Y/%m/%d"), "3月5日"]
    )


# each template: (text with {SLOT}s, language, source tag)
SLOTS = {
    "PERSON": ("PERSON", en_name),
    "PERSON2": ("PERSON", en_name),
    "JPERSON": ("PERSON", ja_name),
    "JPERSON2": ("PERSON", ja_name),
    "JLAST": ("PERSON", ja_last),
    "KPERSON": ("PERSON", lambda: rng.choice(KATAKANA_NAMES)),
    "ADDR": ("STREET_ADDRESS", lambda: us_address(True)),
    "STREET": ("STREET_ADDRESS", lambda: us_address(False)),
    "GBADDR": ("STREET_ADDRESS", gb_address),
    "JADDR": ("STREET_ADDRESS", ja_address),
    "PHONE": ("PHONE_NUMBER", phone_en),
    "JPHONE": ("PHONE_NUMBER", phone_ja),
    "EMAIL": ("EMAIL_ADDRESS", email_for),
    "CARD": ("CREDIT_CARD", card),
    "IBAN": ("IBAN_CODE", iban),
    "IP": ("IP_ADDRESS", ip),
    "SSN": ("US_SSN", ssn),
    "MYNUM": ("JP_MY_NUMBER", lambda: fmt_my_number(my_number(True))),
    "ZIP": ("JP_POSTAL_CODE", lambda: fja.postcode()),
    # unlabelled fillers (not personal data, or not redacted by design)
    "DATE": (None, date_en),
    "JDATE": (None, date_ja),
    "ORG": (None, fus.company),
    "JORG": (None, fja.company),
    "CITY": (None, fus.city),
    "JCITY": (None, lambda: fja.prefecture() + fja.city()),
    "ORDER": (
        None,
        lambda: rng.choice(
            [f"#{rng.randint(100000, 99999999)}", f"A-{rng.randint(1000, 999999)}", f"{rng.randint(10**9, 10**11)}"]
        ),
    ),
    "VERSION": (
        None,
        lambda: rng.choice(
            [
                f"v{rng.randint(0, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 99)}",
                f"{rng.randint(1, 20)}.{rng.randint(0, 9)}.{rng.randint(0, 9)}.{rng.randint(0, 99)}",
            ]
        ),
    ),
    "TS": (
        None,
        lambda: rng.choice(
            [fus.iso8601(), fus.date_time().strftime("%Y-%m-%d %H:%M:%S"), f"{rng.randint(10**9, 2 * 10**9)}"]
        ),
    ),
    "BADMYNUM": (None, lambda: my_number(False)),
    "BADCARD": (None, bad_card),
    "NUM": (None, lambda: str(rng.randint(2, 500))),
    "PORT": (None, lambda: str(rng.choice([8080, 443, 5432, 6333, 11434]))),
}

EN = [
    "Please call {PERSON} at {PHONE} tomorrow about the lease.",
    "Note to self: {PERSON}'s new number is {PHONE}.",
    "Can you find the email {PERSON} sent me from {EMAIL} on {DATE}?",
    "Hi {PERSON}, the package goes to {ADDR}. Thanks!",
    "Ship the replacement to {ADDR} and text {PHONE} when it leaves.",
    "My card {CARD} was charged twice for order {ORDER}, can you check?",
    "Wire the deposit to IBAN {IBAN} (account holder: {PERSON}).",
    "The staging server is at {IP}, port {PORT}; prod moved to {IP}.",
    "Why does my SSN {SSN} show up on the {ORG} form?",
    "Meeting notes {DATE}: {PERSON} and {PERSON2} agreed to move the workshop to {CITY}.",
    "Who is {PERSON}? I saw the name in the onboarding doc.",
    "Forward the invoice to {EMAIL} and cc {EMAIL}.",
    "{PERSON} lives at {STREET} in {CITY}; visit on {DATE}.",
    "Emergency contact: {PERSON}, {PHONE}, {EMAIL}.",
    "What did Dr. {PERSON} say about the test results?",
    "Send the contract to Ms. {PERSON} at {GBADDR}.",
    "Our office is at {GBADDR}, phone {PHONE}.",
    "Refund card ending {CARD} for {PERSON}.",
    "Block {IP} in the firewall; it hammered the login page {NUM} times.",
    "SSN: {SSN}, DOB {DATE}, name {PERSON}.",
    "Is {ADDR} inside the delivery zone?",
    "Add {PERSON} ({EMAIL}) to the project channel.",
    "How do I update the billing IBAN from {IBAN} to {IBAN}?",
    "Summarize what {PERSON} wrote about the {ORG} merger.",
    "Remind me to call {PERSON} on {DATE} at {PHONE}.",
    "The VPN gateway {IP} rejects clients from {IP}.",
    "Mr. {PERSON} asked for the receipt to be mailed to {STREET}.",
    "{PERSON}, {ADDR}, {PHONE}",
    "Pay the supplier {ORG} using card {CARD}, exp 09/27.",
    "Which notes mention {PERSON} and the {CITY} trip?",
    "From: {PERSON} <{EMAIL}>\nSubject: lunch on {DATE}\nCall me at {PHONE} if plans change.",
    "Hey, it's {PERSON} - I moved to {ADDR}, update your contacts.",
    "Tenant {PERSON} (unit at {STREET}) reported a leak on {DATE}.",
    "Log line: user {EMAIL} logged in from {IP} at {TS}.",
    "Please verify SSN {SSN} before onboarding {PERSON}.",
    "Japanese colleague {JPERSON} can be reached at {JPHONE}.",
    # hard negatives (no personal data labelled)
    "Order {ORDER} shipped on {DATE}; tracking number {ORDER}.",
    "Upgrade from {VERSION} to {VERSION} fixed the crash.",
    "The job started at {TS} and finished at {TS}.",
    "Reference number {BADMYNUM} is on the invoice from {ORG}.",
    "Test card {BADCARD} should be declined by the Luhn check.",
    "The build {VERSION} was released on {DATE} in {CITY}.",
    "How does RRF with k={NUM} compare to BM25 on {NUM} queries?",
    "{ORG} opened a new office in {CITY} on {DATE}.",
    "What is the default port {PORT} used for in Qdrant?",
    "Invoice {ORDER} totals ${NUM}.99, due {DATE}.",
    "Set the timeout to {NUM} seconds and retry {NUM} times.",
    "Version {VERSION} changed the API; see ticket {ORDER}.",
]

JA = [
    "{JPERSON}さんの電話番号は{JPHONE}です。",
    "{JPERSON}様へ、{JDATE}の打ち合わせの件でご連絡しました。",
    "{JPERSON}氏の住所は{JADDR}です。",
    "〒{ZIP} {JADDR}\n{JPERSON} 様",
    "荷物の送り先：〒{ZIP} {JADDR}、電話 {JPHONE}",
    "{JPERSON}さんのメールアドレスは{EMAIL}です。",
    "マイナンバーは{MYNUM}です。手続きに必要ですか？",
    "個人番号 {MYNUM} を申請書に書く欄はどこ？",
    "カード番号 {CARD} の利用明細を確認したい。",
    "振込先のIBANは{IBAN}です。",
    "サーバーのIPアドレスは{IP}です。",
    "{JLAST}さんに{JDATE}までに資料を送ってください。",
    "担当の{JPERSON}から{JPHONE}に折り返し電話があります。",
    "{JPERSON}先生の研究室は{JADDR}にあります。",
    "連絡先：{JPERSON}（{JPHONE}／{EMAIL}）",
    "昨日{JPERSON}と{JPERSON2}が{JCITY}で会議をしました。",
    "{JPERSON}さんと{JPERSON2}さんの議事録を要約して",
    "{JORG}の{JPERSON}部長にメールを送る：{EMAIL}",
    "住所変更：新しい住所は{JADDR}、郵便番号は{ZIP}です。",
    "携帯 {JPHONE}、自宅 {JPHONE}",
    "{JPERSON}くんの誕生日は{JDATE}だったよね？",
    "メモ：{JLAST}様 {JPHONE} 折り返し希望",
    "{KPERSON}さんが{JDATE}に来日します。",
    "アクセスログに{IP}からの不正アクセスがありました。",
    "{JPERSON}のマイナンバー {MYNUM} を控えておく",
    "請求先 {JADDR} {JPERSON}宛",
    "{JPERSON}さん（{EMAIL}）をプロジェクトに追加して",
    "クレジットカード {CARD} で{JORG}に支払った領収書はどこ？",
    "{JPERSON}さんは{JADDR}に住んでいます。",
    "返信先は{EMAIL}、急ぎの場合は{JPHONE}までお願いします。",
    "From {PERSON}: 来週{JCITY}に行きます。電話は{PHONE}です。",
    "{JPERSON}さんに{PERSON}の件を伝えて",
    "{JLAST}さんと{PERSON}さんに{EMAIL}から連絡する",
    # hard negatives
    "注文番号 {ORDER} は{JDATE}に発送されました。",
    "参照番号 {BADMYNUM} を問い合わせフォームに入力してください。",
    "バージョン {VERSION} から {VERSION} に更新したら直った。",
    "処理は {TS} に開始しました。",
    "{JORG}は{JDATE}に{JCITY}に新しい支店を開いた。",
    "RRF の k を {NUM} にすると精度はどう変わる？",
    "{JCITY}の天気を教えて",
    "味噌汁に味噌を入れるタイミングは{JDATE}の料理教室で習った。",
    "テスト用カード番号 {BADCARD} はチェックで弾かれるはず。",
    "ポート{PORT}番でQdrantを起動する方法は？",
    "伝票番号 {ORDER} の配送状況を確認して",
    "お客様各位、{JDATE}はメンテナンスのため停止します。",
    "皆様、{JCITY}での研修は{JDATE}からです。",
    "{JORG}の売上は前年比{NUM}%増えた。",
]


def render(template: str, lang: str) -> dict:
    text, spans, pos = "", [], 0
    last_person = None
    for m in re.finditer(r"\{([A-Z0-9]+)\}", template):
        text += template[pos : m.start()]
        slot = m.group(1)
        etype, gen = SLOTS[slot]
        value = gen(last_person) if slot == "EMAIL" else gen()
        if etype == "PERSON":
            last_person = value
        if etype:
            spans.append({"start": len(text), "end": len(text) + len(value), "entity_type": etype})
        text += value
        pos = m.end()
    text += template[pos:]
    return {"text": text, "lang": lang, "spans": spans, "source": f"template+faker:{lang}"}


# hand-written lines (this project's own writing), labelled by the substrings listed
HAND = [
    (
        "Hey, can you remind Priya Natarajan that the standup moved? Her cell is 415-867-5309.",
        "en",
        [("Priya Natarajan", "PERSON"), ("415-867-5309", "PHONE_NUMBER")],
    ),
    ("What did the note from 2023-11-02 say about the Kubernetes upgrade to 1.28.3?", "en", []),
    (
        "Ping the on-call (ops@example.org) if 10.20.30.40 stops answering on port 443.",
        "en",
        [("ops@example.org", "EMAIL_ADDRESS"), ("10.20.30.40", "IP_ADDRESS")],
    ),
    (
        "Send the signed lease to Olumide Adeyemi, 1600 Pennsylvania Avenue NW, Washington, DC 20500.",
        "en",
        [("Olumide Adeyemi", "PERSON"), ("1600 Pennsylvania Avenue NW, Washington, DC 20500", "STREET_ADDRESS")],
    ),
    (
        "Our Berlin office pays rent to DE44 5001 0517 5407 3249 31 every month.",
        "en",
        [("DE44 5001 0517 5407 3249 31", "IBAN_CODE")],
    ),
    ("Python 3.12.1 and numpy 2.0.0 were installed on 2024-06-01 at 09:15.", "en", []),
    ("The Acme Corporation quarterly report mentions Tokyo and Osaka offices.", "en", []),
    (
        "明日、佐々木さんと品川駅で10時に待ち合わせ。遅れたら080-2345-6789に電話。",
        "ja",
        [("佐々木", "PERSON"), ("080-2345-6789", "PHONE_NUMBER")],
    ),
    (
        "請求書の宛先：〒530-0001 大阪府大阪市北区梅田3丁目1番3号 山田商店 御中",
        "ja",
        [("530-0001", "JP_POSTAL_CODE"), ("大阪府大阪市北区梅田3丁目1番3号", "STREET_ADDRESS")],
    ),
    ("Python 3.12 の venv の作り方は？", "ja", []),
    ("第3四半期の売上は1,234,567円でした。", "ja", []),
    (
        "田中部長から、契約書をtanaka.k@example.co.jpに送るよう言われた。",
        "ja",
        [("田中", "PERSON"), ("tanaka.k@example.co.jp", "EMAIL_ADDRESS")],
    ),
    ("ＴＥＬ：０３－５５５５－１２３４（代表）", "ja", [("０３－５５５５－１２３４", "PHONE_NUMBER")]),
    ("東京都の人口は約1400万人です。", "ja", []),
    ("2024年4月1日 10:00 に本番環境をv2.3.0へ更新。", "ja", []),
]


def hand_rows() -> list[dict]:
    rows = []
    for text, lang, labels in HAND:
        spans = []
        for value, etype in labels:
            start = text.index(value)
            spans.append({"start": start, "end": start + len(value), "entity_type": etype})
        rows.append({"text": text, "lang": lang, "spans": spans, "source": "hand-written"})
    return rows


def main() -> None:
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    rows = hand_rows()
    for templates, lang, per in ((EN, "en", 5), (JA, "ja", 5)):
        for t in templates:
            for _ in range(per):
                rows.append(render(t, lang))
    rng.shuffle(rows)
    for r in rows:
        for s in r["spans"]:
            assert r["text"][s["start"] : s["end"]].strip() == r["text"][s["start"] : s["end"]], r
        sys.stdout.write(json.dumps(r, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
