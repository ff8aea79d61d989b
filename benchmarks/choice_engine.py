"""Constrained choice on the embedded model: outlines one at a time, outlines .batch, the engine
(float32 and bfloat16), and vLLM's offline engine for CPUs (float32 and bfloat16) as peers.

Runs the same N Step-1 (Yes/No) and N Step-3 (Q2, Q3) prompts through each method in one run and
prints prompts per second (the median of --repeats timings), the speed-up ratios, the engine's
ratio over each vLLM dtype, and every method's agreement with outlines (float32). Each answer
the engine's bfloat16 gives unlike float32 is listed with float32's probability margin (its
answer's probability minus the bfloat16 answer's, over the answer space). vLLM runs in its own
environment (`make setup-vllm`, .venv-vllm), one process per dtype (benchmarks/vllm_peer.py), all
of a question kind in one LLM.chat; without that environment its rows are left out, saying so.

Usage: .venv/bin/python benchmarks/choice_engine.py [--n 48] [--batch-size 32] [--repeats 3]
       [--vllm-venv DIR]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import time
from pathlib import Path

import yaml
from vllm_peer import MARK

from hiremeornot.asking.backends import Request, load_backend
from hiremeornot.asking.backends.transformers_backend import OutlinesChoice
from hiremeornot.config import model_settings, validate_config
from hiremeornot.design.contrasts import GENDER, GENDER_CONTRAST, contrast_pairs
from hiremeornot.design.dataset import build_instances
from hiremeornot.design.prompts import PAPER, PromptRenderer, wordings
from hiremeornot.design.questions import (
    granted_attributes,
    step1_questions,
    step1_rows,
    step3_questions,
)
from hiremeornot.inputs.names import read_name_list
from hiremeornot.inputs.occupations import select_occupations
from hiremeornot.inputs.onet import extract_attributes

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
MODEL = "embedded:smollm2-135m-instruct"


def prompts(n: int) -> tuple[list[Request], list[Request]]:
    """n Step-1 and n Step-3 questions of the default plan, in the order the pipeline asks them.

    The pipeline asks a job's distinct questions sorted by prompt; the first n are taken.
    """
    config = validate_config(yaml.safe_load((REPO / "config.yaml").read_text()))
    renderers = {PAPER: PromptRenderer(wordings(config["prompts"])[PAPER])}
    occupations = select_occupations(REPO / config["occupations"]["table"], "all")
    source = config["sources"]["names"]["ethical-interventions"]
    names = read_name_list(DATA, source, "ethical-interventions")
    pairs = contrast_pairs(names, GENDER_CONTRAST, 2, 0)
    instances = build_instances(occupations, pairs, ["female_first"], sides=GENDER)
    codes = sorted(set(occupations["soc_code"]))
    attributes = extract_attributes(DATA / "onet/db_29_3_text", codes, 5, suppressed="keep")
    rows = step1_rows(instances, attributes, sides=GENDER)
    step1 = step1_questions(rows, renderers, config["answers"], sides=GENDER)
    answered = rows.assign(choice="no", wording=PAPER)
    granted = {key: ["Critical Thinking skill"] for key in granted_attributes(answered)}
    step3 = step3_questions(instances, granted, renderers, config["answers"], sides=GENDER)

    def requests(table):
        unique = table.drop_duplicates("prompt").sort_values("prompt")
        return [
            Request(p, tuple(c)) for p, c in zip(unique["prompt"], unique["choices"], strict=True)
        ]

    return requests(step1)[:n], requests(step3)[:n]


def timed(function, requests, repeats: int):
    """The last run's answers and the median prompts per second over ``repeats`` runs."""
    rates = []
    for _ in range(repeats):
        started = time.perf_counter()
        answers = function(requests)
        rates.append(len(requests) / (time.perf_counter() - started))
    return answers, statistics.median(rates)


def agreement(answers: list[str], expected: list[str]) -> int:
    return sum(a == b for a, b in zip(answers, expected, strict=True))


def margin(request: Request, response, other: str) -> float:
    """The probability of ``response``'s answer minus ``other``'s, over the answer space."""
    total = math.fsum(math.exp(value) for value in response.logprobs)
    logprob = dict(zip(request.choices, response.logprobs, strict=True))
    return (math.exp(logprob[response.answer]) - math.exp(logprob[other])) / total


def vllm_peer(
    venv: Path, dtype: str, requests: list[Request], repeats: int
) -> tuple[list[str], float]:
    """vLLM's answers and prompts per second (benchmarks/vllm_peer.py in the vLLM env)."""
    job = {"dtype": dtype, "repeats": repeats}
    job["requests"] = [[r.prompt, list(r.choices)] for r in requests]
    done = subprocess.run(
        [venv / "bin" / "python", REPO / "benchmarks" / "vllm_peer.py"],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        check=True,
    )
    line = next(line for line in done.stdout.splitlines() if line.startswith(MARK))
    result = json.loads(line.removeprefix(MARK))
    return result["answers"], result["rate"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=48)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--vllm-venv", type=Path, default=REPO / ".venv-vllm")
    args = parser.parse_args()
    with_vllm = (args.vllm_venv / "bin" / "python").is_file()
    engines = {
        dtype: load_backend(
            "transformers",
            model_settings(
                {"backend": "transformers", "model": MODEL, "dtype": dtype}
                | {"batch_size": args.batch_size}
            ),
        )
        for dtype in ("float32", "bfloat16")
    }
    backend = engines["float32"]
    reference = OutlinesChoice(backend.model, backend.tokenizer)

    def outlines_single(requests):
        return [reference.answer([backend.messages(r.prompt)], [r])[0] for r in requests]

    def batched(function):
        def run(requests):
            answers = []
            for start in range(0, len(requests), args.batch_size):
                answers += function(requests[start : start + args.batch_size])
            return answers

        return run

    def outlines_batch(requests):
        return reference.answer([backend.messages(r.prompt) for r in requests], requests)

    for label, requests in zip(("Step 1 (Yes/No)", "Step 3 (Q2/Q3)"), prompts(args.n), strict=True):
        outlines_single(requests[:2])  # compile the answer spaces' indexes first
        expected, single_rate = timed(outlines_single, requests, args.repeats)
        batch_answers, batch_rate = timed(batched(outlines_batch), requests, args.repeats)
        n = len(requests)

        print(f"{label}: {n} prompts, batch size {args.batch_size}, median of {args.repeats}")
        rows = [
            ("outlines one at a time", single_rate, ""),
            (
                "outlines .batch",
                batch_rate,
                f"agreement with one at a time {agreement(batch_answers, expected)}/{n}",
            ),
        ]
        responses, rates = {}, {}
        for dtype, engine in engines.items():
            engine.answer(requests[:2])
            responses[dtype], rates[dtype] = timed(batched(engine.answer), requests, args.repeats)
            answers = [r.answer for r in responses[dtype]]
            rows.append(
                (
                    f"choice engine {dtype}",
                    rates[dtype],
                    f"agreement with outlines {agreement(answers, expected)}/{n}",
                )
            )
        for dtype in ("float32", "bfloat16") if with_vllm else ():
            answers, rate = vllm_peer(args.vllm_venv, dtype, requests, args.repeats)
            ratios = ", ".join(f"engine {d} {rates[d] / rate:.2f}x it" for d in rates)
            rows.append(
                (
                    f"vLLM CPU {dtype}",
                    rate,
                    f"agreement with outlines {agreement(answers, expected)}/{n}; {ratios}",
                )
            )
        for name, rate, note in rows:
            ratio = rate / single_rate
            print(f"  {name:<24}{rate:7.2f} prompts/s {ratio:6.2f}x   {note}".rstrip())
        pairs = zip(requests, responses["float32"], responses["bfloat16"], strict=True)
        for index, (request, full, half) in enumerate(pairs):
            if full.answer != half.answer:
                print(
                    f"  prompt {index}: float32 {full.answer!r}, bfloat16 {half.answer!r}; "
                    f"float32's margin {margin(request, full, half.answer):.4f}"
                )
        largest = max(
            abs(a - b)
            for full, half in zip(responses["float32"], responses["bfloat16"], strict=True)
            for a, b in zip(full.logprobs, half.logprobs, strict=True)
        )
        print(f"  bfloat16 vs float32: largest log-probability difference {largest:.4f}")
    print("(the engine's time includes every choice's log-probability; outlines' does not)")
    if not with_vllm:
        print(f"(no vLLM rows: {args.vllm_venv} does not exist; make setup-vllm creates it)")


if __name__ == "__main__":
    main()
