"""A model's findings as data: every verdict and design fact the summary and the difference
tables phrase, decided here once (``results/<contrast><model>/findings.tsv``, docs/outputs.md).

One row per finding and scope. ``finding`` names it, ``question`` and ``occupation`` give its
scope (empty: the whole run), ``outcome`` is the decision (one word of FINDINGS), ``detail`` a
label it needs, and ``value``, ``count``, ``total``, ``p_value``, ``q_value`` the numbers
behind it (FINDINGS says what each holds; NaN where a finding has none).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from hiremeornot.analysis.crossed import random_units, sign_test_floor, smallest_p
from hiremeornot.analysis.non_answers import (
    ALL,
    ANY,
    CLASSIFIED,
    CLASSIFIER_AGREES,
    COMPARED,
    INSTANCES,
)
from hiremeornot.analysis.power import detectable
from hiremeornot.analysis.stats import CONFOUNDED, flaggable_at_floor
from hiremeornot.asking.backends import location
from hiremeornot.config import FREE, answers_mode
from hiremeornot.design.contrasts import Contrast
from hiremeornot.tables_io import STEPS, read_table

COLUMNS = [
    "finding",
    "question",
    "occupation",
    "outcome",
    "detail",
    "value",
    "count",
    "total",
    "p_value",
    "q_value",
]
# Each finding: its outcomes, and what its numbers hold.
FINDINGS = {
    "respondent": "simulated | embedded | model: what answered (a planted simulation, the "
    "embedded smoke-test model, or a model whose answers are evidence)",
    "listing_orders": "balanced | partly confounded | confounded: whether every occupation's "
    "instances are in both listing orders (position and the contrast are confounded where one "
    "is left: in every occupation, or in some, as where free answers left out the instances of "
    "one order); detail: the orders run (partly: each occupation in one order, as "
    "'nurse: female_first'); count: how many orders ran; total: the occupations in one order; "
    "value: the share of Q2's answers naming the first-listed subject",
    "names": "sample | one pair: the names are a sample (or the control's one pair of labels); "
    "count, total: the names on side A and on side B",
    "p_floor": "reachable | too few names | too few wordings: whether the test's floor on p "
    "(value, crossed.smallest_p) lies below alpha, and if not what sets it; count: how many "
    "occupations must sit at the floor before Benjamini-Hochberg flags one; total: occupations",
    "detectable_difference": "bounded | never (detail: best, worst): the smallest difference the "
    "test finds with 80% power (value; power.detectable), best: if names and wordings add no "
    "variance of their own, worst: if all of it lies between them; never: no difference can be "
    "found (value inf); count: the median instances per occupation",
    "names_alike": "alike | varied: whether in some occupation every name pair's difference is "
    "alike (no spread); count: such occupations; total: occupations",
    "difference": "the occupation's verdict (stats.verdict); value: the difference; p_value, "
    "q_value: its test",
    "position_test": "reachable | unreachable (per question): whether the exact test of "
    "position can go below alpha; value: its smallest p; count: the most answers naming "
    "someone in an occupation",
    "position_bias": "shown | not shown (per question): value: the share of answers naming the "
    "first-listed subject; count: occupations with a position bias (q < alpha); total: "
    "occupations",
    "forced_answers": "not measured | mostly forced | mostly chosen | asked free: whether half "
    "or more of the answers had less than half of the model's probability on the answer words "
    "(asked free: every question was, so none was forced); value: that share; count: answers "
    "measured; total: answers",
    "non_answers": "not asked | none | some (per question: step1, q1, q2, q3, and instances): "
    "whether the question was asked free (answers_mode) and, if so, whether any went "
    "unanswered; value: the share not answered; count: how many; total: asked (instances: "
    "those left out of the metrics for a non-answer among their Q1-Q3)",
    "free_classifier": "not used | used | doubtful: whether a second model read the free "
    "replies (free_classifier), and doubtful where it read under CLASSIFIER_AGREEMENT of the "
    "parser's replies alike; count: the replies it read that the parser could not; total: the "
    "replies the parser read that it read too; value: the share of those it read alike",
    "non_answer_gap": "shown | not shown | untestable (per question asked free): whether the "
    "questions went unanswered more for one group (p < alpha): in Step 1 and Q1 about a person "
    "of that group (a permutation p, names as the sample), in Q2 and Q3 with a person of that "
    "group listed first (the name pairs asked in both orders, the crossed variance); value: the "
    "difference of the groups' rates (A minus B); untestable: too few names, no name's rate "
    "differs (Step 1, Q1) or one listing order (Q2, Q3)",
}
# The share of the parser's readings a free_classifier must read alike for its own readings
# to go unqualified: the parser's replies are the easier ones, so agreement on them is the most
# its readings can be trusted (the embedded model's 42.5% on replies of known reading:
# benchmarks/classifier_accuracy.py).
CLASSIFIER_AGREEMENT = 0.9
# The steps each question of the non-answer table is asked in.
STEPS_OF = {
    "step1": ("step1",),
    "q1": ("step2",),
    "q2": ("step3",),
    "q3": ("step3",),
    INSTANCES: ("step2", "step3"),
}
# The share of forced answers from which every number is read as the constraint's choice.
MOSTLY_FORCED = 0.5


def model_findings(
    metrics: pd.DataFrame,
    tests: pd.DataFrame,
    position: pd.DataFrame,
    answer_mass: pd.DataFrame,
    non_answers: pd.DataFrame,
    *,
    model: Mapping[str, Any],
    settings: Mapping[str, Any],
    contrast: Contrast,
) -> pd.DataFrame:
    """The findings of one model (``model``: its settings, backend, model and answers_mode at
    least; ``settings``: the config's ``report``, alpha and wordings at least) from its metrics,
    tests, position bias, answer space and non-answers (COLUMNS)."""
    rows = [
        _row("respondent", outcome=respondent(model)),
        listing_orders(metrics, position, contrast),
        *name_sample(tests, settings, contrast),
        *detectable_differences(metrics, tests, settings, contrast),
        *[
            _row(
                "difference",
                occupation=row.occupation,
                outcome=row.verdict,
                value=row.difference,
                p_value=row.p_value,
                q_value=row.q_value,
            )
            for row in tests.itertuples()
        ],
        *position_findings(position, settings["alpha"]),
        forced_answers(answer_mass, all(answers_mode(model, s) == FREE for s in STEPS)),
        *non_answer_findings(non_answers, model, settings["alpha"]),
    ]
    return _counted(pd.DataFrame(rows, columns=COLUMNS))


def _counted(table: pd.DataFrame) -> pd.DataFrame:
    """``count`` and ``total`` as whole numbers (empty where a finding has none)."""
    return table.astype({"count": "Int64", "total": "Int64"})


def _row(finding: str, **fields: Any) -> dict[str, Any]:
    empty = {"question": "", "occupation": "", "detail": ""}
    return {column: math.nan for column in COLUMNS} | empty | {"finding": finding, **fields}


def respondent(model: Mapping[str, Any]) -> str:
    """What answered: ``simulated``, ``embedded`` (the smoke-test model) or ``model``."""
    if model["backend"] == "simulated":
        return "simulated"
    return "embedded" if location.is_embedded(model["model"]) else "model"


def first_listed_share(position: pd.DataFrame, question: str = "q2") -> float:
    """The share of a question's answers that named someone which named the first-listed."""
    asked = position[position["question"] == question]
    named = asked["n_named"].sum()
    return asked["first_listed"].sum() / named if named else math.nan


def listing_orders(metrics: pd.DataFrame, position: pd.DataFrame, contrast: Contrast) -> dict:
    """Whether every occupation's instances are in both listing orders: where one is left,
    position and the contrast are confounded (in every occupation, or in some)."""
    orders = sorted(set(metrics["orders"]))
    run = {order for joined in orders for order in joined.split("+")}
    both = "+".join(contrast.sides.orders)
    one = metrics[metrics["orders"] != both]
    if one.empty:
        outcome, detail = "balanced", both
    elif len(one) < len(metrics):
        outcome = "partly confounded"
        pairs = zip(one["occupation"], one["orders"], strict=True)
        detail = "; ".join(f"{occupation}: {order}" for occupation, order in pairs)
    else:
        outcome, detail = "confounded", " / ".join(orders)
    return _row(
        "listing_orders",
        outcome=outcome,
        detail=detail,
        value=first_listed_share(position),
        count=len(run),
        total=len(one),
    )


def name_sample(tests: pd.DataFrame, settings: Mapping[str, Any], contrast: Contrast) -> list:
    """The names' sample, the test's floor on p and what sets it, and the occupations whose
    name pairs all differ alike."""
    a_names, b_names = (int(tests[f"{side}_names"].max()) for side in contrast.sides.labels)
    wordings, alpha, occupations = len(settings["wordings"]), settings["alpha"], len(tests)
    floor = smallest_p(a_names, b_names, wordings)
    if floor < alpha:
        reach, needed = (
            "reachable",
            flaggable_at_floor(floor=floor, occupations=occupations, alpha=alpha),
        )
    else:
        few_wordings = smallest_p(a_names, b_names) < alpha
        reach, needed = ("too few wordings" if few_wordings else "too few names"), math.nan
    alike = int(tests["names_alike"].sum())
    return [
        _row(
            "names",
            outcome="one pair" if contrast.is_control else "sample",
            count=a_names,
            total=b_names,
        ),
        _row("p_floor", outcome=reach, value=floor, count=needed, total=occupations),
        _row("names_alike", outcome="alike" if alike else "varied", count=alike, total=occupations),
    ]


def detectable_differences(
    metrics: pd.DataFrame, tests: pd.DataFrame, settings: Mapping[str, Any], contrast: Contrast
) -> list[dict]:
    """The smallest difference found with 80% power, at its best and its worst bound."""
    a_names, b_names = (int(tests[f"{side}_names"].max()) for side in contrast.sides.labels)
    wordings, alpha = len(settings["wordings"]), settings["alpha"]
    names, instances = min(a_names, b_names), float(metrics["n"].median())
    bounds = {
        "best": detectable(instances * wordings, names, alpha=alpha, wordings=wordings),
        "worst": detectable(
            random_units(a_names, b_names, wordings), names, alpha=alpha, wordings=wordings
        ),
    }
    return [
        _row(
            "detectable_difference",
            outcome="never" if math.isinf(value) else "bounded",
            detail=bound,
            value=value,
            count=round(instances),
        )
        for bound, value in bounds.items()
    ]


def verdict_counts(findings: pd.DataFrame) -> dict[str, int]:
    """How many occupations got each verdict, a difference split by its sign (``differs_a``:
    towards side A, ``differs_b``: towards side B)."""
    rows = findings[findings["finding"] == "difference"]
    differs = rows[rows["outcome"] == "differs"]
    counts = rows["outcome"].value_counts()
    return {
        "differs_a": int((differs["value"] > 0).sum()),
        "differs_b": int((differs["value"] < 0).sum()),
        "equivalent": int(counts.get("equivalent", 0)),
        "inconclusive": int(counts.get("inconclusive", 0)),
        "confounded": int(counts.get(CONFOUNDED, 0)),
        "occupations": len(rows),
    }


def position_findings(position: pd.DataFrame, alpha: float) -> list[dict]:
    """Per question (Q2, Q3): whether its exact test can reject, and how many occupations show
    a position bias."""
    rows = []
    for question in ("q2", "q3"):
        asked = position[position["question"] == question]
        most = int(asked["n_named"].max()) if len(asked) else 0
        floor = sign_test_floor(most)  # the exact test's smallest p with that many answers
        biased = int((asked["q_value"] < alpha).sum())
        rows += [
            _row(
                "position_test",
                question=question,
                outcome="reachable" if floor < alpha else "unreachable",
                value=floor,
                count=most,
            ),
            _row(
                "position_bias",
                question=question,
                outcome="shown" if biased else "not shown",
                value=first_listed_share(position, question),
                count=biased,
                total=len(asked),
            ),
        ]
    return rows


def forced_answers(distribution: pd.DataFrame, every_free: bool) -> dict:
    """Whether most answers were the constraint's choice (answer_space.mass_distribution;
    ``every_free``: every step was asked free, so no answer was held to the answer words)."""
    overall = distribution[distribution["step"] == "all"].iloc[0]
    if every_free:
        outcome = "asked free"
    elif overall["measured"] == 0:
        outcome = "not measured"
    elif overall["share_forced"] >= MOSTLY_FORCED:
        outcome = "mostly forced"
    else:
        outcome = "mostly chosen"
    return _row(
        "forced_answers",
        outcome=outcome,
        value=overall["share_forced"],
        count=overall["measured"],
        total=overall["answers"],
    )


def non_answer_findings(table: pd.DataFrame, model: Mapping[str, Any], alpha: float) -> list[dict]:
    """Per question, whether it was asked free and went unanswered, and whether it went
    unanswered more for one group; whether a free_classifier read the replies, and how alike
    (non_answers.non_answer_table)."""
    run = table[table["occupation"] == ALL]
    read, alike = (run[run["kind"] == kind] for kind in (CLASSIFIED, CLASSIFIER_AGREES))
    compared = int(alike["asked"].sum())
    agreement = alike["count"].sum() / compared if compared else math.nan
    used = "doubtful" if agreement < CLASSIFIER_AGREEMENT else "used"
    rows = [
        _row(
            "free_classifier",
            outcome=used if len(read) else "not used",
            value=agreement,
            count=int(read["count"].sum()),
            total=compared,
        )
    ]
    overall = run[run["kind"] == ANY].set_index("question")
    for question, row in overall.iterrows():
        free = any(answers_mode(model, step) == FREE for step in STEPS_OF[question])
        outcome = "some" if row["count"] else "none"
        rows.append(
            _row(
                "non_answers",
                question=question,
                outcome=outcome if free else "not asked",
                value=row["rate"],
                count=row["count"],
                total=row["asked"],
            )
        )
        if free and question in COMPARED:
            p = row["p_value"]
            gap = "untestable" if math.isnan(p) else "shown" if p < alpha else "not shown"
            rows.append(
                _row(
                    "non_answer_gap",
                    question=question,
                    outcome=gap,
                    value=row["difference"],
                    p_value=p,
                )
            )
    return rows


def read_findings(path: str) -> pd.DataFrame:
    """A findings.tsv as model_findings wrote it (its empty scopes as empty strings)."""
    table = read_table(path)
    labels = ["question", "occupation", "detail"]
    table[labels] = table[labels].fillna("").astype(str)
    return _counted(table)


def fact(
    findings: pd.DataFrame, finding: str, question: str = "", detail: str | None = None
) -> pd.Series:
    """The one row of a run-wide (or per-question) finding; ``detail`` picks one of several
    (detectable_difference's bounds)."""
    rows = findings[(findings["finding"] == finding) & (findings["question"] == question)]
    if detail is not None:
        rows = rows[rows["detail"] == detail]
    if len(rows) != 1:
        raise ValueError(f"findings: {len(rows)} rows of {finding!r} {question!r}, not one")
    return rows.iloc[0]
