"""The word lists the recognizers and the filters read: places, titles, and words that are not names.

Lists that regexes embed are ``|``-joined alternations (no capture groups), so a pattern
writes ``(?:{PREFECTURES})``; lists that code looks words up in are frozensets.
"""

from __future__ import annotations

PREFECTURES = (
    "北海道|東京都|大阪府|京都府|青森県|岩手県|宮城県|秋田県|山形県|福島県|茨城県|栃木県|群馬県|埼玉県|千葉県|"
    "神奈川県|新潟県|富山県|石川県|福井県|山梨県|長野県|岐阜県|静岡県|愛知県|三重県|滋賀県|兵庫県|奈良県|"
    "和歌山県|鳥取県|島根県|岡山県|広島県|山口県|徳島県|香川県|愛媛県|高知県|福岡県|佐賀県|長崎県|熊本県|"
    "大分県|宮崎県|鹿児島県|沖縄県"
)

#: street suffixes of US/UK addresses (USPS suffixes, the set Faker writes, UK usage)
STREET_SUFFIXES = (
    "Alley|Aly|Avenue|Ave|Av|Boulevard|Blvd|Branch|Bridge|Brook|Brooks|Burg|Burgs|Bypass|Byp|Camp|Canyon|Cape|"
    "Causeway|Center|Centers|Circle|Circles|Cir|Cliff|Cliffs|Close|Club|Common|Corner|Corners|Course|Court|Courts|"
    "Ct|Cove|Coves|Creek|Crescent|Cres|Crest|Crossing|Crossroad|Curve|Dale|Dam|Divide|Drive|Drives|Dr|Estate|"
    "Estates|Expressway|Expy|Extension|Extensions|Fall|Falls|Ferry|Field|Fields|Flat|Flats|Ford|Fords|Forest|Forge|"
    "Forges|Fork|Forks|Fort|Freeway|Fwy|Garden|Gardens|Gateway|Glen|Glens|Green|Greens|Grove|Groves|Harbor|"
    "Harbors|Haven|Heights|Highway|Hwy|Hill|Hills|Hollow|Inlet|Island|Islands|Isle|Junction|Junctions|Key|Keys|"
    "Knoll|Knolls|Lake|Lakes|Land|Landing|Lane|Ln|Light|Lights|Loaf|Lock|Locks|Lodge|Loop|Mall|Manor|Manors|"
    "Meadow|Meadows|Mews|Mill|Mills|Mission|Motorway|Mount|Mountain|Mountains|Neck|Orchard|Oval|Overpass|Park|"
    "Parks|Parkway|Parkways|Pkwy|Pass|Passage|Path|Pike|Pine|Pines|Place|Pl|Plain|Plains|Plaza|Point|Points|Port|"
    "Ports|Prairie|Radial|Ramp|Ranch|Rapid|Rapids|Rest|Ridge|Ridges|River|Road|Roads|Rd|Route|Row|Rue|Run|Shoal|"
    "Shoals|Shore|Shores|Skyway|Spring|Springs|Spur|Spurs|Square|Squares|Sq|Station|Stravenue|Stream|Street|"
    "Streets|St|Summit|Terrace|Ter|Throughway|Trace|Track|Trafficway|Trail|Trl|Tunnel|Turnpike|Underpass|Union|"
    "Unions|Valley|Valleys|Via|Viaduct|View|Views|Village|Villages|Ville|Vista|Walk|Walks|Wall|Way|Ways|Well|Wells"
)

#: English titles before a name (Mr. Smith, Dr Jane Doe)
TITLES_EN = r"(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Professor|Sir|Dame|Madam|Mme|Mlle|Rev|Capt|Judge)"
#: titles before a name in the other Latin-script languages (Herr Weber, Frau Dr. Schulz, Madame Roux)
TITLES_LATIN = (
    r"(?:Herr|Herrn|Frau|Fräulein|Dr|Prof|Monsieur|Madame|Mademoiselle|M|Mme|Mlle|Señor|Señora|Sr|Sra|Don|Doña|"
    r"Signor|Signora|Sig|Sig\.ra|Dhr|Mevr|Senhor|Senhora)"
)
#: Japanese honorifics and job titles after a name (山田さん, 佐藤部長); 君 only when no kanji follows (君津市)
HONORIFICS_JA = r"(?:さん|様|さま|氏|先生|くん|君(?![\u4e00-\u9fff])|ちゃん|殿|部長|課長|社長|係長|主任|教授|医師)"

#: words before an honorific that are not names (お客様, 皆様, 奥さん ...)
NOT_NAMES_JA = frozenset(
    {"お客", "客", "皆", "皆さん", "奥", "お母", "お父", "お兄", "お姉", "母", "父", "兄", "姉", "弟", "妹", "娘"}
    | {"息子", "旦那", "彼", "彼女", "神", "王", "担当者", "担当", "店員", "先輩", "後輩", "医者", "患者", "利用者"}
    | {"会員", "読者", "みな", "皆々", "各位", "御中", "貴", "同", "本人", "ご本人", "相手", "先方", "方", "人"}
    | {"子", "子供", "赤ちゃん", "運転手", "家族"}
)

#: whole English values NER calls a person that are the words around personal data instead
NOT_NAMES_EN = frozenset(
    {"email", "e-mail", "mail", "phone", "call", "tel", "please", "hi", "hello", "thanks", "dear", "regards"}
    | {"note", "todo", "ssn", "iban", "visa", "mastercard", "amex", "card", "address", "street", "avenue"}
    | {"road", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
)

#: words (case-folded) that are not part of an English name: a run of proper nouns holding one
#: is a street, a company, a date, or the heading or greeting of a message
NOT_NAME_WORDS_EN = frozenset(
    {w.casefold() for w in STREET_SUFFIXES.split("|")}
    | {"inc", "llc", "ltd", "corp", "co", "group", "sons", "company", "bank", "university", "school", "hospital"}
    | {"january", "february", "march", "april", "may", "june", "july", "august", "september", "october"}
    | {"november", "december", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
    | {"iban", "ssn", "visa", "mastercard", "amex", "email", "phone", "note", "notes", "subject", "from", "to"}
    | {"please", "thanks", "hi", "hello", "dear", "meeting", "north", "south", "east", "west", "new", "san"}
)

#: words of Japanese company names (鈴木鉱業, 株式会社太田建設): a surname beside one is a company
ORG_WORDS_JA = (
    r"(?:建設|工業|商事|商店|鉱業|農林|運輸|通信|食品|情報|電機|電気|製作所|産業|銀行|証券|保険|病院|医院|"
    r"大学|学園|学校|水産|物産|不動産|印刷|製薬|化学|興業|グループ|ホールディングス|株式会社|有限会社|合同会社|ガス|電力)"
)
