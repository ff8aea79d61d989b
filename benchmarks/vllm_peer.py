"""vLLM's offline engine on the benchmark's prompts: run by benchmarks/choice_engine.py with the
vLLM environment's Python (`make setup-vllm`), one dtype per process.

Reads {"dtype": ..., "repeats": R, "requests": [[prompt, [choices...]], ...]} as JSON on stdin,
answers every request through the package's vllm backend (the embedded SmolLM2, eager, one
LLM.chat for all, prefix caching on) R times after a warm-up batch of other prompts, and prints
{"answers": [...], "rate": the median prompts per second} on the stdout line that starts with
MARK. Prefix caching is on, as a user runs it; the cache is emptied before each timed run, as the
engine keeps nothing between batches.
"""

from __future__ import annotations

import json
import statistics
import sys
import time

from hiremeornot.asking.backends import Request, load_backend
from hiremeornot.config import model_settings

MODEL = "embedded:smollm2-135m-instruct"
MARK = "vllm_peer result: "  # vLLM logs to stdout too, before and after the result


def main() -> None:
    job = json.load(sys.stdin)
    settings = {"backend": "vllm", "model": MODEL, "dtype": job["dtype"]}
    settings |= {"gpu_memory_utilization": 0.2, "max_model_len": 2048, "enforce_eager": True}
    backend = load_backend("vllm", model_settings(settings))
    requests = [Request(prompt, tuple(choices)) for prompt, choices in job["requests"]]
    # the answer spaces' grammars compile once, on prompts that share no prefix with the rest
    backend.answer([Request(f"Warm-up. {r.prompt}", r.choices) for r in requests[:2]])
    rates = []
    for _ in range(job["repeats"]):
        backend.llm.reset_prefix_cache()
        started = time.perf_counter()
        answers = [response.answer for response in backend.answer(requests)]
        rates.append(len(requests) / (time.perf_counter() - started))
    print(MARK + json.dumps({"answers": answers, "rate": statistics.median(rates)}), flush=True)


if __name__ == "__main__":
    main()
