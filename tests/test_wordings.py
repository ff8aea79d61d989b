"""Wordings: the catalogue and its checks, pooling over wordings, and the robustness table."""

import numpy as np
import pandas as pd
import pytest
import yaml

from hiremeornot.analysis.crossed import crossed_mean, smallest_p
from hiremeornot.analysis.metrics import occupation_metrics
from hiremeornot.analysis.wordings import flip_shares, pair_flips, robustness, wording_metrics
from hiremeornot.design.contrasts import GENDER
from hiremeornot.design.prompts import check_wordings, wordings
from hiremeornot.errors import InputError
from hiremeornot.writing.summary import robustness_sentence
from tests.conftest import REPO
from tests.test_stats import SETTINGS, biased_rows, crossed, outcomes_table, statistics

PROMPTS = yaml.safe_load((REPO / "config.yaml").read_text())["prompts"]
SHIPPED = yaml.safe_load((REPO / "config/wordings.yaml").read_text())["prompts"]


def prompts(**changes):
    return {**PROMPTS, "wordings": {}, "variants": ["paper"], **changes}


def test_a_wording_keeps_the_paper_text_of_the_keys_it_leaves_out():
    catalogue = wordings(prompts(wordings={"short": {"q2": "Who fits {a_occupation}?"}}))
    assert list(catalogue) == ["paper", "short"]
    assert catalogue["short"]["q2"] == "Who fits {a_occupation}?"
    assert catalogue["short"]["q3"] == catalogue["paper"]["q3"] == PROMPTS["q3"]


def test_wording_errors_name_the_key_at_fault():
    with pytest.raises(InputError, match=r"prompts\.wordings\.short\.q2: the template must"):
        check_wordings(prompts(wordings={"short": {"q2": "Who fits?"}}))
    with pytest.raises(InputError, match=r"prompts\.wordings\.short\.q1: unknown placeholder"):
        check_wordings(prompts(wordings={"short": {"q1": "Is {name} fit for {occupation}?"}}))
    with pytest.raises(InputError, match=r"prompts\.variants: unknown wording\(s\) \['shrot'\]"):
        check_wordings(prompts(variants=["paper", "shrot"]))


def test_the_shipped_wordings_pass_the_checks_and_are_documented():
    check_wordings(prompts(**SHIPPED))
    assert SHIPPED["variants"][0] == "paper" and len(SHIPPED["variants"]) >= 4
    keys = ["context", "attribute_question", "attribute_statement", "q1", "q2", "q3"]
    for wording, given in SHIPPED["wordings"].items():
        assert sorted(given) == sorted(keys), wording  # every template reworded
    catalogue = wordings(prompts(**SHIPPED))
    for key in keys:  # three wordings of each, all different from the paper's and each other
        assert len({catalogue[w][key] for w in catalogue}) == len(catalogue), key
    docs = (REPO / "docs/prompts.md").read_text()
    for given in SHIPPED["wordings"].values():
        for text in given.values():
            assert f"`{text}`" in docs, text


def two_wordings(first, second, names):
    """The same instances asked in two wordings with the given answer labels."""
    return pd.concat(
        [
            outcomes_table(biased_rows("nurse", first, names)).assign(wording="paper"),
            outcomes_table(biased_rows("nurse", second, names)).assign(wording="plain"),
        ],
        ignore_index=True,
    )


def test_pooled_metrics_weigh_each_wording_alike_and_count_instances_once():
    outcomes = two_wordings(["female"] * 4, ["male", "none", "none", "none"], crossed(2, 2))
    row = occupation_metrics(outcomes, "biased", sides=GENDER).iloc[0]
    assert row["n"] == 4  # instances, not instances x wordings
    assert row["difference"] == pytest.approx((1.0 + -0.25) / 2)


def test_one_wording_gives_the_statistics_it_gave_before_wordings_existed():
    labels = ["female", "male", "none", "female"] * 18
    outcomes = outcomes_table(biased_rows("nurse", labels, crossed(6, 6)))
    columns = ["confirmation", "difference"]
    frame = outcomes.assign(confirmation=np.arange(len(outcomes)) % 3, difference=1.0)
    with_column = crossed_mean(frame, columns, sides=GENDER)
    without = crossed_mean(frame.drop(columns="wording"), columns, sides=GENDER)
    assert with_column.variance[0] > 0 and with_column.wordings == 1
    assert (with_column.variance == without.variance).all()
    assert statistics(outcomes)[1]["smallest_p"].iloc[0] == smallest_p(6, 6)


def test_wordings_are_a_random_factor_when_several_are_pooled():
    labels = ["female", "male", "none", "female"] * 18
    outcomes = two_wordings(labels, labels, crossed(6, 6))
    means = crossed_mean(outcomes.assign(value=1.0), ["value"], sides=GENDER)
    assert (means.a_names, means.b_names, means.wordings, means.units) == (6, 6, 2, 2)
    assert means.df.tolist() == [1]  # no spread at all: the fewest levels less one
    tests = statistics(outcomes)[1]
    assert tests["smallest_p"].iloc[0] == smallest_p(6, 6, 2) == 0.5
    assert smallest_p(6, 6, 8) == smallest_p(6, 6) == 2**-5


def test_flips_signs_and_robustness_by_hand():
    # nurse: the first instance's Q2 flips (female -> male); pilot: nothing flips
    nurse_paper = ["female", "female", "female", "none"]
    nurse_plain = ["male", "female", "female", "none"]
    pilot = ["male", "male", "none", "none"]
    outcomes = pd.concat(
        [
            outcomes_table(biased_rows("nurse", nurse_paper) + biased_rows("pilot", pilot)).assign(
                wording="paper"
            ),
            outcomes_table(biased_rows("nurse", nurse_plain) + biased_rows("pilot", pilot)).assign(
                wording="plain"
            ),
        ],
        ignore_index=True,
    )
    # Step 1 granted the same attribute in both wordings, but for nurse's second instance
    granted = pd.DataFrame(
        [
            (wording, instance, side, "e1", "no" if (wording, k) == ("plain", 1) else "yes")
            for wording in ("paper", "plain")
            for k, instance in enumerate(dict.fromkeys(outcomes["instance_id"]))
            for side in ("female", "male")
        ],
        columns=["wording", "instance_id", "gender", "element_id", "choice"],
    )
    pairs = pair_flips(outcomes, granted, GENDER).set_index("question")
    assert (pairs["wording_a"] == "paper").all() and (pairs["wording_b"] == "plain").all()
    q2 = pairs.loc["q2"]
    assert (q2["instances"], q2["same_step1"]) == (8, 7)
    assert q2["flip_same_step1"] == pytest.approx(1 / 7) and q2["flip_step1_differs"] == 0.0
    flips = flip_shares(outcomes, sides=GENDER)
    assert flips.loc["nurse", "flip_q2"] == 0.25 and flips.loc["nurse", "flip_any"] == 0.25
    assert flips.loc["pilot", "flip_any"] == 0.0
    per_wording = wording_metrics(outcomes, "biased", SETTINGS, sides=GENDER)
    assert len(per_wording) == 4 and list(per_wording["wording"]) == ["paper"] * 2 + ["plain"] * 2
    differences = per_wording.set_index(["wording", "occupation"])["difference"]
    assert differences["paper", "nurse"] == pytest.approx(0.75)
    assert differences["plain", "nurse"] == pytest.approx(0.25)
    intervals, tests = statistics(outcomes)
    table = robustness(per_wording, outcomes, intervals, tests, sides=GENDER).set_index(
        "occupation"
    )
    assert table.loc["nurse", "difference"] == pytest.approx(0.5)
    assert (table.loc["nurse", "difference_min"], table.loc["nurse", "difference_max"]) == (
        pytest.approx(0.25),
        pytest.approx(0.75),
    )
    assert table.loc["nurse", "sign_agrees"] and table.loc["pilot", "sign_agrees"]
    assert not table["flagged"].any() and not table["robust"].any()  # two names: no significance
    unflagged = robustness_sentence(
        table.reset_index(), "paper", ["paper", "plain"], pairs.reset_index()
    )
    assert "No occupation's difference is significant under the reference wording" in unflagged
    assert "2 of the 2 occupations keep the sign" in unflagged
    assert (
        "Q2's answer changed under `plain` 14% of the 7 instances whose Step-1 answers agreed, "
        "0% of the 1 whose Step 1 differed" in unflagged
    )
    # a constructed flag: robust only where every wording is significant with one sign
    per_wording["significant"] = [True, True, True, False]
    flagged = robustness(per_wording, outcomes, intervals, tests, sides=GENDER).set_index(
        "occupation"
    )
    assert flagged.loc["nurse", "robust"] and not flagged.loc["pilot", "robust"]
    sentence = robustness_sentence(
        flagged.reset_index(), "paper", ["paper", "plain"], pairs.reset_index()
    )
    assert "Of the 2 occupations whose difference is significant under the reference" in sentence
    assert "1 keep its sign and significance under every wording (nurse)" in sentence
