"""Batched constrained choice for local causal LMs: one prefill per prompt, a few cached steps.

Greedy mode reproduces outlines' greedy constrained decoding: at every step the allowed tokens
are those whose text continues some choice (every tokenization of a choice is allowed, as in
outlines' regex index), end-of-sequence is allowed once the text is a whole choice, and the
highest-scoring allowed token is taken. Likelihood mode answers with the choice of highest total
log-probability. Both modes return the log-probability of every choice (its canonical
tokenization), computed from the same prefill by expanding the KV cache once per choice.

The prefill walks the batch's prefix tree, so a run of tokens shared by several prompts (the
system prompt, C_base, an attribute's definition) is computed once; batches of prompts sorted by
text share the most.
"""

from __future__ import annotations

import copy
import math
import os
from collections.abc import Sequence
from functools import lru_cache

import torch

MODES = ("greedy", "likelihood")
SPIECE_UNDERLINE = "\u2581"
# a forward pass's fixed cost in tokens of one row (level_width): on 2 cores a pass of B rows of
# w tokens took about (90 + B w) token-times in float32, (115 + B w) in bfloat16 (measured)
FORWARD_TOKENS = 96


def token_text(tokenizer, token: str) -> str:
    """A vocabulary token's text as outlines sees it (SentencePiece's leading space kept)."""
    text = tokenizer.convert_tokens_to_string([token])
    return " " + text if token.startswith(SPIECE_UNDERLINE) or token == "<0x20>" else text


def token_strings(tokenizer) -> dict[str, list[int]]:
    """Each token's text as outlines sees it, without EOS."""
    strings: dict[str, list[int]] = {}
    for token, token_id in tokenizer.get_vocab().items():
        if token_id != tokenizer.eos_token_id:
            strings.setdefault(token_text(tokenizer, token), []).append(token_id)
    return strings


class ChoiceTrie:
    """Which tokens may follow a generated text so that it stays a prefix of some choice."""

    def __init__(self, strings: dict[str, list[int]]):
        self.strings = strings

    @lru_cache(maxsize=65536)  # noqa: B019 - one trie per backend, bounded
    def allowed(self, choices: tuple[str, ...], text: str) -> tuple[tuple[int, ...], bool]:
        """(token ids that keep ``text`` a prefix of a choice, whether the text is complete)."""
        ids: set[int] = set()
        for choice in choices:
            if choice.startswith(text):
                rest = choice[len(text) :]
                for end in range(1, len(rest) + 1):
                    ids.update(self.strings.get(rest[:end], ()))
        return tuple(sorted(ids)), text in choices


class ChoiceEngine:
    """Answers (prompt token ids, choices) batches with one shared KV cache."""

    def __init__(self, model, tokenizer, mode: str):
        if mode not in MODES:
            raise ValueError(f"unknown decoding mode {mode!r}; known: {MODES}")
        self.model = model
        self.tokenizer = tokenizer
        self.mode = mode
        self.trie = ChoiceTrie(token_strings(tokenizer))
        self.eos = tokenizer.eos_token_id
        self.pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else self.eos

    def _forward(self, ids, mask, positions, cache, keep: int = 0):
        """Logits of the last ``keep`` positions (0: all) and the updated KV cache."""
        device = self.model.device
        output = self.model(
            input_ids=ids.to(device),
            attention_mask=mask.to(device),
            position_ids=positions.to(device),
            cache=cache,
            use_cache=True,
            logits_to_keep=keep,
        )
        return output.logits.float().cpu(), output.cache

    @torch.inference_mode()
    def answer(
        self, prompts: Sequence[list[int]], choices: Sequence[tuple[str, ...]]
    ) -> list[tuple[str, tuple[float, ...]]]:
        """(answer, log-probability of each choice) for each prompt."""
        logits, cache, mask = self._prefill(prompts)
        first = torch.log_softmax(logits, dim=-1)
        scores = self._choice_logprobs(first, cache, mask, choices)
        if self.mode == "likelihood":
            answers = [
                c[max(range(len(c)), key=s.__getitem__)]
                for c, s in zip(choices, scores, strict=True)
            ]
        else:
            answers = self._greedy(logits, cache, mask, choices)
        return list(zip(answers, scores, strict=True))

    def _prefill(self, prompts: Sequence[list[int]]):
        """Run the prompts through their prefix tree: every shared run of tokens is computed once.

        Level by level, each tree node's own tokens are appended (left-padded, so that they all
        end in the last column) to a copy of its parent's KV cache. A prompt that ends at a node
        takes that node's cache row; the rows are finally right-padded to one length (masked).
        Returns each prompt's last-position logits, the KV cache and the attention mask.
        """
        seqs = [list(p) for p in prompts]
        nodes = [_Node(parent=0, start=0, end=0, members=list(range(len(seqs))))]
        cache, mask = None, torch.zeros((1, 0), dtype=torch.long)
        finished: list[tuple[list[int], list, torch.Tensor, torch.Tensor]] = []
        while nodes := [
            child for index, node in enumerate(nodes) for child in node.split(seqs, index)
        ]:
            width = level_width(tuple(sorted(node.end - node.start for node in nodes)))
            for node in nodes:  # the rest of a longer run is the next level's only child
                node.end = min(node.end, node.start + width)
            parents = torch.tensor([node.parent for node in nodes])
            if cache is not None:
                cache.reorder_cache(parents.to(self.model.device))
            edges = [seqs[node.members[0]][node.start : node.end] for node in nodes]
            ids = torch.tensor([[self.pad] * (width - len(e)) + e for e in edges])
            edge_mask = torch.tensor([[0] * (width - len(e)) + [1] * len(e) for e in edges])
            mask = torch.cat([mask[parents], edge_mask], dim=1)
            positions = (mask.cumsum(-1) - 1).clamp(min=0)[:, -width:]
            logits, cache = self._forward(ids, mask, positions, cache, keep=1)
            ending = [(m, row) for row, node in enumerate(nodes) for m in node.ending(seqs)]
            if ending:
                rows = torch.tensor([row for _, row in ending])
                states = [
                    (
                        layer.keys.index_select(0, rows.to(layer.keys.device)),
                        layer.values.index_select(0, rows.to(layer.keys.device)),
                    )
                    for layer in cache.layers
                ]
                finished.append(([m for m, _ in ending], states, mask[rows], logits[rows, -1]))
        return _merge(finished, len(seqs))

    def _greedy(self, last_logits, cache, mask, choices) -> list[str]:
        """outlines' greedy constrained decoding, continuing the prefill's cache."""
        texts = [""] * len(choices)
        done = [False] * len(choices)
        logits = last_logits
        while True:
            step_tokens = []
            for row, row_choices in enumerate(choices):
                token = self.pad
                if not done[row]:
                    allowed, complete = self.trie.allowed(row_choices, texts[row])
                    candidates = list(allowed) + ([self.eos] if complete else [])
                    if len(candidates) == 0:
                        raise RuntimeError(f"no token continues {texts[row]!r} in {row_choices}")
                    token = candidates[int(torch.argmax(logits[row, candidates]))]
                    if token == self.eos:
                        done[row] = True
                        token = self.pad
                    else:
                        texts[row] += self._text(token)
                        # a complete text with nothing left to add ends without another step
                        if self.trie.allowed(row_choices, texts[row]) == ((), True):
                            done[row] = True
                step_tokens.append(token)
            if all(done):
                return texts
            mask = torch.cat([mask, torch.tensor([[0 if d else 1] for d in done])], dim=1)
            positions = (mask.cumsum(-1) - 1)[:, -1:]
            ids = torch.tensor(step_tokens)[:, None]
            step_logits, cache = self._forward(ids, mask, positions, cache)
            logits = step_logits[:, -1]

    @lru_cache(maxsize=65536)  # noqa: B019 - one engine per backend, bounded
    def _text(self, token: int) -> str:
        return token_text(self.tokenizer, self.tokenizer.convert_ids_to_tokens(token))

    @lru_cache(maxsize=65536)  # noqa: B019 - one engine per backend, bounded
    def _tokens(self, choice: str) -> tuple[int, ...]:
        return tuple(self.tokenizer(choice, add_special_tokens=False)["input_ids"])

    def answer_mass(self, choices: Sequence[str], scores: Sequence[float]) -> float:
        """The probability of the answer space before the constraint, from the choices' scores:
        the sum of their probabilities, a choice whose tokens extend another choice's left out
        (the shorter one's probability holds it). A lower bound: other tokenizations of a
        choice are not counted."""
        tokens = [self._tokens(choice) for choice in choices]
        kept = [
            score
            for own, score in zip(tokens, scores, strict=True)
            if not any(other != own and own[: len(other)] == other for other in tokens)
        ]
        return min(1.0, math.fsum(math.exp(score) for score in kept))

    def _choice_logprobs(self, first, cache, mask, choices) -> list[tuple[float, ...]]:
        """Sum of token log-probabilities of each choice; longer choices reuse the prefill cache."""
        scores = [
            [float(first[row, self._tokens(c)[0]]) for c in cs] for row, cs in enumerate(choices)
        ]
        longer = [
            (row, k, self._tokens(c))
            for row, cs in enumerate(choices)
            for k, c in enumerate(cs)
            if len(self._tokens(c)) > 1
        ]
        if not longer:
            return [tuple(s) for s in scores]
        rows = torch.tensor([row for row, _, _ in longer])
        expanded = _select_rows(cache, rows)
        length = max(len(tokens) - 1 for _, _, tokens in longer)
        ids = torch.tensor(
            [list(t[:-1]) + [self.pad] * (length - len(t) + 1) for _, _, t in longer]
        )
        tail = torch.tensor(
            [[1] * (len(t) - 1) + [0] * (length - len(t) + 1) for _, _, t in longer]
        )
        full_mask = torch.cat([mask[rows], tail], dim=1)
        positions = (full_mask.cumsum(-1) - 1).clamp(min=0)[:, -length:]
        logits, _ = self._forward(ids, full_mask, positions, expanded)
        logprobs = torch.log_softmax(logits, dim=-1)
        for index, (row, k, tokens) in enumerate(longer):
            scores[row][k] += sum(
                float(logprobs[index, j, token]) for j, token in enumerate(tokens[1:])
            )
        return [tuple(s) for s in scores]


@lru_cache(maxsize=4096)
def level_width(lengths: tuple[int, ...]) -> int:
    """How many tokens of each node's run (``lengths``, sorted) one forward pass computes.

    Every row of a pass is padded to its width, so runs of unequal length waste compute; a run
    longer than the width is cut and its rest computed in the next pass. The width minimizes the
    padded tokens of this pass and of the passes the cut rests need, each pass counted
    FORWARD_TOKENS tokens more for its fixed cost."""
    return min(sorted(set(lengths)), key=lambda width: _padded_cost(lengths, width))


def _padded_cost(lengths: tuple[int, ...], width: int) -> int:
    rests = tuple(length - width for length in lengths if length > width)
    later = _padded_cost(rests, level_width(rests)) if rests else 0
    return len(lengths) * width + FORWARD_TOKENS + later


def _select_rows(cache, rows: torch.Tensor):
    """A copy of the KV cache holding the given batch rows (repeats allowed)."""
    expanded = copy.deepcopy(cache)
    expanded.reorder_cache(rows.to(cache.layers[0].keys.device))
    return expanded


class _Node:
    """A node of the batch's prefix tree: the tokens [start, end) shared by its member prompts."""

    def __init__(self, parent: int, start: int, end: int, members: list[int]):
        self.parent, self.start, self.end, self.members = parent, start, end, members

    def ending(self, seqs: list[list[int]]) -> list[int]:
        """The member prompts that end with this node."""
        return [m for m in self.members if len(seqs[m]) == self.end]

    def split(self, seqs: list[list[int]], index: int) -> list[_Node]:
        """The children: one per distinct next token among the members that go on."""
        groups: dict[int, list[int]] = {}
        for member in self.members:
            if len(seqs[member]) > self.end:
                groups.setdefault(seqs[member][self.end], []).append(member)
        return [
            _Node(
                index,
                self.end,
                self.end + len(os.path.commonprefix([seqs[m][self.end :] for m in group])),
                group,
            )
            for group in groups.values()
        ]


def _merge(finished, rows: int):
    """One batch from the prompts' finished cache rows: right-padded with masked zeros, in order."""
    from transformers import DynamicCache

    order = [m for members, _, _, _ in finished for m in members]
    width = max(mask.shape[1] for _, _, mask, _ in finished)
    position = torch.tensor(sorted(range(rows), key=order.__getitem__))
    mask = torch.cat(
        [torch.nn.functional.pad(m, (0, width - m.shape[1])) for _, _, m, _ in finished]
    )
    logits = torch.cat([last for _, _, _, last in finished])
    cache = DynamicCache()
    for layer, _ in enumerate(finished[0][1]):
        keys, values = (
            torch.cat(
                [
                    torch.nn.functional.pad(states[layer][k], (0, 0, 0, width - m.shape[1]))
                    for _, states, m, _ in finished
                ]
            ).index_select(0, position.to(finished[0][1][layer][k].device))
            for k in (0, 1)
        )
        cache.update(keys, values, layer)
    return logits[position], cache, mask[position]
