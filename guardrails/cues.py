"""Cue families of injected instructions, in English, German, Japanese and Chinese: a few dense
features beside the e5 vector.

Why: e5 places "Ignore all previous instructions" next to "Delete all alarms": both are short
imperatives, and the public benign sources are full of the second kind, so a linear head on the
vector alone learns "a short imperative is benign" and "a long elaborate text is an attack"
(decision 0028). What tells the two apart is a handful of things an injection does and a request
about ordinary work does not: it speaks of the assistant's own instructions, asks to drop them,
names a secret, tries to change who the assistant is, dictates the answer's exact words. Each
family below is one such thing, loosely matched in four languages; the head learns how much each
weighs beside the vector. Unlike hashed character n-grams (which let a model tell the training
sources apart by their surface, and lowered recall on a source left out), a dozen families cannot
memorise a source.

The families are written once, by hand, and never fitted: the trainers fit only their weights
(``python -m evals.train_injection``, ``python -m evals.train_passage_head``), and
``python -m evals.train_injection --leave-one-source-out`` judges them on sources the weights never
saw (decision 0036).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from guardrails.normalize import without_quotations
from guardrails.patterns import find_injection, normalise

#: an automated reader by what it is (the families that speak to one)
_AI = (
    r"(?:ai|a\.i\.|ai assistant|assistant|chatbot|chat bot|bot|llm|language model|ai model|ai language model|"
    r"chatgpt|gpt-?\d*|claude|bard|gemini)"
)
#: German and Japanese names of one
_AI_DE = r"(?:ki|assistent\w*|chatbot|sprachmodell|bot|chatgpt)"
_AI_JA = r"(?:ai|アシスタント|チャットボット|言語モデル|ボット|人工知能|chatgpt)"
#: what may stand before a vocative: a line's or sentence's start, markup ("<!-- AI assistant:")
_OPENS = r"(?:^|[\[\n.!?:>(*#\"-]\s*)"

#: one loose pattern per family over the normalised text (NFKC, case-folded, spaces collapsed;
#: the detector's views already undo letter-spacing)
_FAMILIES: dict[str, str] = {
    # asks to drop what came before: a verb of ignoring near an object that is the instructions
    "override": (
        r"\b(?:ignore|ignoring|disregard|forget|override|bypass|neglect|discard|ignorier\w*|vergiss|vergessen|"
        r"missachte\w*|übergeh\w*|verwirf)\b.{0,40}?\b(?:instructions?|rules|prompts?|directions|guidelines|"
        r"directives|commands|above|previous|prior|earlier|preceding|told|anweisung\w*|befehl\w*|regeln|vorherig\w*|"
        r"obig\w*|vorgaben)\b"
        # an instruction appended to an ordinary question: "... then forget all that and ..."
        r"|\b(?:forget|disregard|ignore) (?:all|everything)(?: of)? (?:that|this|the above|above|before|i said)\b"
        r"|\bvergiss (?:alles|das alles|das oben)\b"
        r"|(?:無視|忘れ|破棄|無効に)(?!.{0,2}(?:された|した|してしまった))"
        r"|(?:指示|命令|ルール|プロンプト|制約)(?:を|は)(?:すべて|全て|全部)?(?:無視|忘れ)"
        r"|(?:无视|忽略|忘掉|忘记|不要理会|不用管|抛开)"
    ),
    # speaks of the assistant's own set-up: its instructions, rules, programming, hidden prompt
    "own_setup": (
        r"\b(?:initial prompt|pre-?prompt|hidden (?:prompt|instructions|text|rules)|your (?:instructions|rules|"
        r"programming|guidelines|directives|prompt|system prompt|configuration|training)|"
        r"(?:the )?instructions (?:you were|above|given to you)|"
        r"deine (?:anweisungen|regeln|vorgaben|programmierung|konfiguration)|"
        r"versteckte\w* (?:anweisung\w*|konfiguration|regeln))\b"
        r"|(?:あなた|君|お前)(?:の|への|に与えられた)(?:指示|ルール|命令|設定|プロンプト|システムプロンプト)|隠され"
        r"|你的(?:指令|规则|设定|指示|要求|系统提示)|隐藏(?:设置|指令|提示)|开发者的要求|初始指令"
    ),
    # speaks of system prompts at all (questions about building chatbots do too: weighed apart)
    "prompt_talk": (
        r"\b(?:system ?prompts?|systemprompt|system-prompt|systemanweisung\w*|prompt injection)\b"
        r"|システムプロンプト|プロンプト|系统提示|提示词"
    ),
    # names a secret the assistant guards
    "secret": (
        r"\b(?:password|passwords|passcode|pass code|secret|access code|api keys?|credentials?|private key|"
        r"confidential|passwort\w*|kennwort\w*|geheim\w*|zugangsdaten|zugangscode)\b"
        r"|パスワード|秘密|機密|暗証|合言葉|アクセスキー|密码|口令|密钥|机密|秘钥"
    ),
    # speaks to an AI: tells it what it is ("you are an AI", "as a language model"), calls it
    # ("Dear AI,", "<!-- AI assistant:"), or tells it in the third person what to do ("the assistant must
    # reply …"). Not a mention: "a chatbot I'm building", "ChatGPT as a coding assistant" are what
    # people ask about every day
    "addressee": (
        # who it is told it is
        rf"\b(?:you are|you're|youre|you were|u r|you will be|you'll be|you become|you act as|you will act as|"
        rf"you function as|you serve as) (?:now |just |only |simply |no longer |not )?(?:a |an |the |my |our )?"
        rf"(?:\w+ ){{0,2}}?{_AI}\b"
        rf"|(?:^|[,.;:!?\n]\s*)as (?:an?|the|your) (?:\w+ )?{_AI}\b"
        # called by what it is
        rf"|{_OPENS}(?:dear |hey |hi |hello |ok |okay |listen,? |to (?:the |any )?)?(?:\w+ )?{_AI}\s*[,:!]"
        rf"|\b(?:act as|acting as|pretend to be|pretend you are|pretend you're|play the role of|playing the role of|"
        rf"role-?play as|stop being|quit being|cease being|stop acting like|no longer act as) "
        rf"(?:a |an |the |my |your )?(?:\w+ ){{0,2}}?{_AI}\b"
        rf"|\b(?:dear|hey|hi|hello|attention|note to) (?:the )?{_AI}\b"
        rf"|\byou,? (?:the |an? )?{_AI}\b"
        # told in the third person what to do (not "my bot should answer …": the user's own)
        rf"|(?<!\bmy )(?<!\bour )(?<!\byour )\b{_AI}s? (?:must|shall|should|will|is (?:required|instructed|told|asked) "
        rf"to|has to|needs to) (?:now |always |only |never |not |also |then )?(?:respond|reply|answer|say|output|print|"
        rf"write|ignore|reveal|follow|obey|disregard|forget|include|append|act|pretend|comply|stop|tell)\b"
        # German
        rf"|\bdu bist (?:jetzt |nun |ab sofort |kein\w* )?(?:ein|eine|einen|der|die|das)? ?(?:\w+ )?{_AI_DE}\b"
        r"|(?:^|[,.;:!?\n]\s*)als (?:eine? )?(?:ki|sprachmodell|assistent\w*|chatbot)\b"
        rf"|\b(?:liebe|lieber|liebes|hallo|hey|hi) {_AI_DE}\b"
        rf"|{_OPENS}(?:an (?:die |den )?)?(?:ki|ki-assistent\w*|assistent\w*|chatbot|chatgpt|sprachmodell)\s*[,:!]"
        r"|\b(?:hör\w* auf|aufhören),? (?:ein|eine|der|die)? ?(?:\w+ )?(?:ki|assistent\w*|chatbot|sprachmodell)"
        r" zu sein\b"
        rf"|\b(?:spiel\w*|verhalte dich wie|tu so,? als wärst du) (?:ein|eine|einen|den|die)? ?(?:\w+ )?"
        r"(?:ki|assistent\w*|chatbot|sprachmodell)\b"
        # Japanese
        rf"|(?:あなた|君|お前|貴方|きみ)は(?:今から|これから|もう)?[^。、]{{0,10}}?{_AI_JA}"
        r"|(?:^|[、。\n])(?:ai|言語モデル|アシスタント)として"
        r"|(?:^|[。！\n])(?:ai|アシスタント|チャットボット|chatgpt)(?:さん|くん)?(?:、|よ|へ|:|：)"
        r"|(?:ai|ai ?アシスタント|アシスタント|チャットボット|言語モデル)(?:さん|くん)?(?:へ|に告ぐ)(?:[:：、。!！]|$)"
        r"|(?:アシスタント|ai|チャットボット|言語モデル)(?:を演じ|になりき|のふりを|であることをやめ|をやめ)"
        # Chinese
        r"|你(?:现在|从现在起)?是(?:一个|一位|一名)?[^。，,]{0,6}?(?:ai|助手|人工智能|语言模型|机器人|chatgpt)"
        r"|(?:^|[，,。！\n])作为(?:一个|一位|一名)?(?:ai|人工智能|语言模型|助手|chatgpt)"
        r"|(?:^|[。！\n])(?:ai|助手|机器人|chatgpt)[，,:：]"
        r"|(?:致|给)(?:ai|人工智能)?(?:助手|模型|机器人|ai)[:：，,]"
        r"|(?:不要再|别再|不再)(?:做|当)?(?:一个|一名)?[^。，]{0,6}?(?:助手|ai|机器人)"
        r"|扮演(?:一个|一名)?[^。，]{0,8}?(?:助手|ai|机器人)"
    ),
    # tries to change who the assistant is
    "role": (
        r"\b(?:pretend|act as|acting as|role-?play|imagine you are|you are now|you're now|now you are|now you're|"
        r"from now on|play the role|(?:answer|respond|reply|speak|talk) as (?:him|her|them|if you were)|as if you were|"
        r"stell dir vor|tu so|spiel\w* die rolle|ab sofort|ab jetzt|von nun an|du bist (?:jetzt|nun|ab sofort)|"
        r"jetzt bist du|antworte (?:als|wie))\b"
        r"|なりき|演じ|ふりをし|今から(?:あなた|君|お前)は|これから(?:あなた|君|お前)は"
        r"|扮演|假装|从现在开始|现在你是|你现在是|从今以后"
    ),
    # asks to answer without the limits
    "no_limits": (
        r"\b(?:no|without(?: any)?|free of|beyond) (?:restrictions|limits|limitations|rules|filters|censorship|"
        r"boundaries|ethics)\b|\b(?:unrestricted|unfiltered|uncensored|jailbr\w*|amoral)\b"
        r"|\b(?:ohne|keine) (?:einschränkungen|regeln|grenzen|filter|zensur)\b|\buneingeschränkt\w*\b"
        r"|制限(?:なし|のない|が一切ない|を解除|を外)|制約(?:なし|のない)|検閲なし"
        r"|没有任何限制|不受限制|无限制|没有限制|不受约束"
    ),
    # dictates the answer: its exact words, an appended phrase, where it begins or ends
    "dictate_answer": (
        r"\b(?:respond|reply|answer|begin|start|end|finish)\w* (?:only )?(?:with|by saying)\b|\bsay (?:only|exactly)\b"
        r"|\b(?:print|output|write) (?:only|exactly)\b"
        r"|\b(?:your|the) (?:response|answer|reply|output) (?:must|should|will)\b"
        r"|\bin your (?:answer|response|reply|summary)\b|\bappend\w*\b|\bat the end of your\b"
        # "antworte nur mit …", not "antworte nur auf Deutsch" (a language, as "answer only in German")
        r"|\bantworte\w* (?:(?:nur|ausschließlich|einfach) )?mit\b"
        r"|\bantworte\w* (?:nur|ausschließlich)\b(?! (?:auf|in|kurz|knapp|wenn|falls|sachlich|höflich)\b)"
        r"|\bdeine antwort\b|\bam ende deiner\b"
        r"|と(?:だけ)?(?:答え|返答|出力|言って)|回答の(?:最後|最初|末尾)|回答に(?:は)?.{0,10}(?:含め|追加|付け)"
        r"|只(?:回答|输出|说|回复)|在(?:你的)?(?:回答|回复)(?:中|里|末尾|最后)|回答(?:末尾|最后)"
    ),
    # announces new instructions that replace the old
    "new_orders": (
        r"\b(?:new|updated|real|actual|additional) (?:instructions?|task|rules?|orders|directive)\b|\binstead\b"
        r"|\bimportant (?:instruction|note|message|update)\b|\bnote to (?:the )?(?:ai|assistant|model)\b"
        r"|\bneue\w* (?:anweisung\w*|aufgabe|regel\w*|befehl\w*)\b|\bstattdessen\b"
        r"|新しい(?:指示|命令|ルール|タスク)|代わりに|本当の指示"
        r"|新的?(?:指令|任务|规则|指示)|而是|改为|取而代之"
    ),
    # asks something to be disclosed
    "disclose": (
        r"\b(?:reveal|disclose|leak|dump|expose|spell out|tell me|show me|give me|share)\b"
        r"|\b(?:verrat\w*|enthüll\w*|zeig\w* mir|gib \w+ aus|nenne mir)\b"
        r"|教えて|見せて|開示|暴露|漏らし|公開して"
        r"|告诉我|透露|泄露|给我看|输出|公开"
    ),
    # speaks to an AI that reads, summarises or answers from *this* text: what a planted instruction
    # in a document does and a how-to written for people does not (a relative clause or condition
    # naming the AI reader, a note addressed to it, the AI called by name)
    "ai_reader": (
        r"\b(?:assistants?|ai|a\.i\.|(?:language )?models?|llms?|bots?|chatbots?|summari[sz]ers?|(?:ai )?systems?"
        r"|tools?)\b[^.!?\n]{0,60}?\b(?:reading|reads|summari[sz]ing|summari[sz]es|processing|processes|using|uses|answering|"
        r"describing|describes|comparing|compares|that (?:later )?\w+)\b[^.!?\n]{0,40}?\b(?:this|these|the following)\b"
        r"|\b(?:if|when|whenever)\b[^.!?\n]{0,30}?\b(?:you are|you're|an?|the|any|by an?)\b[^.!?\n]{0,20}?"
        r"\b(?:ai|assistant|language model|model|bot|chatbot|ai system)s?\b"
        r"|\b(?:note|instructions?|message|task|action|request|guideline)s? (?:to|for) (?:the |any |all |every )?"
        r"(?:\w+ )?(?:ai|assistants?|models?|bots?|language models?|summari[sz]ers?)\b"
        r"|(?:^|[\[:.!?]\s*)(?:dear |hey |hi )?(?:ai|ai assistant|assistant|chatbot)\s*[,:]"
        r"|\b(?:human or ai|ai or human)\b"
        r"|\b(?:ki|ki-\w+|assistent\w*|sprachmodell\w*|bot|chat-assistent\w*)\b[^.!?\n]{0,60}?"
        r"\b(?:liest|lesen|zusammenfasst|zusammenfassen|verarbeitet|nutzt|nutzen|beschreiben|vergleicht|beantwortet)\b"
        r"|\b(?:falls|wenn|wird)\b[^.!?\n]{0,40}?\b(?:ki|ki-\w+|assistent\w*|sprachmodell\w*)\b"
        r"|\b(?:hinweis|anweisung|aufgabe|nachricht) (?:an|für) (?:die |den |das |jedes |jeden |alle )?"
        r"(?:\w+-)?(?:ki|assistent\w*|sprachmodell\w*|bot|ki-modell)\b|\bmensch oder ki\b"
        r"|(?:する|した|している|読んだ|読む|使う|答える)"
        r"(?:ai|ai ?アシスタント|アシスタント|言語モデル|ボット|チャットアシスタント|メールアシスタント)(?:は|が|へ)"
        r"|(?:ai|アシスタント|言語モデル|ボット)(?:へ|への|に対する)(?:指示|依頼|お願い|。|：|:)|(?:人|人間)でもaiでも"
        r"|(?:阅读|汇总|总结|参考|介绍|使用|处理|读到|比较)[^。，,]{0,12}?的(?:任何)?(?:ai|聊天|邮件)?(?:助手|模型|语言模型|机器人|系统|ai)"
        r"|(?:致|给)[^。]{0,8}?(?:ai|助手|模型|机器人)|(?:如果|若)[^。]{0,12}?(?:ai|助手|语言模型)|还是ai"
    ),
    # switches into a mode meant to drop the rules
    "mode": (
        r"\b(?:developer|debug|admin|god|dan|sudo|maintenance|test) mode\b|\bdo anything now\b|\bdan\b"
        r"|\b(?:entwickler|admin|debug)modus\b|開発者モード|管理者モード|デバッグモード|开发者模式|管理员模式|调试模式"
    ),
}
_COMPILED = {name: re.compile(p) for name, p in _FAMILIES.items()}
#: a password that is the user's own business (theirs, a reset, a policy, a manager): what a help desk
#: is asked every day, in every language, and not a secret the assistant guards
_OWN_PASSWORD_TALK = re.compile(
    r"\b(?:my|our|a user's|user|users'|new|reset|resetting|change|changing|forgot|forgotten|update|updating|"
    r"strong|weak|expired|temporary)\s+passwords?\b"
    r"|\bpasswords?[\s-]+(?:policy|policies|manager|managers|reset|requirements|rules|length|strength|change|"
    r"changes|expiry|guide|guidelines|hygiene|rotation)\b"
    r"|\b(?:mein|meine|meinen|neues|neue|neuen)\s+(?:passwort|kennwort)\b|\b(?:passwort|kennwort)\w*\s+(?:\w+\s+)?"
    r"(?:zurücksetzen|zurück|ändern|vergessen)\b|\b(?:passwort|kennwort)(?:richtlinie|-richtlinie|manager|-manager|"
    r"länge|regeln|wechsel|änderung)\w*"
    r"|パスワード(?:ポリシー|管理|マネージャー|の長さ|の文字数|の変更|の再設定|再設定|変更|をリセット|リセット|を変更|"
    r"を忘れ|の有効期限|のルール|規則)|(?:私|自分|僕|わたし)の(?:パスワード)"
    r"|密码(?:策略|管理器|管理|长度|规则|要求|重置|修改)|(?:重置|修改|更改|找回|忘记|忘了)[^。，,？?]{0,6}?密码|我的密码"
)
CUE_NAMES: tuple[str, ...] = ("curated", *_FAMILIES)
"""The feature order: a curated pattern's match first, then the families."""


def cue_vector(text: str) -> np.ndarray:
    """1.0 per cue family ``text`` shows outside its quotations, 0.0 otherwise (``CUE_NAMES`` order)."""
    # the families read the text with its quotations blanked: a quoted instruction is mentioned,
    # not given (a curated pattern still reads the whole text)
    said = without_quotations(normalise(text))
    out = np.zeros(len(CUE_NAMES), dtype=np.float32)
    out[0] = find_injection(text) is not None
    for i, (name, regex) in enumerate(_COMPILED.items(), start=1):
        out[i] = regex.search(_OWN_PASSWORD_TALK.sub(" ", said) if name == "secret" else said) is not None
    return out


def cue_matrix(texts: Sequence[str]) -> np.ndarray:
    """``cue_vector`` of each text, one row each."""
    if not texts:
        return np.zeros((0, len(CUE_NAMES)), dtype=np.float32)
    return np.stack([cue_vector(t) for t in texts])
