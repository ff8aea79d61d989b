"""How a chat-completions request is held to the answer space: one class per ``constraint``.

- ``json_schema``: ``response_format`` with a strict JSON schema whose only property is an enum of
  the choices (OpenAI models with structured outputs, vLLM serve, llama.cpp);
- ``structured_outputs``: vLLM serve's ``extra_body={"structured_outputs": {"choice": [...]}}``
  (its old ``guided_choice`` field is silently ignored by vLLM 0.33);
- ``grammar``: llama.cpp's ``extra_body={"grammar": GBNF}``, an alternation of the choices;
- ``tool``: strict function calling, one function whose only argument is an enum of the choices
  (models without json_schema, such as gpt-3.5-turbo; no log-probabilities);
- ``logit_bias``: one token, with a +100 bias on each choice's first token and the top
  log-probabilities (gpt-3.5-turbo; needs the model's tokenizer, and choices whose first
  tokens differ). The model picks the choice whose usual first token it ranks highest: greedy
  constrained decoding for one-token choices; for longer ones greedy decoding may also start a
  choice with a shorter token ("A" of "Andrew"), which this cannot.
"""

from __future__ import annotations

import json
import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from scipy.special import log_softmax

from hiremeornot.asking.backends.location import locate_model
from hiremeornot.asking.backends.openai.settings import OpenAISettings
from hiremeornot.asking.backends.token_logprobs import GeneratedToken, choice_logprobs
from hiremeornot.errors import InputError, whole_message

Choices = tuple[str, ...]
Parsed = tuple[str, tuple[float, ...]]


def reply_tokens(reply: Any) -> list[GeneratedToken]:
    """A reply choice's tokens with their top alternatives (none without log-probabilities)."""
    tokens = getattr(getattr(reply, "logprobs", None), "content", None) or []
    return [
        GeneratedToken(t.token, t.logprob, {a.token: a.logprob for a in t.top_logprobs or []})
        for t in tokens
    ]


def answer_schema(choices: Choices) -> dict[str, Any]:
    """A JSON object with one property, ``answer``, that must be one of the choices."""
    return {
        "type": "object",
        "properties": {"answer": {"type": "string", "enum": list(choices)}},
        "required": ["answer"],
        "additionalProperties": False,
    }


def json_answer(text: str | None) -> str:
    """The ``answer`` of a JSON object; ValueError if the text is not such an object."""
    try:
        return str(json.loads(text or "")["answer"])
    except (ValueError, KeyError, TypeError):
        raise ValueError(f"malformed JSON answer {str(text)[:80]!r}") from None


class Constraint(ABC):
    """Extra request arguments for an answer space, and the reading of the reply."""

    json_wrapped = False  # the reply spells the answer inside a JSON object

    @abstractmethod
    def arguments(self, choices: Choices) -> dict[str, Any]:
        """Arguments added to the chat-completions request."""

    def answer_text(self, reply: Any) -> str:
        content = reply.message.content
        if content is None:
            raise ValueError("the reply has no content")
        return json_answer(content) if self.json_wrapped else content.strip()

    def parse(self, reply: Any, choices: Choices) -> Parsed:
        """(answer text, per-choice log-probabilities); ValueError if the reply is malformed."""
        answer = self.answer_text(reply)
        return answer, choice_logprobs(reply_tokens(reply), choices, answer)


class JsonSchema(Constraint):
    json_wrapped = True

    def arguments(self, choices: Choices) -> dict[str, Any]:
        schema = {"name": "answer", "strict": True, "schema": answer_schema(choices)}
        return {"response_format": {"type": "json_schema", "json_schema": schema}}


class StructuredOutputs(Constraint):
    def arguments(self, choices: Choices) -> dict[str, Any]:
        return {"extra_body": {"structured_outputs": {"choice": list(choices)}}}


class Grammar(Constraint):
    def arguments(self, choices: Choices) -> dict[str, Any]:
        alternatives = " | ".join(json.dumps(choice, ensure_ascii=False) for choice in choices)
        return {"extra_body": {"grammar": f"root ::= {alternatives}"}}


class Tool(Constraint):
    json_wrapped = True

    def arguments(self, choices: Choices) -> dict[str, Any]:
        function = {
            "name": "answer",
            "description": "Give the answer.",
            "strict": True,
            "parameters": answer_schema(choices),
        }
        return {
            "tools": [{"type": "function", "function": function}],
            "tool_choice": {"type": "function", "function": {"name": "answer"}},
        }

    def answer_text(self, reply: Any) -> str:
        calls = reply.message.tool_calls or []
        if not calls:
            raise ValueError("the reply calls no function")
        return json_answer(calls[0].function.arguments)

    def parse(self, reply: Any, choices: Choices) -> Parsed:
        return self.answer_text(reply), tuple(math.nan for _ in choices)


class LogitBias(Constraint):
    """One token; each choice's first token gets a +100 bias, so the model picks among them."""

    def __init__(self, tokenizer: str):
        self.encode, self.decode = load_tokenizer(tokenizer)
        self._first: dict[Choices, dict[str, int]] = {}

    def first_tokens(self, choices: Choices) -> dict[str, int]:
        """Each choice's first token id; an error if two choices start with the same token."""
        if choices not in self._first:
            first = {choice: self.encode(choice)[0] for choice in choices}
            if len(set(first.values())) < len(first):
                raise ValueError(
                    f"the choices {list(choices)} do not all start with different tokens, "
                    "so one token cannot tell them apart; use constraint: tool"
                )
            self._first[choices] = first
        return self._first[choices]

    def arguments(self, choices: Choices) -> dict[str, Any]:
        bias = {str(token): 100 for token in self.first_tokens(choices).values()}
        return {"max_tokens": 1, "logit_bias": bias}

    def parse(self, reply: Any, choices: Choices) -> Parsed:
        """The choice whose first token was generated; log-probs renormalised over the choices.

        With the same bias on every choice, the renormalised first-token log-probabilities are
        the model's own relative ones (exact for one-token choices, the first token's share
        otherwise). If a choice's first token is not among the top alternatives, no
        renormalisation is possible: all are NaN.
        """
        tokens = reply_tokens(reply)
        if not tokens:
            raise ValueError("the reply has no token log-probabilities")
        seen = {**tokens[0].alternatives, tokens[0].text: tokens[0].logprob}
        texts = {choice: self.decode(token) for choice, token in self.first_tokens(choices).items()}
        answer = next((c for c in choices if texts[c] == tokens[0].text), tokens[0].text)
        raw = [seen.get(texts[choice], math.nan) for choice in choices]
        if any(math.isnan(value) for value in raw):
            return answer, tuple(math.nan for _ in choices)
        return answer, tuple(map(float, log_softmax(raw)))


def load_tokenizer(name: str) -> tuple[Callable[[str], list[int]], Callable[[int], str]]:
    """(encode, decode one token) of ``tiktoken:ENCODING`` or a transformers tokenizer."""
    if name.startswith("tiktoken:"):
        try:
            import tiktoken

            encoding = tiktoken.get_encoding(name.removeprefix("tiktoken:"))
        except Exception as exc:  # not installed, unknown name, or its vocabulary not fetched
            raise InputError(f"tokenizer {name!r} cannot be loaded: {whole_message(exc)}") from None
        return encoding.encode, lambda token: encoding.decode([token])
    from transformers import AutoTokenizer

    folder, gguf_file = locate_model(name, None)
    kwargs = {"gguf_file": gguf_file} if gguf_file else {}
    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, **kwargs)
    except (OSError, ValueError) as exc:  # not in the local cache, not a tokenizer folder
        hint = "" if "/" in name else " (an OpenAI model's encoding is written tiktoken:NAME)"
        raise InputError(
            f"tokenizer {name!r} cannot be loaded{hint}: {whole_message(exc)}"
        ) from None
    return (
        lambda text: tokenizer(text, add_special_tokens=False)["input_ids"],
        lambda token: tokenizer.decode([token]),
    )


def make_constraint(settings: OpenAISettings) -> Constraint:
    """The constraint a model's settings name."""
    name = settings.constraint
    simple = {
        "json_schema": JsonSchema,
        "structured_outputs": StructuredOutputs,
        "grammar": Grammar,
        "tool": Tool,
    }
    if name in simple:
        return simple[name]()
    if name == "logit_bias":
        if not settings.tokenizer:
            raise InputError(
                f"model {settings.model!r}: constraint logit_bias needs a tokenizer "
                "(e.g. tiktoken:cl100k_base for gpt-3.5-turbo)"
            )
        return LogitBias(settings.tokenizer)
    raise InputError(f"model {settings.model!r}: unknown constraint {name!r}")
