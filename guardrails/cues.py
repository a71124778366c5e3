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
    # addresses an AI by what it is
    "addressee": (
        r"\b(?:assistant|chatbot|ai|a\.i\.|llm|language model|chatgpt|gpt-?\d*|bot|ki|assistent\w*|sprachmodell)\b"
        r"|アシスタント|チャットボット|言語モデル|人工知能|助手|人工智能|语言模型|机器人"
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
        r"|\bantworte\w* (?:nur|mit|ausschließlich)\b|\bdeine antwort\b|\bam ende deiner\b"
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
