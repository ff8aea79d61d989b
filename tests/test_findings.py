"""The findings: each verdict and design fact decided once, as data, from a model's tables
(the words that phrase them are tested in test_report.py)."""

from __future__ import annotations

import pandas as pd
import pytest

from hiremeornot.analysis.findings import (
    COLUMNS,
    fact,
    model_findings,
    read_findings,
    respondent,
    verdict_counts,
)
from hiremeornot.analysis.power import detectable
from hiremeornot.design.contrasts import GENDER_CONTRAST, control_contrast
from hiremeornot.tables_io import write_table
from hiremeornot.writing.differences import design_caveats
from tests.helpers.report_tables import (
    ANSWERED,
    CONSTRAINED,
    NOT_ASKED,
    REPORT,
    found,
    tables,
)
from tests.helpers.workflow_runs import EMBEDDED


def test_one_listing_order_is_decided_confounded_and_both_balanced():
    one = fact(found(*tables("female_first", 10, "confounded with position")), "listing_orders")
    assert (one["outcome"], one["detail"], one["count"]) == ("confounded", "female_first", 1)
    assert one["value"] == 1.0  # Q2 named the first-listed in 12 of its 12 answers
    both = fact(found(*tables("female_first+male_first", 10, "differs")), "listing_orders")
    assert (both["outcome"], both["detail"], both["count"]) == (
        "balanced",
        "female_first+male_first",
        2,
    )


def test_the_floor_on_p_says_whether_any_occupation_can_be_flagged_and_what_limits_it():
    metrics, tests, position = tables("female_first+male_first", 3, "inconclusive")
    few = fact(found(metrics, tests, position), "p_floor")
    assert (few["outcome"], few["value"], few["total"]) == ("too few names", 0.25, 2)
    assert pd.isna(few["count"])  # no number of occupations at the floor is ever flagged
    metrics, tests, position = tables("female_first+male_first", 10, "inconclusive")
    many = pd.concat([tests] * 31, ignore_index=True)  # 62 occupations
    reachable = fact(found(metrics, many, position), "p_floor")
    assert reachable["outcome"] == "reachable" and reachable["value"] == 2**-9
    # 62 x 2^-9 / 0.05 = 2.4: three at the floor before Benjamini-Hochberg flags any
    assert (reachable["count"], reachable["total"]) == (3, 62)
    worded = model_findings(
        metrics,
        tests,
        position,
        ANSWERED,
        NOT_ASKED,
        model=CONSTRAINED,
        settings={**REPORT, "wordings": ["a", "b", "c", "d"]},
        contrast=GENDER_CONTRAST,
    )
    assert fact(worded, "p_floor")["outcome"] == "too few wordings"  # 2^(1-4) = 0.125


def test_names_and_their_alike_pairs_are_counted():
    metrics, tests, position = tables("female_first+male_first", 10, "differs")
    findings = found(metrics, tests.assign(names_alike=[True, False]), position)
    names, alike = fact(findings, "names"), fact(findings, "names_alike")
    assert (names["outcome"], names["count"], names["total"]) == ("sample", 10, 10)
    assert (alike["outcome"], alike["count"], alike["total"]) == ("alike", 1, 2)
    assert fact(found(metrics, tests, position), "names_alike")["outcome"] == "varied"
    labels = control_contrast(["Person A", "Person B"])
    a, b = labels.sides.labels
    control = model_findings(
        metrics.assign(orders="+".join(labels.sides.orders)),
        tests.rename(columns={"female_names": f"{a}_names", "male_names": f"{b}_names"}),
        position,
        ANSWERED,
        NOT_ASKED,
        model=CONSTRAINED,
        settings=REPORT,
        contrast=labels,
    )
    assert fact(control, "names")["outcome"] == "one pair"


def test_each_occupation_carries_its_verdict_and_the_numbers_behind_it():
    findings = found(*tables("female_first+male_first", 10, "differs"))
    rows = findings[findings["finding"] == "difference"].set_index("occupation")
    assert list(rows.index) == ["nurse", "pilot"]
    assert rows.loc["pilot", ["outcome", "value", "p_value", "q_value"]].tolist() == [
        "differs",
        -0.9,
        0.001,
        0.002,
    ]


def test_the_position_test_says_when_it_cannot_reject_and_counts_the_biased_occupations():
    findings = found(*tables("female_first+male_first", 10, "differs"))
    q2_test, q3_test = (fact(findings, "position_test", q) for q in ("q2", "q3"))
    assert (q2_test["outcome"], q2_test["count"], q2_test["value"]) == ("reachable", 6, 2**-5)
    assert (q3_test["outcome"], q3_test["count"], q3_test["value"]) == ("unreachable", 2, 0.5)
    q2 = fact(findings, "position_bias", "q2")
    assert (q2["outcome"], q2["value"], q2["count"], q2["total"]) == ("shown", 1.0, 2, 2)
    assert fact(findings, "position_bias", "q3")["outcome"] == "not shown"


def test_the_smallest_detectable_difference_is_bounded_by_the_design_or_never_reached():
    findings = found(*tables("female_first+male_first", 10, "inconclusive"))
    best, worst = (fact(findings, "detectable_difference", detail=b) for b in ("best", "worst"))
    # 6 instances an occupation, 10 names a side: variance 1/6 at best, 1/10 names at worst
    assert best["value"] == detectable(6, 10, alpha=0.05)
    assert worst["value"] == detectable(10, 10, alpha=0.05)
    assert best["count"] == 6  # the median instances an occupation
    assert (best["outcome"], worst["outcome"]) == ("bounded", "bounded")
    few = found(*tables("female_first+male_first", 3, "inconclusive"))  # p floor 0.25
    never = fact(few, "detectable_difference", detail="worst")
    assert never["outcome"] == "never" and never["value"] == float("inf")


def test_the_verdicts_are_counted_with_each_difference_on_its_side():
    metrics, tests, position = tables("female_first+male_first", 10, "differs")
    counts = verdict_counts(found(metrics, tests, position))
    assert counts == {
        "differs_a": 1,
        "differs_b": 1,
        "equivalent": 0,
        "inconclusive": 0,
        "confounded": 0,
        "occupations": 2,
    }
    mixed = tests.assign(verdict=["equivalent", "inconclusive"])
    counts = verdict_counts(found(metrics, mixed, position))
    assert (counts["differs_a"], counts["equivalent"], counts["inconclusive"]) == (0, 1, 1)


def test_what_answered_is_a_finding():
    assert respondent({"backend": "simulated", "model": "planted"}) == "simulated"
    assert respondent(EMBEDDED) == "embedded"
    assert respondent({"backend": "openai", "model": "gpt-4o"}) == "model"


def test_findings_read_back_as_written(tmp_path):
    findings = found(*tables("female_first", 3, "confounded with position"))
    assert list(findings.columns) == COLUMNS
    write_table(findings, tmp_path / "findings.tsv")
    again = read_findings(tmp_path / "findings.tsv")
    assert fact(again, "respondent")["outcome"] == "model"
    assert fact(again, "listing_orders")["detail"] == "female_first"
    pd.testing.assert_frame_equal(again, findings, check_dtype=False)
    with pytest.raises(ValueError, match="0 rows of 'drift'"):
        fact(again, "drift")


def test_occupations_left_in_one_listing_order_are_named_and_the_words_say_so():
    """Free answers can leave an occupation's answered instances in one order only: the run is
    partly confounded, and its words name those occupations (not a garbled list of orders)."""
    metrics, tests, position = tables("female_first+male_first", 10, "differs")
    metrics.loc[metrics["occupation"] == "pilot", "orders"] = "female_first"
    findings = found(metrics, tests, position)
    orders = fact(findings, "listing_orders")
    assert (orders["outcome"], orders["detail"], orders["total"]) == (
        "partly confounded",
        "pilot: female_first",
        1,
    )
    caveats = design_caveats(findings, {**REPORT, "wordings": ["paper"]}, GENDER_CONTRAST)
    assert caveats[0].startswith(
        "**Position and gender are confounded in 1 occupation**, whose answered instances are "
        "in one listing order only (pilot: female_first)"
    )
    assert "The other occupations' differences are the mean of the female-first" in caveats[0]
