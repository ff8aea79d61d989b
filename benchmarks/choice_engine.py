"""Constrained choice on the embedded model: outlines one at a time, outlines .batch, the engine,
and vLLM's offline engine for CPUs (float32 and bfloat16) as peers.

Runs the same N Step-1 (Yes/No) and N Step-3 (Q2, Q3) prompts through each method in one run and
prints prompts per second, the speed-up ratios, the engine's ratio over each vLLM dtype, and
every method's agreement with outlines. vLLM runs in its own environment (`make setup-vllm`,
.venv-vllm), one process per dtype (benchmarks/vllm_peer.py), all of a question kind in one
LLM.chat; without that environment its rows are left out, saying so.

Usage: .venv/bin/python benchmarks/choice_engine.py [--n 48] [--batch-size 16] [--vllm-venv DIR]
"""

from __future__ import annotations

import argparse
import json
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


def timed(function, requests):
    started = time.perf_counter()
    answers = function(requests)
    return answers, len(requests) / (time.perf_counter() - started)


def vllm_peer(venv: Path, dtype: str, requests: list[Request]) -> tuple[list[str], float]:
    """vLLM's answers and prompts per second (benchmarks/vllm_peer.py in the vLLM env)."""
    job = {"dtype": dtype, "requests": [[r.prompt, list(r.choices)] for r in requests]}
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
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--vllm-venv", type=Path, default=REPO / ".venv-vllm")
    args = parser.parse_args()
    with_vllm = (args.vllm_venv / "bin" / "python").is_file()
    backend = load_backend(
        "transformers",
        model_settings({"backend": "transformers", "model": "embedded:smollm2-135m-instruct"}),
    )
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

    def engine(requests):
        return [r.answer for r in backend.answer(requests)]

    for label, requests in zip(("Step 1 (Yes/No)", "Step 3 (Q2/Q3)"), prompts(args.n), strict=True):
        outlines_single(requests[:2])  # compile the answer spaces' indexes first
        expected, single_rate = timed(outlines_single, requests)
        batch_answers, batch_rate = timed(batched(outlines_batch), requests)
        engine_answers, engine_rate = timed(batched(engine), requests)
        agree = sum(a == b for a, b in zip(engine_answers, expected, strict=True))
        batch_agree = sum(a == b for a, b in zip(batch_answers, expected, strict=True))
        n = len(requests)
        print(f"{label}: {n} prompts, batch size {args.batch_size}")
        rows = [
            ("outlines one at a time", single_rate, ""),
            ("outlines .batch", batch_rate, f"agreement with one at a time {batch_agree}/{n}"),
            ("choice engine", engine_rate, f"agreement with outlines {agree}/{n}"),
        ]
        for dtype in ("float32", "bfloat16") if with_vllm else ():
            answers, rate = vllm_peer(args.vllm_venv, dtype, requests)
            same = sum(a == b for a, b in zip(answers, expected, strict=True))
            note = f"agreement with outlines {same}/{n}; the engine is {engine_rate / rate:.2f}x it"
            rows.append((f"vLLM CPU {dtype}", rate, note))
        for name, rate, note in rows:
            ratio = rate / single_rate
            print(f"  {name:<24}{rate:7.2f} prompts/s {ratio:6.2f}x   {note}".rstrip())
    print("(the engine's time includes every choice's log-probability; outlines' does not)")
    if not with_vllm:
        print(f"(no vLLM rows: {args.vllm_venv} does not exist; make setup-vllm creates it)")


if __name__ == "__main__":
    main()
