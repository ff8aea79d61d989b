"""Constrained choice on the embedded model: outlines one at a time, outlines .batch, the engine.

Runs the same N Step-1 (Yes/No) and N Step-3 (Q2, Q3) prompts through each method in one process
and prints prompts per second, the speed-up ratios and the engine's agreement with outlines.

Usage: .venv/bin/python benchmarks/choice_engine.py [--n 48] [--batch-size 16]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import yaml

from hiremeornot.backends import Request, load_backend
from hiremeornot.backends.transformers_backend import OutlinesChoice
from hiremeornot.names import make_pairs, read_name_lists
from hiremeornot.onet import extract_attributes
from hiremeornot.prompts import PromptRenderer

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"


def prompts(n: int) -> tuple[list[Request], list[Request]]:
    """n Step-1 questions and n Step-3 questions (Q2 and Q3 alternating) of the real templates."""
    renderer = PromptRenderer(yaml.safe_load((REPO / "config.yaml").read_text())["prompts"])
    attributes = extract_attributes(DATA / "onet/db_29_3_text", ["29-1141.00", "53-2011.00"], 5)
    names = read_name_lists(DATA / "ethical-interventions/word_lists/nouns/subjects")
    pairs = make_pairs(names, "all", 0)
    step1, step3 = [], []
    for pair in pairs.itertuples():
        attr = attributes.iloc[len(step1) % len(attributes)]
        step1.append(
            Request(
                renderer.attribute_question(
                    pair.female,
                    pair.male,
                    pair.male,
                    attr.attribute,
                    attr.attribute_type,
                    attr.description,
                ),
                ("Yes", "No"),
            )
        )
        statements = (
            renderer.statement(pair.female, [f"{attr.attribute} {attr.attribute_type}"]),
            "",
        )
        key = "q2" if len(step3) % 2 == 0 else "q3"
        choices = (pair.female, pair.male) + (() if key == "q2" else ("both", "neither"))
        step3.append(
            Request(
                renderer.choice_question(key, pair.female, pair.male, statements, "pilot"), choices
            )
        )
    return step1[:n], step3[:n]


def timed(function, requests):
    started = time.perf_counter()
    answers = function(requests)
    return answers, len(requests) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=48)
    parser.add_argument("--batch-size", type=int, default=16)
    args = parser.parse_args()
    backend = load_backend(
        "transformers",
        {
            "backend": "transformers",
            "model": "embedded:smollm2-135m-instruct",
        },
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
        print(f"{label}: {len(requests)} prompts, batch size {args.batch_size}")
        rows = [
            ("outlines one at a time", single_rate, ""),
            ("outlines .batch", batch_rate, f"agreement with one at a time {batch_agree}"),
            ("choice engine", engine_rate, f"agreement with outlines {agree}"),
        ]
        for name, rate, note in rows:
            ratio = rate / single_rate
            suffix = f"   {note}/{len(requests)}" if note else ""
            print(f"  {name:<24}{rate:7.2f} prompts/s {ratio:6.2f}x{suffix}")
    print("(the engine's time includes every choice's log-probability; outlines' does not)")


if __name__ == "__main__":
    main()
