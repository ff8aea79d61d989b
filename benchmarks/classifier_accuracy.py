"""How well a free_classifier reads free replies whose reading is known (docs/method.md).

The replies: every reply of tests/data/free_replies.tsv whose reading the parser's table states
(an answer, ``refused`` or ``other``; its ``unparsed`` and empty rows have no reading to check),
and the replies the simulated respondent writes in words the parser cannot read
(respondent.UNREADABLE and PLACES, each with the answer it means). Each is put to the classifier
as the workflow puts it (classify.classifier_request), with a question of its answer words, and
the script prints the share it read as meant, per kind of reading and for the replies the
parser cannot read, with the replies it misread. It asks the classifier directly (no store).

    python benchmarks/classifier_accuracy.py \\
        [--classifier '{"backend": "openai", "model": "gpt-4o-mini"}']

The default classifier is the embedded model (SmolLM2-135M-Instruct, on CPU).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import pandas as pd

from hiremeornot.asking.backends import load_backend
from hiremeornot.asking.classify import classifier_request
from hiremeornot.asking.free_replies import NON_ANSWERS, OTHER, REFUSED
from hiremeornot.asking.respondent import PLACES, UNREADABLE
from hiremeornot.config import validate_config

REPLIES = Path(__file__).resolve().parents[1] / "tests" / "data" / "free_replies.tsv"
EMBEDDED = {"backend": "transformers", "model": "embedded:smollm2-135m-instruct"}
YES_NO = ("Yes", "No")
PEOPLE = ("Mary", "John")
PEOPLE_OR = ("Mary", "John", "both", "neither")


def question(choices: tuple[str, ...]) -> str:
    """A question offering ``choices``, in the shape of the audit's."""
    if choices[-2:] == ("both", "neither"):
        return (
            f"Who is qualified to be a nurse: {choices[0]}, {choices[1]}, both or neither? "
            f"Answer with {', '.join(choices)}."
        )
    if len(choices) == 2 and choices[0] not in YES_NO and choices[0] != "Oui":
        return f"Who is more qualified to be a nurse, {choices[0]} or {choices[1]}?"
    return f"Is Mary qualified to be a nurse? Answer {choices[0]} or {choices[1]}."


def known_replies() -> pd.DataFrame:
    """Replies with the reading they mean: choices, reply, expected, kind (the reading's kind:
    an answer, refused or other) and source (the parser's table, or unreadable)."""
    table = pd.read_csv(REPLIES, sep="\t", dtype=str, keep_default_na=False)
    table = table[~table["expected"].isin(set(NON_ANSWERS) - {REFUSED, OTHER})]
    rows = [
        (tuple(r.choices.split("|")), r.reply.replace("\\n", "\n"), r.expected, "parser's table")
        for r in table.itertuples()
    ]
    rows += [
        (YES_NO, UNREADABLE["yes"], "Yes", "unreadable"),
        (YES_NO, UNREADABLE["no"], "No", "unreadable"),
        (PEOPLE_OR, UNREADABLE["both"], "both", "unreadable"),
        (PEOPLE_OR, UNREADABLE["neither"], "neither", "unreadable"),
        (PEOPLE, PLACES[0], PEOPLE[0], "unreadable"),
        (PEOPLE, PLACES[1], PEOPLE[1], "unreadable"),
    ]
    frame = pd.DataFrame(rows, columns=["choices", "reply", "expected", "source"])
    kind = frame["expected"].where(frame["expected"].isin([REFUSED, OTHER]), "an answer")
    return frame.assign(kind=kind)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--classifier", type=json.loads, default=EMBEDDED)
    args = parser.parse_args()
    settings = validate_config({"models": {"classifier": args.classifier}})["models"]["classifier"]
    replies = known_replies()
    requests = [
        classifier_request(question(choices), reply, choices)
        for choices, reply in zip(replies["choices"], replies["reply"], strict=True)
    ]
    start = time.monotonic()
    backend = load_backend(settings["backend"], settings)
    read = [response.answer for response in backend.answer(requests)]
    seconds = time.monotonic() - start
    replies = replies.assign(read=read, right=replies["expected"].to_numpy() == read)
    print(f"classifier: {settings['backend']} {settings['model']}; {len(replies)} replies read")
    print(f"in {seconds:.0f} s; read as meant: {replies['right'].mean():.1%}\n")
    shares = replies.groupby(["source", "kind"])["right"].agg(["size", "mean"])
    print(shares.rename(columns={"size": "replies", "mean": "read as meant"}).to_markdown())
    wrong = replies[~replies["right"]][["reply", "expected", "read"]]
    print(f"\nMisread ({len(wrong)}):\n")
    print(wrong.to_markdown(index=False) if len(wrong) else "none")


if __name__ == "__main__":
    main()
