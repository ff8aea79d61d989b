"""What the summary, the difference tables and the power section say in words."""

import math
import re

import pandas as pd
import pytest

from hiremeornot.analysis.power import design_power, detectable, names_needed, pairs_needed
from hiremeornot.analysis.stats import ALL_OCCUPATIONS, CONFOUNDED
from hiremeornot.design.contrasts import GENDER, GENDER_CONTRAST
from hiremeornot.writing.differences import design_caveats
from hiremeornot.writing.estimate import power_markdown
from hiremeornot.writing.markdown import markdown_table
from hiremeornot.writing.summary import model_summary, pooled_sentence
from tests.helpers.report_tables import REPORT, found, tables


def test_one_order_is_called_confounded_and_makes_no_gender_claim():
    metrics, tests, position = tables("female_first", 3, CONFOUNDED)
    text = model_summary(metrics, tests, found(metrics, tests, position), REPORT, GENDER_CONTRAST)
    assert "Position and gender are confounded" in text
    assert "the female name was always listed first" in text
    assert "Q2 named the first-listed subject in 100% of its answers" in text
    assert "not gender findings" in text and "favour female" not in text
    # three names a side: the test's floor is 0.25, and the summary says nothing can be significant
    assert "the test's floor on p (2^(1-k), the exact sign test's smallest p with k" in text
    assert "is 0.25, not below alpha" in text
    assert "no occupation can be significant" in text


def test_both_orders_report_verdicts_and_the_balance():
    metrics, tests, position = tables("female_first+male_first", 10, "differs")
    text = model_summary(metrics, tests, found(metrics, tests, position), REPORT, GENDER_CONTRAST)
    assert "order-balanced" in text and "confounded" not in text
    assert "2 differ (q < 0.05)" in text and "nurse (+0.90)" in text
    assert "1 towards female, 1 towards male subjects; 2 of them differ significantly" in text
    assert "no occupation can be significant" not in text
    assert "2 occupations show a position bias" in text
    # Q2 has 6 named answers an occupation (smallest p 1/32); Q3 at most 2 (smallest p 0.5)
    q2, q3 = (line for line in text.splitlines() if line.startswith(("- Q2 named", "- Q3 named")))
    assert "cannot go below" not in q2
    assert "With at most 2 such answers an occupation, the test cannot go below p = 0.5" in q3
    caveats = design_caveats(found(metrics, tests, position), REPORT, GENDER_CONTRAST)
    assert "10 female and 10 male names" in caveats[1]
    # floor 2^-9 over 2 occupations: BH flags at the floor already with one of them
    assert "an occupation at that floor can be flagged on its own." in caveats[1]
    assert "one wording" in caveats[3]
    assert "held to its answer space" in caveats[4] and "forced choice" in caveats[4]


def test_power_brackets_and_needs():
    # 10 names a side, 100 pairs x 2 orders: the no-name-variance MDD uses 200 instances
    assert detectable(200, 10, alpha=0.05) == pytest.approx(
        (2.2622 + 0.8834) / math.sqrt(200), rel=1e-3
    )
    assert detectable(6, 3, alpha=0.05) == math.inf  # smallest p 0.25: the test cannot reject
    assert names_needed(0.5, alpha=0.05) >= 6  # the floor 2^(1-k) < 0.05 needs at least 6 names
    assert (
        detectable(names_needed(0.3, alpha=0.05), names_needed(0.3, alpha=0.05), alpha=0.05) <= 0.3
    )
    assert pairs_needed(0.2, orders=2, names=10, alpha=0.05) == math.ceil(
        ((2.2622 + 0.8834) / 0.2) ** 2 / 2
    )


def power_section(instances, models, capacity, wordings=1):
    """The estimate's power section of a design, at the report settings of these tests."""
    power = design_power(
        instances,
        GENDER,
        alpha=REPORT["alpha"],
        differences=REPORT["power_differences"],
        wordings=wordings,
    )
    return power_markdown(power, models, GENDER, capacity)


def test_power_section_of_a_three_pair_design():
    instances = pd.DataFrame(
        {
            "occupation": ["nurse"] * 6,
            "female": ["A", "A", "B", "B", "C", "C"],
            "male": ["X", "X", "Y", "Y", "Z", "Z"],
            "pair_id": ["A-X", "A-X", "B-Y", "B-Y", "C-Z", "C-Z"],
            "order": ["female_first", "male_first"] * 3,
        }
    )
    capacity = {"list": "big", "names": {"female": 100, "male": 90}, "pairs": 9000, "misread": 2}
    text = power_section(instances, ["m1", "m2"], capacity)
    assert "every model (m1, m2)" in text
    assert "The test's floor on p: 0.25" in text and "not the smallest p the design allows" in text
    assert "no occupation can be significant" in text
    assert "none (the test cannot reject)" in text
    assert (
        "This design uses 3 female and 3 male names in 3 pairs; the list `big` has 100 female "
        "and 90 male names (after the 2 names some model misreads are dropped), which make 9000 "
        "pairs (`names.pairs` higher, or `all`, uses more)."
    ) in text


def ten_pairs() -> pd.DataFrame:
    """One occupation, 10 female and 10 male names in 10 pairs, one listing order."""
    names = [f"N{i}" for i in range(10)]
    return pd.DataFrame(
        {
            "occupation": "nurse",
            "female": names,
            "male": [n.lower() for n in names],
            "pair_id": [f"{n}-{n.lower()}" for n in names],
            "order": "female_first",
        }
    )


def test_the_designs_power_is_decided_as_data_before_it_is_phrased():
    instances = ten_pairs()
    one = design_power(instances, GENDER, alpha=0.05, differences=[0.2, 0.5])
    assert (one.a_names, one.pairs, one.orders, one.per_occupation) == (10, 10, 1, 10.0)
    assert one.floor == 2**-9 and one.reachable and not one.wordings_limit
    assert one.flaggable == 1 and one.best == detectable(10, 10, alpha=0.05)
    assert one.needed["difference"].tolist() == [0.2, 0.5]
    assert one.needed["names"].tolist() == [names_needed(d, alpha=0.05) for d in (0.2, 0.5)]
    four = design_power(instances, GENDER, alpha=0.05, differences=[0.2], wordings=4)
    assert four.floor == 0.125 and not four.reachable and four.wordings_limit
    assert four.best == math.inf and four.needed["names"].tolist() == [math.inf]


def test_the_power_section_says_when_the_design_uses_the_whole_list():
    instances = pd.DataFrame(
        {
            "occupation": "nurse",
            "female": ["A", "A", "B", "B"],
            "male": ["X", "Y", "X", "Y"],
            "pair_id": ["A-X", "A-Y", "B-X", "B-Y"],
            "order": "female_first",
        }
    )
    whole = {"list": "small", "names": {"female": 2, "male": 2}, "pairs": 4, "misread": 0}
    text = power_section(instances, ["m"], whole)
    assert (
        "This design uses 2 female and 2 male names in 4 pairs: the list `small` has 2 female "
        "and 2 male names, which make 4 pairs, all of them in this design"
    ) in text


def test_the_summary_says_how_many_occupations_must_sit_at_the_floor():
    metrics, tests, position = tables("female_first+male_first", 10, "inconclusive")
    many = pd.concat([tests] * 31, ignore_index=True)  # 62 occupations
    caveats = design_caveats(found(metrics, many, position), REPORT, GENDER_CONTRAST)
    # 62 x 2^-9 / 0.05 = 2.4: three at the floor before BH flags any
    assert "can be flagged only once 3 of them sit at that floor" in caveats[1]
    assert "'0 differ' does not say that none does" in caveats[1]


def test_the_power_section_counts_the_wordings():
    instances = ten_pairs()
    capacity = {"list": "l", "names": {"female": 10, "male": 10}, "pairs": 100, "misread": 0}
    one = power_section(instances, ["m"], capacity, wordings=1)
    four = power_section(instances, ["m"], capacity, wordings=4)
    assert "The test's floor on p: 0.00195" in one
    assert "The test's floor on p: 0.125 (the exact sign test's smallest p with 4 wordings" in four
    assert "no occupation can be significant" in four and "none (the test cannot reject)" in four
    assert "unreachable" in four  # no number of names lifts the cap of 4 wordings
    assert detectable(200, 10, alpha=0.05, wordings=4) == math.inf


def test_the_summary_says_where_the_names_show_no_spread():
    """An occupation whose every pair answered alike has an interval of the data's resolution
    alone: the summary says so in bold; with spread everywhere it says nothing."""
    metrics, tests, position = tables("female_first+male_first", 10, "differs")
    alike = tests.assign(names_alike=[True, False])
    text = model_summary(metrics, alike, found(metrics, alike, position), REPORT, GENDER_CONTRAST)
    assert "**In 1 occupation every name pair's difference is alike**" in text
    assert "say nothing of how other names would answer" in text
    varied = tests.assign(names_alike=False)
    spread = model_summary(
        metrics, varied, found(metrics, varied, position), REPORT, GENDER_CONTRAST
    )
    assert "is alike" not in spread


def test_the_pooled_sentence_says_it_speaks_for_these_wordings_only():
    """With several wordings the model can flag where the bootstrap's floor lets nothing be
    significant (wordings are its fixed effects): the sentence says why."""
    table = pd.DataFrame(
        {
            "question": ["q2", "q2"],
            "occupation": [ALL_OCCUPATIONS, "nurse"],
            "log_odds": [0.3, 1.4],
            "low": [-0.1, 0.6],
            "high": [0.7, 2.2],
            "flagged": [False, True],
            "converged": [True, True],
        }
    )
    several = pooled_sentence(table, GENDER, 0.05, 2)
    assert "Q2: nurse (+1.40)" in several
    assert "Its 2 wordings are fixed effects, not a sample: it speaks for these wordings only" in (
        several
    )
    assert "fixed effects" not in pooled_sentence(table, GENDER, 0.05, 1)


def test_one_markdown_table_escapes_a_bar_in_any_cell_or_header():
    frame = pd.DataFrame({"instance | id": ["nurse|Ann-Bob|female_first"], "p": [0.12345]})
    assert markdown_table(frame) == (
        "| instance \\| id | p |\n|---|---|\n| nurse\\|Ann-Bob\\|female_first | 0.123 |\n"
    )


@pytest.mark.parametrize(
    ("mode", "free", "held"),
    [
        ({"step3": "free"}, "Q2 and Q3 were asked free", "Step 1 and Q1 were held"),
        ({"step2": "free"}, "Q1 was asked free", "Q2 was held to its answer space"),
        ("free", "Step 1, Q1, Q2 and Q3 were asked free", None),
    ],
)
def test_the_constraint_caveat_says_which_questions_were_asked_free(mode, free, held):
    metrics, tests, position = tables("female_first+male_first", 10, "differs")
    findings = found(metrics, tests, position, mode)
    note = design_caveats(findings, REPORT, GENDER_CONTRAST)[4]
    assert free in note and "selected sample" in note and "Every answer was held" not in note
    assert (held in note) if held else "held" not in note


@pytest.mark.parametrize(
    ("mode", "why"),
    [
        ({"step3": "free"}, "not measured (Q2 and Q3 asked free carry no probabilities)"),
        ("constrained", "not measured (this backend gives no probabilities)"),
    ],
)
def test_metrics_without_probabilities_say_why_not_nan(mode, why):
    metrics, tests, position = tables("female_first+male_first", 10, "differs")
    bare = metrics.assign(confirmation_p=float("nan"), consistency_p=float("nan"))
    findings = found(bare, tests, position, mode)
    text = model_summary(bare, tests, findings, REPORT, GENDER_CONTRAST)
    assert not re.search(r"\bnan\b", text)
    assert f"Confirmation: median 0.500 (range 0.500-0.500); from the probabilities: {why}." in (
        text
    )
    assert f"Consistency: median 0.500 (range 0.500-0.500); from the probabilities: {why}." in text
    measured = model_summary(
        metrics, tests, found(metrics, tests, position), REPORT, GENDER_CONTRAST
    )
    assert "from the probabilities: median 0.500." in measured
