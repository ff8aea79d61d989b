"""Step-1 model calls of the paper plan with and without de-duplication, and the time.

Builds the real plan of config/paper.yaml (62 occupations x 100 name pairs x its orders),
counts the Step-1 questions per instance and the distinct ones the pipeline asks, then times the
choice engine on the embedded model on a sample of them to estimate the wall time on this CPU.

Usage: .venv/bin/python benchmarks/dedup_paper_size.py [--sample 64]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import yaml

from hiremeornot.asking.backends import Request, load_backend
from hiremeornot.config import model_settings, validate_config
from hiremeornot.design.contrasts import GENDER, GENDER_CONTRAST, contrast_pairs
from hiremeornot.design.dataset import build_instances
from hiremeornot.design.prompts import PAPER, PromptRenderer, wordings
from hiremeornot.design.questions import step1_questions, step1_rows
from hiremeornot.inputs.names import read_name_list
from hiremeornot.inputs.occupations import select_occupations
from hiremeornot.inputs.onet import extract_attributes
from hiremeornot.plan import listing_orders

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sample", type=int, default=64)
    args = parser.parse_args()
    config = validate_config(yaml.safe_load((REPO / "config/paper.yaml").read_text()))
    occupations = select_occupations(REPO / config["occupations"]["table"], "all")
    listed = config["names"]["list"]
    names = read_name_list(DATA, config["sources"]["names"][listed], listed)
    pairs = contrast_pairs(
        names, GENDER_CONTRAST, config["names"]["pairs"], config["names"]["seed"]
    )
    instances = build_instances(occupations, pairs, listing_orders(config, GENDER), sides=GENDER)
    attributes = extract_attributes(
        DATA / "onet/db_29_3_text", sorted(set(occupations["soc_code"])), 5, suppressed="keep"
    )
    renderers = {PAPER: PromptRenderer(wordings(config["prompts"])[PAPER])}
    questions = step1_rows(
        instances, attributes, sides=GENDER
    )  # one per instance x subject x attribute
    distinct = step1_questions(questions, renderers, config["answers"], sides=GENDER)
    later = 2 * len(instances) * 2  # Q1 per subject, Q2 and Q3 per instance
    print(
        f"instances: {len(instances)} ({len(occupations)} occupations x {len(pairs)} pairs x "
        f"{len(config['names']['orders'])} orders)"
    )
    print(f"Step-1 model calls without de-duplication: {len(questions):>9}")
    print(f"Step-1 model calls with de-duplication:    {len(distinct):>9}")
    print(f"de-duplication factor: {len(questions) / len(distinct):.1f}x")

    backend = load_backend(
        "transformers",
        model_settings(
            {
                "backend": "transformers",
                "model": "embedded:smollm2-135m-instruct",
                "batch_size": 16,
            }
        ),
    )
    sample = sorted(distinct["prompt"].sample(args.sample, random_state=0))
    requests = [Request(prompt, ("Yes", "No")) for prompt in sample]
    backend.answer(requests[:2])
    started = time.perf_counter()
    for begin in range(0, len(requests), 16):
        backend.answer(requests[begin : begin + 16])
    seconds = (time.perf_counter() - started) / len(requests)
    per_model = (len(distinct) + later) * seconds
    print(f"engine on the embedded model: {1 / seconds:.1f} Step-1 questions/s on this CPU")
    print(
        f"estimated wall time per model (Step 1 + {later} Step-2/3 questions at the same "
        f"rate): {per_model / 3600:.1f} h with de-duplication, "
        f"{(len(questions) + later) * seconds / 3600:.1f} h without"
    )


if __name__ == "__main__":
    main()
