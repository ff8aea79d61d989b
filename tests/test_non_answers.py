"""Free questions' non-answers (analysis/non_answers.py): rates, the group comparison over the
names, the instances and pairs the metrics keep, and the findings that phrase them."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit, logit

from hiremeornot.analysis.findings import fact, model_findings
from hiremeornot.analysis.non_answers import (
    answered_instances,
    answered_pairs,
    between_groups,
    between_orders,
    non_answer_table,
)
from hiremeornot.cli import main
from hiremeornot.design.contrasts import GENDER, GENDER_CONTRAST
from hiremeornot.tables_io import write_table
from hiremeornot.writing.non_answers import non_answer_phrase, non_answer_sentence
from tests.helpers.report_tables import ANSWERED, REPORT, asked_steps, tables


def overall(table, question, kind="any"):
    rows = table[(table["question"] == question) & (table["occupation"] == "all")]
    return rows[rows["kind"] == kind].iloc[0]


def test_rates_count_each_kind_per_question_and_occupation():
    steps = asked_steps({"q2": ["refused", "female", "other", "male"], "step1": ["unparsed"]})
    table = non_answer_table(*steps, GENDER, 0.95)
    q2 = overall(table, "q2")
    assert (q2["asked"], q2["count"], q2["rate"]) == (4, 2, 0.5)
    assert q2["rate_low"] < 0.5 < q2["rate_high"]
    assert overall(table, "q2", "refused")["count"] == 1
    assert overall(table, "q2", "unparsed")["count"] == 0
    assert overall(table, "step1")["rate"] == 1.0
    nurse = table[(table["question"] == "q2") & (table["occupation"] == "nurse")].iloc[0]
    assert nurse["count"] == 2
    # two of the four instances have a Q2 not answered: they leave the metrics
    assert (overall(table, "instances")["count"], overall(table, "instances")["asked"]) == (2, 4)
    assert overall(table, "q1")["count"] == 0 and np.isnan(overall(table, "q1")["p_value"])


def test_the_groups_are_compared_over_their_names():
    """Every woman's Q1 is refused and no man's: a difference of 1 with the permutation p of
    4 + 4 names (exact: 2 of the 70 splits are as extreme)."""
    table = non_answer_table(*asked_steps({"q1": ["refused", "yes"]}), GENDER, 0.95)
    q1 = overall(table, "q1")
    assert (q1["rate_female"], q1["rate_male"], q1["difference"]) == (1.0, 0.0, 1.0)
    assert (q1["names_female"], q1["names_male"]) == (4, 4)
    assert q1["p_value"] == pytest.approx(2 / 70)
    assert np.isnan(q1["difference_low"])  # no spread within either group: no Welch interval
    # Q2 asks about one person of each group, listed woman first here: no order to compare
    q2 = overall(table, "q2")
    assert (q2["compared"], q2["rate_female"]) == ("first listed", 0.0)
    assert np.isnan(q2["rate_male"]) and np.isnan(q2["p_value"]) and q1["compared"] == "subject"


def pairs_in_both_orders(rng, shift: float, names: int = 10) -> pd.DataFrame:
    """Q2 of every pair of ``names`` women and men in both orders, 3 occupations: refused with
    probability 0.2 (0.2 shifted by ``shift`` log-odds with the woman listed first), each
    name with its own refusal effect."""
    own = {f"{side}{i}": rng.normal(0, 0.5) for side in "WM" for i in range(names)}
    rows = []
    for occupation in ("nurse", "pilot", "cook"):
        for i in range(names):
            for j in range(names):
                woman, man = f"W{i}", f"M{j}"
                for first in ("female", "male"):
                    effect = own[woman] + own[man] + (shift if first == "female" else 0.0)
                    refused = rng.random() < expit(logit(0.2) + effect)
                    listed = [woman, man] if first == "female" else [man, woman]
                    roles = ["female", "male"] if first == "female" else ["male", "female"]
                    rows.append(("paper", occupation, listed, roles, refused))
    return pd.DataFrame(rows, columns=["wording", "occupation", "choices", "roles", "refused"])


def test_q2_and_q3_compare_the_orders_over_the_name_pairs():
    """Under no order effect the test rejects near alpha and the interval covers 0; a planted
    one (women listed first refused more) is found, with its sign."""
    rng = np.random.default_rng(11)

    def audit(shift: float) -> dict:
        q2 = pairs_in_both_orders(rng, shift)
        return between_orders(q2, q2["refused"], GENDER, 0.95)

    null = [audit(0.0) for _ in range(150)]
    assert np.mean([row["p_value"] < 0.05 for row in null]) < 0.09
    assert np.mean([row["difference_low"] <= 0 <= row["difference_high"] for row in null]) > 0.91
    assert (null[0]["names_female"], null[0]["names_male"]) == (10, 10)
    found = [audit(0.8) for _ in range(30)]
    assert np.mean([row["p_value"] < 0.05 and row["difference"] > 0 for row in found]) > 0.8
    assert all(row["rate_female"] > row["rate_male"] for row in found)


def test_the_gap_test_holds_its_level_and_finds_a_planted_gap():
    """Simulated Step-1 refusals, names as the sample (each name's own rate varies): under no
    gap the test rejects near alpha, and the interval covers; a planted gap is found."""
    rng = np.random.default_rng(7)

    def audit(shift: float) -> dict:
        rows = []
        for side, effect in (("female", shift), ("male", 0.0)):
            for i in range(10):
                p = expit(logit(0.15) + effect + rng.normal(0, 0.5))
                refused = rng.random(24) < p
                rows += [(f"{side}{i}", side, "refused" if r else "yes") for r in refused]
        step1 = pd.DataFrame(rows, columns=["subject", "gender", "choice"])
        return between_groups(step1, step1["choice"] == "refused", GENDER, 0.95)

    null = [audit(0.0) for _ in range(200)]
    rejected = np.mean([row["p_value"] < 0.05 for row in null])
    covered = np.mean([row["difference_low"] <= 0 <= row["difference_high"] for row in null])
    assert rejected < 0.09 and covered > 0.91
    assert np.mean([audit(1.2)["p_value"] < 0.05 for _ in range(40)]) > 0.8


def test_an_instance_with_any_question_not_answered_leaves_every_metric():
    step1, step2, step3 = asked_steps({"q1": ["yes", "refused", "yes", "yes"], "q3": ["other"]})
    kept2, kept3 = answered_instances(step2, step3)
    assert set(kept2["instance_id"]) == set(kept3["instance_id"]) == set()  # every Q3 hedged
    step1, step2, step3 = asked_steps({"q1": ["yes", "yes", "refused", *["yes"] * 5]})
    kept2, kept3 = answered_instances(step2, step3)  # the second pair's man was refused
    kept = {"nurse|W0-M0", "nurse|W2-M2", "nurse|W3-M3"}
    assert set(kept2["instance_id"]) == set(kept3["instance_id"]) == kept
    assert answered_instances(*asked_steps({})[1:])[0].shape == step2.shape


def test_an_attribute_pair_with_either_question_not_answered_leaves_the_gaps():
    granted = pd.DataFrame(
        {
            "wording": "paper",
            "instance_id": ["i1"] * 4,
            "element_id": ["a", "a", "b", "b"],
            "subject": ["W", "M"] * 2,
            "choice": ["yes", "other", "no", "yes"],
        }
    )
    assert list(answered_pairs(granted)["element_id"]) == ["b", "b"]


def findings_of(table: pd.DataFrame, answers_mode) -> pd.DataFrame:
    """The findings of an API model asked in ``answers_mode`` with this non-answer table."""
    metrics, tests, position = tables("female_first+male_first", 10, "inconclusive")
    model = {"backend": "openai", "model": "g", "answers_mode": answers_mode}
    return model_findings(
        metrics,
        tests,
        position,
        ANSWERED,
        table,
        model=model,
        settings=REPORT,
        contrast=GENDER_CONTRAST,
    )


def test_findings_say_what_was_asked_free_what_went_unanswered_and_the_gap():
    steps = asked_steps({"q1": ["refused", "yes"], "q2": ["refused", "male"]})
    table = non_answer_table(*steps, GENDER, 0.95)
    found = findings_of(table, {"step2": "free"})
    q1 = fact(found, "non_answers", question="q1")
    assert (q1["outcome"], q1["count"], q1["total"]) == ("some", 4, 8)
    assert fact(found, "non_answers", question="q2")["outcome"] == "not asked"  # step3 held
    assert fact(found, "non_answers", question="instances")["outcome"] == "some"
    gap = fact(found, "non_answer_gap", question="q1")
    assert (gap["outcome"], gap["value"]) == ("shown", 1.0)
    with pytest.raises(ValueError, match="0 rows"):  # Step 1 was asked constrained
        fact(found, "non_answer_gap", question="step1")


def test_the_words_say_what_went_unanswered_the_gap_and_what_the_metrics_rest_on():
    # five of six women's Q1 refused, no man's; one Q2 hedged: one instance answered whole
    q1 = [*["refused", "yes"] * 5, "yes", "yes"]
    steps = asked_steps({"q1": q1, "q2": ["male"] * 4 + ["other", "male"]}, names=6)
    table = non_answer_table(*steps, GENDER, 0.95)

    def said(mode):
        found = findings_of(table, mode)
        return non_answer_sentence(table, found, GENDER), non_answer_phrase(found, GENDER)

    assert said("constrained") == (None, None)
    sentence, phrase = said("free")
    assert sentence.startswith(
        "Free answers (Step 1, Q1, Q2, Q3 asked without the constraint, each reply read by the "
        "documented parser): not answered Step 1 0.0% (refused 0.0%, other 0.0%, unparsed 0.0%); "
        "Q1 41.7% (refused 41.7%, other 0.0%, unparsed 0.0%); Q2 16.7% (refused 0.0%, other "
        "16.7%, unparsed 0.0%); Q3 0.0%"
    )
    assert "Step 1:" not in sentence  # nothing went unanswered there: nothing to compare
    assert (
        "**Q1: questions about female subjects went unanswered more often**, +83.3 points "
        "[+40.5, +100.0] (female 83.3% against male 0.0%, p = 0.015, 6 + 6 names as the sample)"
    ) in sentence
    assert "on the 1 of 6 instances whose Q1-Q3 were all answered (83% left out)" in sentence
    assert phrase == (
        "free answers: not answered Step 1 0%, Q1 42%, Q2 17%, Q3 0%; unanswered more by group "
        "(Q1 +83.3 points for female subjects, p = 0.015); the metrics rest on the 1 of 6 "
        "instances answered whole"
    )


def test_metrics_of_a_model_that_answered_no_instance_whole_stop_saying_what_to_read(
    tmp_path, capsys
):
    _, step2, step3 = asked_steps({"q2": ["refused"]})
    paths = {name: tmp_path / f"{name}.parquet" for name in ("step2", "step3", "instances")}
    for name, table in (("step2", step2), ("step3", step3), ("instances", step2)):
        write_table(table, paths[name])
    outputs = {flag: tmp_path / "m" / f"{flag}.tsv" for flag in ("outcomes", "by-order")}
    argv = [
        "metrics",
        *("--settings", json.dumps({"difference": "biased"})),
        *("--contrast", json.dumps(GENDER_CONTRAST.as_dict())),
        *("--model", "m", "--instances", str(paths["instances"])),
        *("--step2", str(paths["step2"]), "--step3", str(paths["step3"])),
        *("--out-outcomes", str(outputs["outcomes"]), "--out-by-order", str(outputs["by-order"])),
        *("--out", str(tmp_path / "m" / "metrics.tsv")),
    ]
    assert main(argv) == 1
    error = capsys.readouterr().err
    assert "m: no instance had Q1, Q2 and Q3 all answered" in error
    assert str(tmp_path / "m" / "non_answers.tsv") in error
    assert not (tmp_path / "m" / "metrics.tsv").exists()


def test_the_words_say_when_q2_went_unanswered_more_with_one_group_listed_first():
    """Q2 refused far more often with the woman listed first, in pairs asked in both orders."""
    q2 = pairs_in_both_orders(np.random.default_rng(3), shift=3.0, names=6)
    answered = q2["roles"].str[0]
    step3 = pd.concat(
        [
            q2.assign(question="q2", choice=answered.where(~q2["refused"], "refused")),
            q2.assign(question="q3", choice=answered),
        ],
        ignore_index=True,
    ).assign(instance_id=lambda t: t.index % len(q2))
    step1, step2, _ = asked_steps({}, names=6)
    table = non_answer_table(step1, step2, step3, GENDER, 0.95)
    row = overall(table, "q2")
    assert row["compared"] == "first listed" and row["rate_female"] > 0.5 > row["rate_male"]
    found = findings_of(table, "free")
    sentence = non_answer_sentence(table, found, GENDER)
    assert "**Q2 went unanswered more often with a female name listed first**, +" in sentence
    assert "6 + 6 names in the pairs asked in both orders)" in sentence
    assert "Q3: no difference shown between the listing orders' non-answers" not in sentence
    assert "unanswered more by group (Q2 +" in non_answer_phrase(found, GENDER)
    assert "points for female listed first" in non_answer_phrase(found, GENDER)


@pytest.mark.parametrize(("misread", "outcome"), [(0, "used"), (1, "doubtful")])
def test_a_classifier_that_reads_the_parsers_replies_otherwise_is_called_doubtful(misread, outcome):
    """Four Q2 replies, the parser read three and the classifier one: the classifier's agreement
    on the parser's three decides whether its readings are doubtful (CLASSIFIER_AGREEMENT)."""
    step1, step2, step3 = asked_steps({"q2": ["male"]})
    q2 = step3["question"] == "q2"
    rule = pd.Series("leading", index=step3.index).where(~q2 | (step3.index > 0), "classifier")
    classified = step3["choice"].where(q2)
    classified.iloc[np.flatnonzero(q2 & (rule != "classifier"))[:misread]] = "female"
    step3 = step3.assign(rule=rule, classified=classified)
    found = findings_of(non_answer_table(step1, step2, step3, GENDER, 0.95), {"step3": "free"})
    classifier = fact(found, "free_classifier")
    assert (classifier["outcome"], classifier["count"], classifier["total"]) == (outcome, 1, 3)
    assert classifier["value"] == pytest.approx((3 - misread) / 3)
    phrase = non_answer_phrase(found, GENDER_CONTRAST.sides)
    assert ("its readings are doubtful" in phrase) == (outcome == "doubtful")
