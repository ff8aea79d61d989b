"""Tiny randomly initialised models with byte-level BPE tokenizers trained on given sentences.

Built on the fly (no model hub): a RoBERTa for extractive QA and a Llama chat model.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import torch

CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def byte_level_bpe(corpus: Sequence[str], specials: Sequence[str]):
    """A byte-level BPE (tokenizers.Tokenizer) trained on ``corpus``."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=1000,
        special_tokens=list(specials),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator(corpus, trainer)
    return bpe


def tiny_roberta_qa(folder: Path, corpus: Sequence[str], seed: int = 0) -> Path:
    """Save a tiny RobertaForQuestionAnswering and its tokenizer to ``folder``."""
    from tokenizers import processors
    from transformers import RobertaConfig, RobertaForQuestionAnswering, RobertaTokenizerFast

    bpe = byte_level_bpe(corpus, ["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
    bpe.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0), trim_offsets=True)
    config = RobertaConfig(
        vocab_size=bpe.get_vocab_size(),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=514,  # as RoBERTa-large: 512 tokens after the padding offset
        pad_token_id=1,
    )
    torch.manual_seed(seed)
    RobertaTokenizerFast(tokenizer_object=bpe, model_max_length=512).save_pretrained(folder)
    RobertaForQuestionAnswering(config).save_pretrained(folder)
    return folder


def tiny_llama_chat(
    folder: Path, corpus: Sequence[str], seed: int = 0, hidden_size: int = 64
) -> Path:
    """Save a tiny LlamaForCausalLM (4 attention heads, 2 key-value heads, each
    ``hidden_size`` / 4 wide) and a ChatML tokenizer to ``folder``."""
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    bpe = byte_level_bpe(corpus, ["<|im_start|>", "<|im_end|>", "<pad>"])
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe,
        bos_token="<|im_start|>",
        eos_token="<|im_end|>",
        pad_token="<pad>",
        chat_template=CHATML,
    )
    config = LlamaConfig(
        vocab_size=bpe.get_vocab_size(),
        hidden_size=hidden_size,
        intermediate_size=2 * hidden_size,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        bos_token_id=0,
        eos_token_id=1,
        pad_token_id=2,
    )
    torch.manual_seed(seed)
    tokenizer.save_pretrained(folder)
    LlamaForCausalLM(config).save_pretrained(folder)
    return folder
