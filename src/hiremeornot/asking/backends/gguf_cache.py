"""GGUF weights converted once into transformers' own format, so later loads take a second.

transformers reads a GGUF file by dequantizing every tensor and rebuilding the tokenizer from the
file's vocabulary: about 35 s for the embedded SmolLM2 on 2 cores, paid by every model job. The
first load writes the result (float32 weights as safetensors, the fast tokenizer with its chat
template) under the cache folder, named by the GGUF file's SHA-256 and the transformers version;
later loads read that folder. The weights and tokens are the same (a test compares the logits).
Concurrent jobs may both convert; each writes a private folder and renames it into place, and
the loser's copy is discarded.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

CACHE_ENV = "HIREMEORNOT_CACHE"
DONE = "converted"


def cache_root() -> Path:
    """$HIREMEORNOT_CACHE, else $XDG_CACHE_HOME/hiremeornot, else ~/.cache/hiremeornot."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "hiremeornot"


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()


def converted(folder: str, gguf_file: str) -> Path:
    """The folder holding ``folder/gguf_file`` in transformers' format, converting it first if
    the cache does not have it yet."""
    import transformers

    source = Path(folder) / gguf_file
    key = f"{_digest(source)[:16]}-transformers-{transformers.__version__}"
    target = cache_root() / "gguf" / f"{source.stem}-{key}"
    if (target / DONE).is_file():
        return target
    partial = target.with_name(f"{target.name}.partial-{os.getpid()}")
    _convert(source, partial)
    try:
        os.replace(partial, target)
    except OSError:  # another job put its copy there first
        shutil.rmtree(partial, ignore_errors=True)
    return target


def _convert(source: Path, out: Path) -> None:
    """Dequantize ``source`` to float32 safetensors and save its tokenizer into ``out``."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(source.parent, gguf_file=source.name)
    model = AutoModelForCausalLM.from_pretrained(
        source.parent, gguf_file=source.name, dtype=torch.float32
    )
    # the weights are dequantized already: drop the GGUF marker that forbids saving them
    model.hf_quantizer = None
    model.is_quantized = False
    del model.config.quantization_config
    shutil.rmtree(out, ignore_errors=True)
    tokenizer.save_pretrained(out)
    model.save_pretrained(out)
    (out / DONE).write_text(f"{source}\n")
