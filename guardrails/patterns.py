"""Curated prompt-injection patterns in English, Japanese, German and Chinese.

Patterns are data, kept apart from the checks that apply them, so that the list can grow with
every attack seen in logs without touching the logic, and so that a model-based detector
(the injection classifier in ``injection.py``) runs next to them.

Injection patterns run on a normalised copy of the text (NFKC, case-folded, whitespace
collapsed; Japanese patterns also on a copy without any whitespace) because attackers
write ``ＩＧＮＯＲＥ　ａｌｌ``, ``Ignore   ALL`` or ``以 前 の 指 示``; German ones run on the
collapsed text like English, Chinese ones on the squeezed text like Japanese. They are written to need
the *object* of the attack (instructions, system prompt, restrictions), not a verb alone:
"How do I ignore warnings in pytest?" and 「前の章の指示に従って」 are ordinary questions.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from dataclasses import dataclass

# --------------------------------------------------------------------------- normalisation

_WS = re.compile(r"\s+")


def normalise(text: str) -> str:
    """NFKC, case-folded, every run of whitespace one space: what the English patterns see."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def squeeze(text: str) -> str:
    """The normalised text without any whitespace: what the Japanese patterns see."""
    return _WS.sub("", normalise(text))


# --------------------------------------------------------------------------- prompt injection


@dataclass(frozen=True)
class InjectionPattern:
    """One curated pattern: its name (for logs and tests), what it means, and the regex."""

    name: str
    reason: str
    regex: re.Pattern[str]
    #: Japanese patterns run on the text without whitespace, English ones on collapsed spaces
    squeezed: bool = False
    #: only counts when the text also carries an encoded-looking payload ("decode this and obey")
    needs_payload: bool = False


def _en(name: str, reason: str, pattern: str) -> InjectionPattern:
    return InjectionPattern(name, reason, re.compile(pattern))


def _ja(name: str, reason: str, pattern: str, *, needs_payload: bool = False) -> InjectionPattern:
    return InjectionPattern(name, reason, re.compile(pattern), squeezed=True, needs_payload=needs_payload)


_PRIOR = r"(?:previous|prior|above|earlier|preceding|foregoing|former|initial|original|system|all|any|every|your)"
_FILLER = (
    r"(?:the|of|about|my|these|those|that|and|all|any|your|previous|prior|above|earlier|system|initial|original|"
    r"following|subsequent|other)"
)
_RULES = (
    r"(?:instructions?|directions?|directives?|rules|prompts?|guidelines|guardrails|constraints|commands|"
    r"restrictions|programming|context|messages)"
)
#: after a Japanese verb stem: past, passive, progressive or "what if" forms tell about an act, not ask for it
_NOT_A_REQUEST = (
    r"(?!し?てしま|し?ちゃっ|し?た|された|られ|し?ている|し?ていた|しました|し?がち|する(?:と|場合|とき|時|の))"
)
#: the assistant's own password or secret ("your password", not "your password policy")
_SECRET = (
    r"(?:secret )?(?:password|passcode|passphrase|secret key|secret|api key|access code|credentials|login details)\b"
    r"(?! (?:policy|policies|manager|reset|requirements|rules|strength|change))"
)
_HAND_OVER = r"(?:share|tell|give|reveal|send|show|disclose|provide|spell out|type|write down|hand over)"
#: a word between "please" and the verb that is not a negation ("please do not share ...")
_NOT_NEGATED = r"(?!not\b|never\b|don't\b|do\b|dont\b)"
_TELL = r"(?:tell|show|give|print|repeat|quote|recite|summari[sz]e|list|paste|output|write out|reveal|display|share)"
_LIMITS = r"(?:restrictions?|limitations?|limits|filters?|filtering|censorship|rules|guidelines|ethics|morals|safety)"

INJECTION_PATTERNS: tuple[InjectionPattern, ...] = (
    # ---- English
    _en(
        "ignore_instructions",
        "asks to ignore or override the earlier instructions",
        rf"\b(?:ignore|disregard|forget|override|bypass|skip|drop|discard)\b (?:{_FILLER} ){{0,3}}{_PRIOR}"
        rf"(?: {_FILLER}){{0,3}} {_RULES}\b",
    ),
    _en(
        "disregard_above",
        "asks to disregard the text above",
        r"\b(?:ignore|disregard|forget)\b (?:all |everything )?(?:of )?(?:the |what(?:'s| is| was) )?"
        r"(?:above|foregoing|preceding|said before|written above)(?: (?:text|prompt|instructions?|message|and)\b|"
        r" ?[.,;:!]| ?$)",
    ),
    _en(
        "drop_what_came_before",
        "asks to forget everything said before and do something else",
        r"\b(?:forget|ignore|disregard)\b (?:about )?(?:all|everything)(?: of)?"
        r"(?: (?:that|this|the above|above|i said|i told you|you were told|you have been told|said|written|mentioned|"
        r"before|before that|previously|so far|up to now|until now|up to this point))+"
        # the forgetting is the instruction: a clause ends, or what to do instead follows
        r"(?=\s*(?:[.,;:!]|$|and (?:just |only |instead |now |then )?(?:say|write|tell|answer|respond|reply|print|"
        r"output|repeat|focus|do|act|pretend|give|show|start)\b|then\b|now\b|instead\b))"
        # all the earlier tasks dropped ("Now forget all previous tasks and write …")
        r"|\b(?:forget|ignore|disregard)\b (?:about )?all (?:the )?(?:previous|prior|earlier|preceding|above|other) "
        r"(?:tasks|assignments|conversations|messages|inputs|topics)\b"
        # the question withdrawn for set words ("… forget the question and just say 'owned'")
        r"|\b(?:forget|ignore|disregard)\b (?:the|this|that|my) (?:question|task|request)\b,? (?:and |then )?"
        r"(?:just |only |instead |simply )?(?:say|write|print|reply|answer|respond)\w*(?: with)? [\"'‘“]",
    ),
    _en(
        "stop_obeying",
        "asks to stop obeying the earlier instructions",
        # the assistant's own earlier instructions, not "any instructions contained in the text", which a
        # user writes to defend a translation or a summary
        r"\b(?:don't|do not|dont|stop|no longer|never again|quit)\b (?:\w+ ){0,2}?(?:obey|obeying|follow|following|"
        r"adhere to|adhering to|comply with|complying with|listen to|listening to)\b (?:the |all |of )?"
        rf"(?:your|previous|prior|above|earlier|preceding|original|initial|system)(?: {_FILLER}){{0,3}} {_RULES}\b"
        rf"|\b(?:don't|do not|stop|no longer) (?:obey|follow)\w* (?:the )?{_RULES} "
        r"(?:you were|you've been|you have been) given\b",
    ),
    _en(
        "new_tasks_follow",
        "announces that new instructions follow",
        r"\b(?:now )?(?:new|further|the real|your (?:new|real)) (?:instructions|tasks|orders|commands) "
        r"(?:follow|are coming|come)\b"
        r"|\b(?:now|here) (?:follow|come) (?:the |your )?(?:new|real) (?:instructions|tasks|orders|commands)\b",
    ),
    _en(
        "training_secrets",
        "asks for secrets the model saw in its training data",
        r"\b(?:api keys?|passwords?|credentials|secrets?|tokens?|private keys?|personal data|phone numbers|e-?mail "
        r"addresses)\b[^.!?\n]{0,40}?\b(?:you|that you) (?:remember|recall|saw|have seen|memori[sz]ed|learned|learnt|"
        r"were trained on)\b[^.!?\n]{0,30}?\btrain(?:ing|ed)\b"
        r"|\b(?:memori[sz]ed|remember|recall|saw|learned|learnt)\b[^.!?\n]{0,20}?\b(?:during|from|in) (?:your )?"
        r"training(?: data| set)?\b[^.!?\n]{0,40}?"
        r"\b(?:api keys?|passwords?|credentials|secrets?|tokens?|private keys?)\b",
    ),
    _en(
        "ignore_rest_of_input",
        "a planted line tells the reader to skip the rest of the data it sits in",
        r"\b(?:ignore|disregard|skip)\b (?:all of |everything in )?the rest of (?:this|the|these) "
        r"(?:data|text|document|input|e-?mail|page|message|prompt|report|file|record|conversation)\b"
        r"|\bstop everything\b[^a-z]{0,20}(?:now\b[^a-z]{0,10})?(?:just )?(?:print|say|write|output|respond|reply)\b",
    ),
    _en(
        "reveal_own_secret",
        "asks the assistant for its own password or secret",
        # asked of the assistant (a question, "please", "me"): "never share your password" in a policy is not
        rf"\b(?:(?:can|could|would|will) you|please|i need you to)\b (?:{_NOT_NEGATED}\w+ ){{0,2}}?{_HAND_OVER}\b"
        rf" (?:me |us )?(?:\w+ ){{0,2}}?your {_SECRET}"
        rf"|\b{_HAND_OVER} (?:me|us) (?:\w+ ){{0,2}}?your {_SECRET}"
        rf"|\bwhat(?:'s| is| was) your {_SECRET}",
    ),
    _en(
        "reveal_own_setup",
        "asks the assistant for the instructions or configuration it was given",
        rf"\b{_TELL}\b[^.!?\n]{{0,40}}?\b(?:rules|instructions|guidelines|directives|prompt)\b,? (?:that )?"
        r"(?:the |your )?(?:developers?|creators?|operators?|admins?|owners?|makers?) (?:gave|has given|have given|"
        r"wrote for|set for|gave to) you\b"
        rf"|\b{_TELL}\b[^.!?\n]{{0,40}}?\b(?:prompt|instructions|configuration|setup|system message)\b,? (?:that )?"
        r"you (?:were|have been|'ve been) (?:configured|set up|initiali[sz]ed|programmed|primed|started) with\b"
        rf"|\b{_TELL}\b[^.!?\n]{{0,20}}?\byour (?:hidden|secret|internal|confidential) (?:context|configuration|setup|"
        r"settings|instructions|prompt)\b",
    ),
    _en(
        "disguised_secret",
        "asks for the guarded password in a disguised form (spelled out, reversed, encoded, hidden in a poem)",
        # a request, not a question about doing it ("how do I encode the password for basic auth?")
        r"(?:^|[.!?\n:] ?)(?!(?:how|why|where|when|is|are|does|do i|do we|can i|can we|should|what is the best)\b)"
        r"(?:(?!\b(?:not|never|no)\b|n't)[^.!?\n])*?\b(?:the|your|that|this) (?:secret )?"
        r"(?:password|passcode|passphrase|secret word|code ?word|pw)\b"
        r"(?! (?:policy|policies|manager|reset|requirements|rules|strength|change|hash\w*|field))"
        # "must not be written backwards" is a rule, not a request
        r"(?:(?!\b(?:not|never|no)\b|n't)[^.!?\n]){0,60}?"
        r"\b(?:backwards?|in reverse|reversed|letter by letter|one letter at a time|each letter|every letter|"
        r"(?:spaces?|dashes|hyphens|dots|commas) between|separated by (?:spaces|dashes|commas)|first letters? of|"
        r"acrostic|riddle|rhym\w*|in (?:base ?64|hex|binary|morse|pig latin|rot-?13|emojis?)|"
        r"as (?:a )?(?:riddle|poem|acrostic|cipher)|"
        r"without (?:saying|writing|revealing|telling) (?:it|the password))\b"
        # the password named, then "spell it backwards" in the next sentence
        r"|\b(?:the|your) (?:secret )?(?:password|passphrase|secret word)\b"
        r"(?! (?:policy|policies|manager|reset|requirements|rules|strength|change|hash\w*|field))"
        r"(?:(?!\b(?:not|never|no)\b|n't)[^\n]){0,40}?"
        r"\b(?:spell|write|say|type|print|give|tell)\w* (?:me )?it (?:out )?(?:backwards?|in reverse|reversed|"
        r"letter by letter|one letter at a time|with spaces|in base ?64|in hex|in pig latin)\b"
        r"|\b(?:acrostic|(?:first|initial) letters? of (?:each|every) (?:line|word|sentence))\b[^.!?\n]{0,40}?"
        r"\b(?:the|your) (?:secret )?(?:password|passphrase|secret word)\b",
    ),
    _en(
        "speak_as_someone",
        "makes the assistant someone else and asks it to answer as them",
        r"\b(?:now,? you are|you are now|you're now|now you're|from now on,? you are)\b[^.!?\n]{1,40}?"
        r"[.,:;!]? ?(?:and )?(?:(?:answer|respond|reply|speak|talk|write)\w* (?:as|like) (?:him|her|them|he|she|they)\b"
        # or asked straight away what the someone would say
        r"|how (?:do|would|will) you (?:answer|respond|reply|react)\b"
        r"|what (?:do|would|will) you (?:say|answer|reply)\b)",
    ),
    _en(
        "ai_reader",
        "a document tells the AI that reads it what to do",
        r"\b(?:any|every|all|the|an?) (?:ai|ai assistant|assistant|language model|llm|chatbot|model|bot)s? "
        r"(?:(?:that|who) (?:reads|summari[sz]es|processes|parses) |reading |summari[sz]ing |processing |parsing )"
        r"this (?:document|page|text|e-?mail|message|file|review|note|article|website|site)\b[^.!?\n]{0,40}?"
        r"\b(?:must|should|shall|will|is required to|needs to|has to|is instructed to)\b",
    ),
    _en(
        "reveal_system_prompt",
        "asks to reveal the system prompt",
        # "it must not reveal its system prompt" (a test plan's pass condition) forbids, it does not ask
        r"(?<!not )(?<!never )(?<!n't )(?<!nor )"
        r"\b(?:reveal|show|print|display|output|repeat|recite|leak|dump|expose|write out|spell out|tell|give|share|"
        r"paste|send)(?: me| us)?(?: (?:your|the|this|its|full|entire|exact|complete|whole|verbatim|original|"
        r"hidden|secret|of|all)){1,3} (?:system|initial|hidden|original|secret|developer|pre-?)"
        r" ?(?:prompt|instructions|message|directives)\b"
        r"|\bwhat(?:'s| is| are| was| were) your (?:\w+ )?(?:prompt|instructions|directives)\b",
    ),
    _en(
        "reveal_own_instructions",
        "asks the assistant to reveal its own instructions",
        r"\b(?:reveal|show|print|display|output|repeat|recite|dump|leak|tell me|give me|list)\b (?:me |us )?"
        r"(?:all |each |every )?(?:of )?your (?:\w+ )?(?:instructions|prompt|rules|guidelines|directives)\b",
    ),
    _en(
        "repeat_above",
        "asks to repeat the hidden text above the conversation",
        r"\brepeat (?:all |every )?(?:the )?(?:words|text|everything|lines?) (?:above|before this|so far)\b",
    ),
    _en(
        "dan",
        "a 'DAN' / do-anything-now jailbreak",
        r"\b(?:you are now|you're now|you will be|act as|acting as|pretend to be|pretend you are|become|play)"
        r" (?:a |an |the )?(?:dan|stan|dude)\b|\byou(?: are|'re) (?:dan|stan)(?:[,.!:;]|$| which| and| who)"
        r"|\bdo anything now\b|\b(?:dan|jailbreak|jailbroken|god) mode\b",
    ),
    _en(
        "developer_mode",
        "asks the assistant to switch into a 'developer mode'",
        r"\b(?:you|chatgpt|assistant|ai|model)(?: are| are now| will be| with| in| now| in| running in){1,2}"
        r" (?:the )?developer mode\b|\bdeveloper mode (?:enabled|output|response)\b|\bsimulate developer mode\b",
    ),
    _en(
        "no_restrictions",
        "asks to answer without restrictions",
        rf"(?:\b(?:you|yourself|ai|assistant|chatbot|bot|model|gpt)\b.{{0,40}}?|(?:^|[.!?:] )(?:please |now |ok,? )?)"
        rf"\b(?:act|behave|respond|answer|reply|pretend|role-?play|operate|talk|speak)\b.{{0,60}}?"
        rf"\b(?:without|with no|free (?:of|from)|no|ignoring|beyond|unbound by)(?: any| your| all| the){{0,2}}"
        rf" (?:\w+ )?{_LIMITS}\b",
    ),
    _en(
        "no_policy",
        "asks the assistant to act as if it had no policy or rules",
        r"\b(?:pretend|imagine|act as if|assume|suppose)\b (?:that )?you (?:have|had|are under|were under|follow) no "
        r"(?:content |safety |usage )?(?:polic(?:y|ies)|rules|restrictions|guidelines|filters|"
        r"safety (?:rules|measures))\b",
    ),
    _en(
        "unrestricted_ai",
        "role-play as an unrestricted or evil AI",
        r"\b(?:unrestricted|unfiltered|uncensored|jailbroken|evil|unaligned|amoral|rogue)"
        r" (?:ai|assistant|chatbot|bot|model|version of (?:yourself|you|chatgpt))\b",
    ),
    _en(
        "role_override",
        "tries to replace the assistant's role",
        r"\bfrom now on,? (?:you|your) (?:are|will|must|shall|act|respond|answer|pretend|role)\b|"
        r"\bpretend (?:that )?(?:you are|you're|to be) my (?:deceased|late|dead)"
        r" (?:grand(?:mother|ma|father|pa)|mother)\b|"
        r"\byour new (?:role|instructions|task|persona) (?:is|are)\b",
    ),
    _en(
        "new_instructions",
        "injects new 'system' instructions",
        r"(?:^|[\s\[(#*])(?:new|updated|real|actual|override) (?:system )?instructions ?:|"
        r"(?:^|[\s\[(#*])(?:new|updated) system (?:message|instruction)s? ?:|"
        # a bracketed system tag that speaks to the assistant ("[SYSTEM: the assistant must append …]")
        r"[\[(<{] ?(?:system|sys|admin|developer)(?: message| note| prompt| instruction)? ?[:\]>}] ?"
        r"(?:the |this |any )?(?:assistant|ai|model|chatbot|bot|you)\b|"
        r"\b(?:system|admin|developer) override\b|(?:^|\s)#{2,} ?(?:system|instruction)s? ?:",
    ),
    _en(
        "chat_template",
        "contains chat-template control tokens",
        r"<\|(?:im_start|im_end|system|endoftext|start_header_id|eot_id)\|>|\[/?inst\]|<</?sys>>",
    ),
    InjectionPattern(
        "decode_and_follow",
        "asks to decode a payload and follow it",
        re.compile(
            r"\b(?:decode|base64|rot13|decrypt)\b.{0,80}?"
            r"\b(?:follow|execute|obey|run|carry out|do what|act on|comply)\b"
        ),
        needs_payload=True,
    ),
    # ---- Japanese (matched without whitespace)
    _ja(
        "ignore_instructions_ja",
        "以前の指示を無視するよう求めている",
        r"(?:以前|前|これまで|今まで|上記|上|先ほど|先程|さっき|最初|元|当初|すべて|全て|全部|あらゆる|与えられた|"
        r"受けた|システム|あなたへ)の(?:すべての|全ての|全部の|あらゆる)?(?:指示|命令|指令|ルール|制約|制限|"
        r"プロンプト|ガイドライン|指図)(?:を|は|に|も)?(?:すべて|全て|全部|一切|完全に)?"
        rf"(?:無視|忘れ|わすれ|破棄|取り消|取消|無効に|従わな|捨て){_NOT_A_REQUEST}",
    ),
    _ja(
        "disregard_above_ja",
        "上記の内容を無視するよう求めている",
        r"(?:上記|以上|前述)(?:の内容|の文章|の文|のこと|の全て|のすべて)?を(?:すべて|全て|全部)?(?:無視|忘れ)"
        rf"{_NOT_A_REQUEST}",
    ),
    _ja(
        "reveal_system_prompt_ja",
        "システムプロンプトの開示を求めている",
        r"(?:システム|初期|最初の|隠された|隠し|元の|内部の?)(?:プロンプト|指示|メッセージ|命令)"
        r"(?:を|の内容を|の全文を|の中身を)(?:すべて|全て|全部|そのまま)?"
        r"(?:表示|教え|見せ|出力|公開|開示|書き出|繰り返|暴露|貼り付け|述べ)"
        r"(?!(?:し)?な[いく]|せず|しません|ません|ては(?:いけ|なら)|禁止)"
        r"|(?:あなた|君|きみ|お前)の(?:システム)?プロンプトは(?:何|なに|どんな)",
    ),
    _ja(
        "reveal_own_instructions_ja",
        "アシスタント自身の指示の開示を求めている",
        r"(?:あなた|君|きみ|お前)(?:の|が受けた|に与えられた|への)(?:指示|プロンプト|ルール|命令|制約)"
        r"(?:を|の内容を|の全文を)?(?:すべて|全て|全部)?(?:表示|教え|見せ|出力|公開|開示|書き出|繰り返|暴露)",
    ),
    _ja(
        "jailbreak_mode_ja",
        "脱獄・DAN などのモード切替を求めている",
        r"(?:dan|脱獄|ジェイルブレイク|ジェイルブレーク|神)モード|開発者モードで(?:動作|応答|回答|答え|振る舞|ふるま|話)|"
        r"(?:あなた|君|お前)は(?:今から|これから|今後|もう)?(?:dan|開発者モード)",
    ),
    _ja(
        "no_restrictions_ja",
        "制限のない応答を求めている",
        r"(?:制限|制約|フィルター|フィルタ|検閲|倫理|ルール|安全装置|ガードレール|規制)(?:が|の)?(?:一切|全く|まったく)?"
        r"(?:ない|なし|無し)の?(?:ai|アシスタント|チャットボット|ボット|キャラ|モード)"
        r"|(?:制限|制約|フィルター|フィルタ|検閲|倫理|安全装置|ガードレール)を(?:すべて|全て|一切)?"
        r"(?:解除|外|無効に|無視|取り払)し?て(?:から)?(?:答え|回答|応答|振る舞|ふるま|話|行動|演じ)"
        r"|(?:制限|制約|検閲|フィルター|ルール)(?:なし|無し|なく|無く|のない)(?:で|に)?.{0,4}?"
        r"(?:振る舞|ふるま|演じ|なりき|ロールプレイ)",
    ),
    _ja(
        "role_override_ja",
        "アシスタントの役割を書き換えようとしている",
        r"(?:今から|これから|以後|以降|今後)は?(?:あなた|君|きみ|お前)は.{0,30}?(?:として振る舞|としてふるま|を演じ|"
        r"になりき|ロールプレイ|制限|ルール)|(?<![のへ])(?:新しい|本当の)(?:システム)?(?:指示|命令)[:：]",
    ),
    _ja(
        "drop_what_came_before_ja",
        "これまでの話を忘れて決まった答えを返すよう求めている",
        r"(?:今まで|これまで|上記|上|前|さっき|先ほど|先程)の(?:話|会話|内容|こと|やりとり|質問)?(?:は|を)?"
        r"(?:全部|すべて|全て|一切)?(?:忘れて|無視して).{0,40}?(?:とだけ|とのみ|だけを?)(?:答え|言|出力|返|書)",
    ),
    _ja(
        "speak_as_someone_ja",
        "アシスタントを別人にしてその人として答えさせようとしている",
        r"(?:今から|これから|今日から)?(?:あなた|君|きみ|お前)は.{1,20}?(?:です|だ|である)[。、,]?.{0,10}?"
        r"(?:彼|彼女|その人|本人)(?:として|になりきって|の口調で|の立場で)(?:答え|回答|話|返答)",
    ),
    _ja(
        "stop_obeying_ja",
        "以前の指示に従わないよう求めている",
        r"(?:以前|前|これまで|今まで|最初|元|システム)の(?:指示|命令|ルール|設定|制約)(?:には|に)(?:もう)?従わ(?:ないで|なくて)",
    ),
    _ja(
        "ai_reader_ja",
        "文書を読むAIへの指示が埋め込まれている",
        r"(?:読んだ|読む|読み込んだ|要約する|要約した|処理する|処理した|参照する|扱う)"
        r"(?:ai|aiアシスタント|アシスタント|言語モデル|チャットボット|ボット)(?:は|へ|に対して)"
        r".{0,60}?(?:こと|ください|しなさい|せよ|すること|必ず|しろ)",
    ),
    _ja(
        "reveal_own_secret_ja",
        "アシスタント自身のパスワードや秘密を求めている",
        r"(?:あなた|君|きみ|お前)の(?:パスワード|暗証番号|合言葉|秘密の?(?:鍵|キー|言葉)?|apiキー|アクセスキー)"
        r"(?:を|は)(?:教え|見せ|共有|言って|書いて|送って|何|なに)",
    ),
    _ja(
        "reveal_own_setup_ja",
        "最初に与えられた指示やこのメッセージより前の内容を出させようとしている",
        r"(?:最初|初め|はじめ)に(?:あなたが)?(?:与えられた|受け取った|設定された)(?:指示|命令|プロンプト|ルール)(?:は|を)"
        r"(?:何|なに|教え|引用|表示|出力|見せ|繰り返)"
        r"|[「『\"]?あなたは[」』\"]?で始まる(?:上の|前の)?(?:文章|テキスト|文|部分)"
        r"|(?:この|今の)メッセージ(?:より|の)(?:前|上)に(?:ある|あった)(?:もの|文章|テキスト|内容)"
        r"[^。]{0,15}?(?:出力|表示|繰り返|教え|見せ)",
    ),
    _ja(
        "disguised_secret_ja",
        "守っているパスワードを形を変えて（逆から、一文字ずつ、暗号で）出させようとしている",
        r"(?:その|この|あなたの|君の|秘密の)?(?:パスワード|合言葉|暗証番号|秘密の言葉)(?:を|は)[^。？?]{0,20}?"
        r"(?:逆から|逆順に?|一文字ずつ|1文字ずつ|スペースを(?:入れ|空け)|頭文字に|縦読み|なぞなぞ|暗号に|暗号で|base64で|"
        r"エンコードし|ローマ字で)[^。？?]{0,6}?(?:教え|書い|書け|書き出|言っ|言え|出力|答え|表示|見せ|送っ)",
    ),
    _ja(
        "ignore_rest_of_input_ja",
        "埋め込まれた行が残りのデータを無視するよう求めている",
        r"(?:残り|以降|この後|これ以降)の(?:データ|文書|文章|内容|テキスト|入力|メール)(?:は|を)(?:すべて|全て)?無視",
    ),
    # ---- German (collapsed spaces, case-folded)
    _en(
        "drop_what_came_before_de",
        "verlangt, alles bisher Gesagte zu vergessen",
        r"\b(?:vergiss|vergesst|vergessen sie|ignorier\w*)\b (?:nun |jetzt |bitte |einfach )?(?:alles|das alles)"
        r"(?: (?:davor|zuvor|vorher|oben|bisher|bisherige|vorherige|bis jetzt|gesagte|geschriebene|"
        r"was ich gesagt habe))+"
        r"(?=\s*(?:[.,;:!]|$|und\b|dann\b|jetzt\b|nun\b|stattdessen\b))"
        # "Vergiss alles, was vorher gesagt wurde" (not "alles, was ich über das Budget gesagt habe")
        r"|\b(?:vergiss|vergesst|vergessen sie)\b (?:nun |jetzt |bitte |einfach )?alles,? (?:was|worüber) "
        r"(?:ich |du |wir |man )?(?:vorher |zuvor |bisher |oben |davor |bis jetzt )?(?:gesagt|besprochen|geschrieben|"
        r"erwähnt|gesprochen|gefragt) (?:wurde|worden ist|habe|hast|haben|hat)\b"
        # the question withdrawn for set words
        r"|\b(?:vergiss|vergessen sie|ignorier\w*)\b (?:die|diese|meine) (?:frage|aufgabe|anfrage)\b,? (?:und )?"
        r"(?:sag|schreib|antworte|gib)\w* (?:einfach |nur |stattdessen |bitte )*(?:mit )?[\"'‚„“]"
        r"|\b(?:vergiss|vergesst|vergessen sie|ignorier\w*)\b (?:nun |jetzt |bitte )?alle (?:vorherigen|bisherigen|"
        r"früheren|obigen) (?:informationen|aufgaben|anweisungen|befehle|texte)\b",
    ),
    _en(
        "new_tasks_follow_de",
        "kündigt neue Anweisungen an",
        r"\b(?:neue|weitere|die eigentlichen|deine neuen) (?:anweisungen|aufgaben|befehle|instruktionen) folgen\b"
        r"|\b(?:nun|jetzt|es) folgen (?:die |deine )?(?:neue|neuen|weitere|eigentlichen) "
        r"(?:anweisungen|aufgaben|befehle)\b",
    ),
    _en(
        "stop_obeying_de",
        "verlangt, die bisherigen Anweisungen nicht mehr zu befolgen",
        r"\b(?:befolge|befolgen sie|gehorche|gehorchen sie|folge|halte dich an|beachte|beachten sie|berücksichtige)\b "
        r"(?:\w+ ){0,3}?"
        r"(?:vorherigen|bisherigen|obigen|früheren|ursprünglichen|alten)? ?"
        r"(?:anweisungen|befehle|regeln|vorgaben|instruktionen)\b (?:\w+ )?"
        r"nicht mehr\b",
    ),
    _en(
        "reveal_own_secret_de",
        "verlangt das eigene Passwort oder Geheimnis des Assistenten",
        # asked of the assistant, to "me": "Geben Sie Ihr Passwort niemals weiter" in a policy is not
        r"\b(?:gib|geben sie|verrat\w*|nenn\w*|teil\w*|sag\w*|zeig\w*)\b (?:\w+ ){0,2}?(?:mir|uns) "
        r"(?:\w+ ){0,2}?(?:dein|ihr)(?:e|en|s)? "
        r"(?:passwort|kennwort|geheimnis|zugangsdaten|zugangscode|api-schlüssel)\b"
        r"|\b(?:mir|uns) (?:dein|ihr)(?:e|en|s)? (?:passwort|kennwort|geheimnis|zugangsdaten|zugangscode)\b "
        r"(?:\w+ ){0,2}?(?:geben|gibst|verraten|verrätst|nennen|nennst|teilen|teilst|sagen|sagst|zeigen|zeigst)\b"
        r"|\b(?:was|wie) (?:ist|lautet) (?:dein|ihr) (?:passwort|kennwort|geheimnis|zugangscode)\b",
    ),
    _en(
        "ignore_rest_of_input_de",
        "eine eingeschleuste Zeile verlangt, den Rest der Daten zu übergehen",
        r"\b(?:ignorier\w*|überspring\w*|übergeh\w*)\b (?:den )?rest (?:dieser|dieses|des|der) "
        r"(?:daten|textes|texts|dokuments|eingabe|e-mail|seite|nachricht)\b",
    ),
    _en(
        "reveal_own_setup_de",
        "verlangt die Anweisungen oder die Konfiguration, die der Assistent bekommen hat",
        r"\b(?:regeln|anweisungen|vorgaben|instruktionen),? die dir (?:der|die|dein|deine|ihr) "
        r"(?:entwickler\w*|betreiber\w*|ersteller\w*|admin\w*|hersteller\w*) "
        r"(?:gegeben|gesetzt|geschrieben|mitgegeben) (?:hat|haben)\b"
        r"|\b(?:prompt|anweisungen|konfiguration|systemanweisung),? mit (?:dem|der|denen) du "
        r"(?:konfiguriert|eingerichtet|programmiert|initialisiert|gestartet) (?:wurdest|worden bist)\b"
        r"|\b(?:zeig\w*|gib|nenn\w*|verrat\w*|sag\w*)\b[^.!?\n]{0,20}?\b(?:deinen|deine|dein) "
        r"(?:versteckten?|geheimen?|internen?|vertraulichen?) "
        r"(?:kontext|konfiguration|einstellungen|anweisungen|prompt)\b",
    ),
    _en(
        "disguised_secret_de",
        "verlangt das gehütete Passwort in verschleierter Form (buchstabiert, rückwärts, kodiert, als Rätsel)",
        r"(?:^|[.!?\n:] ?)(?!(?:wie|warum|wo|wann|ist|sind|kann ich|können wir|sollte)\b)[^.!?\n]*?"
        r"\b(?:das|dein|ihr|dieses|euer) (?:geheime\w* )?(?:passwort|kennwort|geheimwort|losungswort)\b"
        r"(?!-?(?:richtlinie|manager|regeln))[^.!?\n]{0,60}?"
        r"\b(?:rückwärts|umgekehrt\w*|buchstabe für buchstabe|buchstabier\w*|jeden buchstaben|leerzeichen zwischen|"
        r"anfangsbuchstaben|als rätsel|als gedicht|in base ?64|in (?:hex|binär|morsecode|pig latin))\b",
    ),
    _en(
        "speak_as_someone_de",
        "macht den Assistenten zu jemand anderem und lässt ihn als diese Person antworten",
        r"\b(?:du bist jetzt|jetzt bist du|du bist nun|nun bist du|ab jetzt bist du|ab sofort bist du)\b"
        # "jetzt bist du dran / angemeldet / fertig" is not a new identity
        r"(?! (?:dran|an der reihe|fertig|angemeldet|eingeloggt|online|bereit|sicher|dabei|zuständig)\b)"
        r"[^.!?\n]{1,40}?[.,:;!]? ?(?:und )?(?:(?:antworte|sprich|schreib|rede)\w* (?:wie|als) "
        r"(?:er|sie|ihn|diese person)\b|wie (?:beantwortest|antwortest|würdest|reagierst) du\b"
        r"|was (?:sagst|antwortest) du\b)",
    ),
    _en(
        "ignore_instructions_de",
        "verlangt, die bisherigen Anweisungen zu ignorieren",
        r"\b(?:ignorier\w*|vergiss|vergessen sie|missachte\w*|übergeh\w*|verwirf|umgeh\w*)\b(?! nicht) (?:\w+ ){0,3}?"
        r"(?:alle |sämtliche |die |deine |ihre |jegliche )?(?:vorherigen|bisherigen|obigen|früheren|ursprünglichen|"
        r"vorangegangenen|alten|gegebenen|erhaltenen)? ?(?:anweisungen|befehle|regeln|vorgaben|instruktionen|"
        r"richtlinien|einschränkungen|systemanweisungen)\b",
    ),
    _en(
        "reveal_system_prompt_de",
        "verlangt den Systemprompt oder die eigenen Anweisungen",
        # "Schreib mir einen Systemprompt für …" asks for a new one, not for the assistant's own
        r"\b(?:zeig\w*|gib|verrat\w*|nenn\w*|wiederhol\w*|druck\w*|schreib\w*|enthüll\w*)\b "
        r"(?:(?!(?:ein|einen|eine|einem|neue[nmrs]?|passende[nmrs]?)\b)\w+ ){0,3}?"
        r"(?:deinen |den |deine |die |ihre |ihren )?(?:vollständigen |versteckten |geheimen |ursprünglichen )?"
        r"(?:system-?prompt|systemanweisungen?|anfangsanweisungen|versteckten? anweisungen|"
        r"(?<=deine )(?:anweisungen|instruktionen)|(?<=ihre )(?:anweisungen|instruktionen))\b"
        # what the assistant's own instructions say ("Was steht in deinen ursprünglichen Instruktionen?")
        r"|\bwas (?:steht|stand) in (?:deinen (?:\w+ )?(?:anweisungen|instruktionen|vorgaben|systemanweisungen)|"
        r"ihren (?:\w+ )?(?:anweisungen|instruktionen|systemanweisungen)(?! (?:zu[mr]?|für|über)\b))\b",
    ),
    _en(
        "role_override_de",
        "versucht, die Rolle des Assistenten zu ersetzen",
        r"\b(?:ab sofort|ab jetzt|von nun an|ab heute)\b,? (?:bist du|du bist|gelten|antwortest du|hast du keine)\b"
        r"|\bneue anweisungen ?:|\b(?:dan|jailbreak)-?modus\b"
        r"|\bim (?:entwickler|dan|jailbreak)-?modus (?:antworten|antworte|antwortest|reden|sprechen|arbeiten)\b"
        r"|\bohne (?:jegliche |alle |irgendwelche )?(?:einschränkungen|regeln|filter|zensur) (?:antworten|antworte|"
        r"reden|sprechen|handeln)\b",
    ),
    # ---- Chinese (matched without whitespace)
    _ja(
        "ignore_instructions_zh",
        "要求忽略之前的指令",
        r"(?:忽略|无视|忽视|忘掉|忘记|不要理会|不用理会|抛开|丢弃)(?:掉)?(?:你)?[^，。！？,.!?]{0,4}?(?:之前|以前|上面|以上|"
        r"前面|先前|原来|原先|所有|全部|一切|系统|开发者)[^，。！？,.!?]{0,6}?"
        r"(?:指令|指示|命令|规则|提示|提示词|设定|要求|限制|约束)",
    ),
    _ja(
        "drop_what_came_before_zh",
        "要求忘掉之前说的一切",
        r"(?:忘掉|忘记|忽略|无视|不要管)(?:上面|之前|前面|以上|刚才)(?:说的|讲的|的)?(?:一切|所有内容|全部内容|所有|全部)",
    ),
    _ja(
        "speak_as_someone_zh",
        "让助手扮演某人并以其身份回答",
        r"(?:现在|从现在开始)?你(?:就)?是.{1,12}?[，,。：:].{0,6}?(?:用|以)(?:他|她|其|这个人)的(?:口吻|语气|身份|角度)"
        r"(?:回答|说话|回复|作答)",
    ),
    _ja(
        "stop_obeying_zh",
        "要求不再遵守之前的指令",
        r"不(?:要|用|必)再?(?:遵守|遵循|听从|服从|执行)(?:你)?(?:之前|以前|原来|原先|上面|最初)的?(?:指令|指示|规则|设定|要求|命令)",
    ),
    _ja(
        "reveal_own_secret_zh",
        "要求助手透露自己的密码或密钥",
        r"你的(?:密码|口令|密钥|秘钥|秘密|api密钥)(?:是什么|是多少|告诉我|发给我|给我)"
        r"|(?:告诉我|分享|透露|发给我|给我看|说出)(?:一下)?你的(?:密码|口令|密钥|秘钥|api密钥)",
    ),
    _ja(
        "reveal_own_setup_zh",
        "要求透露最初收到的指令或本消息之前的内容",
        r"你(?:最初|一开始|起初|最开始)(?:收到|得到|接收到|被给予)的(?:指令|指示|提示词?|规则|设定)(?:是什么|告诉我|原文)"
        r"|重复上面以[“\"「]?你是[”\"」]?开头的(?:文字|内容|文本|话)"
        r"|输出这条消息之前的(?:所有|全部)?(?:内容|文字|文本)",
    ),
    _ja(
        "disguised_secret_zh",
        "要求以变形的方式（倒着、逐个字母、编码、藏头诗）说出守护的密码",
        r"(?:把|将)?(?:你的|这个|那个)?(?:密码|口令|暗号)[^。？?]{0,20}?"
        r"(?:倒着|倒过来|反过来|逐个字母|一个字母一个字母|每个字母之间|用空格隔开|藏头诗|谜语|base64|编码后|加密后|用拼音)"
        r"[^。？?]{0,6}?(?:写出|说出|告诉|输出|发给|给我|写下|打出|拼出)"
        r"|藏头诗[^。]{0,15}?(?:密码|口令)",
    ),
    _ja(
        "ignore_rest_of_input_zh",
        "嵌入的指令要求忽略其余数据",
        r"(?:忽略|无视|跳过)(?:其余|剩下|剩余|后面|以下)的?(?:内容|数据|文本|文字|信息|邮件)",
    ),
    _ja(
        "reveal_system_prompt_zh",
        "要求泄露系统提示词",
        # a rule forbidding it (不得泄露…, 请勿…) does not ask for it, nor does a question on preventing it
        # (如何防止我的聊天机器人泄露系统提示词？): no such word earlier in the clause
        r"(?:^|[。！？?!，,；;:：])(?:(?!防止|避免|防范|阻止|杜绝|不让|以免|防泄)[^。！？?!，,；;:：]){0,30}?"
        r"(?<!不得)(?<!不要)(?<!不能)(?<!禁止)(?<!严禁)(?<!不可)(?<![不勿别])"
        r"(?:输出|显示|告诉我|透露|泄露|打印|重复|公开|给我看|展示|写出)(?:一下)?(?:你的|完整的|全部的|原始的|隐藏的)*"
        r"(?:系统提示词?|系统指令|初始指令|隐藏(?:的)?(?:指令|设置|提示)|开发者(?:的)?(?:指令|要求))"
        r"|你的(?:系统提示词?|初始指令)是什么",
    ),
    _ja(
        "role_override_zh",
        "试图改变助手的角色或解除限制",
        r"(?:从现在(?:开始|起)|从今以后|现在起)(?:，|,)?你(?:是|就是|将|要|没有|不再)"
        r"|(?:没有|不受|解除|去掉|取消)(?:任何|一切|所有)?(?:限制|约束|规则|审查)(?:的)?(?:ai|助手|模式|机器人|回答|地回答)"
        r"|(?:越狱|dan|上帝)模式|(?:开发者|越狱|dan)模式(?:下)?(?:回答|回复|运行|响应|说话|输出)|以(?:开发者|越狱|dan)模式",
    ),
    _ja(
        "decode_and_follow_ja",
        "ペイロードをデコードして従うよう求めている",
        r"(?:デコード|復号|base64).{0,40}?(?:従|実行|その通り|そのとおり|指示通り)",
        needs_payload=True,
    ),
)

#: an encoded-looking token ("decode this and follow it: aWdub3Jl...")
_PAYLOAD = re.compile(
    r"(?<![A-Za-z0-9+/=])(?=[A-Za-z0-9+/]*\d|[A-Za-z0-9+/]*[A-Z][A-Za-z0-9+/]*[a-z])"
    r"[A-Za-z0-9+/]{12,}={0,2}(?![A-Za-z0-9+/=])"
)
#: a run of base64 long enough to hide a sentence, decoded and checked like the text itself
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/=])[A-Za-z0-9+/]{24,}={0,2}(?![A-Za-z0-9+/=])")
#: what a payload that decodes to an injection is reported as
_BASE64_PAYLOAD = InjectionPattern("base64_payload", "hides instructions in a base64 payload", re.compile(r"(?!)"))


def decoded_payloads(text: str) -> list[str]:
    """Text hidden in base64 runs (printable UTF-8 only), so injections inside them are caught too."""
    out: list[str] = []
    for m in _BASE64.finditer(text):
        token = m.group(0)
        if not (re.search(r"[A-Z]", token) and re.search(r"[a-z]", token)):
            continue  # hex digests and plain words are not base64 payloads
        try:
            raw = base64.b64decode(token + "=" * (-len(token) % 4), validate=True)
            decoded = raw.decode("utf-8")
        except (binascii.Error, ValueError):
            continue
        if decoded and sum(ch.isprintable() or ch.isspace() for ch in decoded) / len(decoded) > 0.95:
            out.append(decoded)
    return out


def find_injection(text: str) -> InjectionPattern | None:
    """The first curated pattern the text matches (also inside base64 payloads), or None."""
    flat = normalise(text)
    tight = squeeze(text)
    for p in INJECTION_PATTERNS:
        if p.regex.search(tight if p.squeezed else flat) and (not p.needs_payload or _PAYLOAD.search(text)):
            return p
    for payload in decoded_payloads(text):
        if find_injection(payload) is not None:
            return _BASE64_PAYLOAD
    return None
