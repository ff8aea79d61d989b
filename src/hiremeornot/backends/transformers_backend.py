"""Local models through transformers, with outlines constraining the answer to the choices.

The answer is outlines' greedy constrained decoding (what the paper used). The log-probability
of each choice is the sum of the log-probabilities of its tokens (its own tokenization, appended
to the templated prompt), computed in one extra batched forward pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from hiremeornot.backends.base import Backend, BackendError, Request, Response
from hiremeornot.backends.location import model_location

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


class TransformersBackend(Backend):
    """A causal language model run by transformers on CPU or GPU."""

    def __init__(self, settings: dict[str, Any]):
        import outlines
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.settings = settings
        self.batch_size = settings.get("batch_size", 16)
        location, gguf_file = model_location(settings)
        kwargs = {"gguf_file": gguf_file} if gguf_file else {}
        self.tokenizer = AutoTokenizer.from_pretrained(location, **kwargs)
        self.model = AutoModelForCausalLM.from_pretrained(
            location, dtype=DTYPES[settings.get("dtype", "float32")], **kwargs
        ).to(settings.get("device", "cpu"))
        self.model.eval()
        self._outlines_model = outlines.from_transformers(self.model, self.tokenizer)
        self._generators: dict[tuple[str, ...], Any] = {}

    def _messages(self, prompt: str) -> list[dict[str, str]]:
        system = self.settings.get("system_prompt")
        head = [{"role": "system", "content": system}] if system is not None else []
        return [*head, {"role": "user", "content": prompt}]

    def _generator(self, choices: tuple[str, ...]):
        if choices not in self._generators:
            import outlines
            from outlines.types import Choice

            self._generators[choices] = outlines.Generator(
                self._outlines_model, Choice(list(choices))
            )
        return self._generators[choices]

    def _generate(self, requests: Sequence[Request]) -> list[str]:
        from outlines.inputs import Chat

        answers: list[str] = [""] * len(requests)
        by_choices: dict[tuple[str, ...], list[int]] = {}
        for index, request in enumerate(requests):
            by_choices.setdefault(request.choices, []).append(index)
        for choices, indices in by_choices.items():
            chats = [Chat(self._messages(requests[i].prompt)) for i in indices]
            longest = max(len(choice) for choice in choices) + 1
            outputs = self._generator(choices).batch(chats, max_new_tokens=longest)
            for index, output in zip(indices, outputs, strict=True):
                answers[index] = output
        return answers

    def _prompt_ids(self, prompt: str) -> list[int]:
        text = self.tokenizer.apply_chat_template(
            self._messages(prompt), tokenize=False, add_generation_prompt=True
        )
        return self.tokenizer(text)["input_ids"]

    @torch.inference_mode()
    def _next_token_logprobs(self, sequences: list[list[int]], keep: int) -> torch.Tensor:
        """Log-softmax of the next-token logits after each of the last ``keep`` prefixes.

        Sequences are left-padded so that they all end at the same position.
        """
        width = max(len(s) for s in sequences)
        pad = self.tokenizer.pad_token_id or 0
        ids = torch.tensor([[pad] * (width - len(s)) + s for s in sequences])
        mask = torch.tensor([[0] * (width - len(s)) + [1] * len(s) for s in sequences])
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        device = self.model.device
        logits = self.model(
            input_ids=ids.to(device),
            attention_mask=mask.to(device),
            position_ids=positions.to(device),
            logits_to_keep=keep,
        ).logits
        return torch.log_softmax(logits.float(), dim=-1).cpu()

    def _choice_logprobs(self, requests: Sequence[Request]) -> list[tuple[float, ...]]:
        """Sum of the token log-probabilities of each choice after each templated prompt.

        When every choice of a request is one token, the prompt alone is run and the choices
        are read off its next-token distribution; otherwise each prompt + choice is run.
        """
        sequences: list[list[int]] = []
        # per request, per choice: (sequence index, tail length, choice token ids)
        readouts: list[list[tuple[int, int, list[int]]]] = []
        for request in requests:
            prompt_ids = self._prompt_ids(request.prompt)
            tokens = [
                self.tokenizer(c, add_special_tokens=False)["input_ids"] for c in request.choices
            ]
            if all(len(t) == 1 for t in tokens):
                sequences.append(prompt_ids)
                readouts.append([(len(sequences) - 1, 0, t) for t in tokens])
            else:
                row = []
                for t in tokens:
                    sequences.append(prompt_ids + t)
                    row.append((len(sequences) - 1, len(t), t))
                readouts.append(row)
        keep = 1 + max(tail for row in readouts for _, tail, _ in row)
        logprobs = self._next_token_logprobs(sequences, keep)
        last = keep - 1
        return [
            tuple(
                sum(float(logprobs[seq, last - tail + j, token]) for j, token in enumerate(tokens))
                for seq, tail, tokens in row
            )
            for row in readouts
        ]

    def answer(self, requests: Sequence[Request]) -> list[Response]:
        answers = self._generate(requests)
        logprobs = self._choice_logprobs(requests)
        for request, answer in zip(requests, answers, strict=True):
            if answer not in request.choices:
                raise BackendError(
                    f"model {self.settings['model']!r} answered {answer!r}, outside the answer "
                    f"space {list(request.choices)} of the prompt {request.prompt[:80]!r}..."
                )
        return [Response(a, lp) for a, lp in zip(answers, logprobs, strict=True)]
