import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import t as t_dist

from hiremeornot.analysis.impact import (
    COLUMNS,
    MIN_NAMES,
    SELECTION_COLUMNS,
    contrast_selections,
    detectable_ratio,
    impact_ratios,
    selection_rates,
)
from hiremeornot.design.contrasts import Sides
from hiremeornot.writing.impact import impact_markdown
from hiremeornot.writing.impact_figure import impact_figure


def answers(occupation, question, group, name, selected):
    """One selections row per 0/1 in ``selected``, all about ``name``."""
    return [
        {
            "occupation": occupation,
            "question": question,
            "name": name,
            "group": group,
            "selected": s,
        }
        for s in selected
    ]


def table_of(*parts):
    return pd.DataFrame([row for part in parts for row in part])


def row(table, occupation, question, group):
    match = table[
        (table["occupation"] == occupation)
        & (table["question"] == question)
        & (table["group"] == group)
    ]
    assert len(match) == 1
    return match.iloc[0]


def spread_names(occupation, question, group, selected_names, never_names, n_answers=4):
    """Names always selected and names never selected, ``n_answers`` rows each."""
    return [
        *(
            r
            for i in range(selected_names)
            for r in answers(occupation, question, group, f"{group}{i}", [1] * n_answers)
        ),
        *(
            r
            for i in range(never_names)
            for r in answers(occupation, question, group, f"{group}x{i}", [0] * n_answers)
        ),
    ]


# occupation "nurse": A = 3/4 (a1: 2 of 2, a2: 1 of 2), B = 3/8 (b1: 2 of 4, b2: 1 of 4)
# occupation "pilot", q2: the groups C, A, B (C listed first) with A = C = 1/2, B = 1/4
# occupation "judge": never anyone selected
HAND = table_of(
    answers("nurse", "q1", "A", "a1", [True, True]),
    answers("nurse", "q1", "B", "b1", [True, True, False, False]),
    answers("nurse", "q1", "A", "a2", [True, False]),
    answers("nurse", "q1", "B", "b2", [True, False, False, False]),
    answers("pilot", "q2", "C", "c1", [1, 0]),
    answers("pilot", "q2", "A", "a1", [1, 1, 0, 0]),
    answers("pilot", "q2", "B", "b1", [1, 0, 0, 0]),
    answers("judge", "q3", "B", "b1", [0, 0]),
    answers("judge", "q3", "A", "a1", [0, 0, 0]),
)


def test_hand_computed_rates_ratios_and_flags():
    table = impact_ratios(HAND)
    assert list(table.columns) == COLUMNS
    # occupations in order of first appearance, then question, then group
    assert list(zip(table["occupation"], table["group"], strict=True)) == [
        ("nurse", "A"),
        ("nurse", "B"),
        ("pilot", "A"),
        ("pilot", "B"),
        ("pilot", "C"),
        ("judge", "A"),
        ("judge", "B"),
    ]
    a, b = row(table, "nurse", "q1", "A"), row(table, "nurse", "q1", "B")
    assert (a["rate"], a["n_names"], a["n_answers"]) == (0.75, 2, 4)
    assert (b["rate"], b["n_names"], b["n_answers"]) == (0.375, 2, 8)
    assert (a["reference"], b["reference"]) == ("A", "A")
    assert (a["impact_ratio"], b["impact_ratio"]) == (1.0, 0.5)
    assert (bool(a["below_threshold"]), bool(b["below_threshold"])) == (False, True)


def test_tie_for_the_highest_rate_takes_the_first_group_in_sorted_order():
    table = impact_ratios(HAND)
    pilot = table[table["occupation"] == "pilot"].set_index("group")
    assert set(pilot["reference"]) == {"A"}
    assert list(pilot["rate"]) == [0.5, 0.25, 0.5]
    assert list(pilot["impact_ratio"]) == [1.0, 0.5, 1.0]
    assert list(pilot["below_threshold"]) == [False, True, False]
    assert list(pilot["n_names"]) == [1, 1, 1]


def test_all_rates_zero_give_nan_ratios_and_no_flags():
    table = impact_ratios(HAND)
    judge = table[table["occupation"] == "judge"]
    assert list(judge["rate"]) == [0.0, 0.0]
    assert judge[["impact_ratio", "ratio_low", "ratio_high"]].isna().all().all()
    assert not judge["below_threshold"].any()
    assert not judge["clearly_below"].any()
    assert judge["below_threshold"].dtype == bool and judge["clearly_below"].dtype == bool


def test_selection_rates_by_hand():
    expected = pd.DataFrame(
        [
            ("nurse", "q1", "A", 2, 4, 3 / 4),
            ("nurse", "q1", "B", 2, 8, 3 / 8),
            ("pilot", "q2", "A", 1, 4, 2 / 4),
            ("pilot", "q2", "B", 1, 4, 1 / 4),
            ("pilot", "q2", "C", 1, 2, 1 / 2),
            ("judge", "q3", "A", 1, 3, 0.0),
            ("judge", "q3", "B", 1, 2, 0.0),
        ],
        columns=["occupation", "question", "group", "n_names", "n_answers", "rate"],
    )
    rates = selection_rates(HAND)
    pd.testing.assert_frame_equal(rates, expected, check_dtype=False)
    table = impact_ratios(HAND)
    pd.testing.assert_frame_equal(table[list(expected.columns)], expected, check_dtype=False)


def test_interval_contains_the_estimate():
    selections = table_of(
        spread_names("nurse", "q1", "A", 6, 2),
        spread_names("nurse", "q1", "B", 3, 5),
        answers("nurse", "q1", "B", "b_mixed", [1, 0, 1]),
    )
    table = impact_ratios(selections)
    assert (table["rate_low"] <= table["rate"]).all()
    assert (table["rate"] <= table["rate_high"]).all()
    assert (table["ratio_low"] <= table["impact_ratio"]).all()
    assert (table["impact_ratio"] <= table["ratio_high"]).all()
    assert (table["rate_low"] < table["rate_high"]).all()  # the names differ: not a point


def test_where_every_name_answers_alike_the_interval_is_one_answers_step_wide():
    # each A name 3 of 4, each B name 1 of 4: the names show no spread, so the standard error is
    # one answer's step (1 / 40), never 0, and the interval t(9) of it either side
    selections = table_of(
        *(answers("nurse", "q1", "A", f"a{i}", [1, 1, 1, 0]) for i in range(10)),
        *(answers("nurse", "q1", "B", f"b{i}", [0, 1, 0, 0]) for i in range(10)),
    )
    table = impact_ratios(selections).set_index("group")
    half = t_dist.ppf(0.975, 9) / 40
    assert table.loc["A", ["rate_low", "rate_high"]].tolist() == pytest.approx(
        [0.75 - half, 0.75 + half]
    )
    assert table.loc["B", ["rate_low", "rate_high"]].tolist() == pytest.approx(
        [0.25 - half, 0.25 + half]
    )
    # B's ratio to A: 1/3, one B answer moving it by 1 / (40 x 0.75)
    ratio_half = t_dist.ppf(0.975, 9) / 30
    assert table.loc["B", ["ratio_low", "ratio_high"]].tolist() == pytest.approx(
        [1 / 3 - ratio_half, 1 / 3 + ratio_half]
    )


def test_with_too_few_names_the_interval_is_the_whole_range():
    # 5 names a group: the test's floor (2^-4) is above 0.05, so nothing can be excluded
    selections = table_of(
        spread_names("nurse", "q1", "A", 4, 1),
        spread_names("nurse", "q1", "B", 1, 4),
    )
    table = impact_ratios(selections)
    assert (table["rate_low"] == 0).all() and (table["rate_high"] == 1).all()
    assert (table["ratio_low"] == 0).all() and (table["ratio_high"] == 1).all()


def test_interval_is_over_names_not_answers():
    # B: 5 names always selected, 5 never, 100 answers each: the rate is 1/2 and its standard
    # error over the 10 names sqrt(10 / 9 x 10 x 50^2) / 1000 = 0.167, not that of 1000
    # independent answers (0.016)
    selections = table_of(
        spread_names("nurse", "q1", "A", 10, 0),
        spread_names("nurse", "q1", "B", 5, 5, n_answers=100),
    )
    b = row(impact_ratios(selections), "nurse", "q1", "B")
    assert b["rate"] == 0.5
    names, step = 10 / 9 * 10 * 50**2 / 1000**2, 1 / 1000**2  # and one answer's step
    df = 9 * (1 + step / names) ** 2  # Satterthwaite's: the names' share on 9, the step exact
    half = t_dist.ppf(0.975, df) * np.sqrt(names + step)
    assert (b["rate_low"], b["rate_high"]) == pytest.approx((0.5 - half, 0.5 + half))


def test_interval_has_the_width_of_a_95_percent_interval_over_names():
    # 400 names, half always selected, half never: the rate's standard error over names is
    # sqrt(0.25 / 400) = 0.025, so the 95% interval is about 0.5 +- 1.96 x 0.025 = +- 0.049
    selections = table_of(
        spread_names("nurse", "q1", "A", 200, 200, n_answers=3),
        spread_names("nurse", "q1", "B", 10, 0),
    )
    a = row(impact_ratios(selections), "nurse", "q1", "A")
    assert a["rate_low"] == pytest.approx(0.451, abs=0.006)
    assert a["rate_high"] == pytest.approx(0.549, abs=0.006)
    # B (always selected) is the reference: A's ratio to it is its rate, with the t of B's
    # 10 names (t(9) of the same standard error)
    se = (a["rate_high"] - a["rate"]) / t_dist.ppf(0.975, 399)
    assert a["ratio_high"] - a["impact_ratio"] == pytest.approx(t_dist.ppf(0.975, 9) * se, rel=0.01)


def test_clearly_below_needs_the_whole_interval_under_the_threshold():
    far = table_of(
        spread_names("nurse", "q1", "A", 10, 0, n_answers=5),
        spread_names("nurse", "q1", "B", 0, 10, n_answers=5),
    )
    b = row(impact_ratios(far), "nurse", "q1", "B")
    assert b["impact_ratio"] == 0.0 and b["ratio_high"] < 0.1  # one answer's step wide
    assert b["below_threshold"] and b["clearly_below"]

    close = table_of(
        spread_names("nurse", "q1", "A", 6, 4),
        spread_names("nurse", "q1", "B", 5, 5),
    )
    b = row(impact_ratios(close), "nurse", "q1", "B")
    assert b["impact_ratio"] == pytest.approx(5 / 6)
    assert not b["below_threshold"] and not b["clearly_below"]

    # below the four-fifths point estimate, but 10 names per group cannot show it clearly
    noisy = table_of(
        spread_names("nurse", "q1", "A", 6, 4),
        spread_names("nurse", "q1", "B", 4, 6),
    )
    b = row(impact_ratios(noisy), "nurse", "q1", "B")
    assert b["impact_ratio"] == pytest.approx(2 / 3)
    assert b["below_threshold"] and not b["clearly_below"]
    assert b["ratio_high"] >= 0.8

    # the ratio 0, but over too few names to place it: the whole range
    few = table_of(
        spread_names("nurse", "q1", "A", MIN_NAMES - 1, 0, n_answers=20),
        spread_names("nurse", "q1", "B", 0, 10, n_answers=20),
    )
    b = row(impact_ratios(few), "nurse", "q1", "B")
    assert b["ratio_high"] == 1.0 and b["below_threshold"] and not b["clearly_below"]


def test_selections_of_a_contrast_select_whom_each_answer_names():
    sides = Sides("race", "black", "white", "Black", "White")
    instances = pd.DataFrame(
        {
            "instance_id": ["nurse|Ann-Dot|black_first", "nurse|Ann-Dot|white_first"],
            "name1": ["Ann", "Dot"],
            "name2": ["Dot", "Ann"],
            "race1": ["black", "white"],
            "race2": ["white", "black"],
        }
    )
    step2 = pd.DataFrame(
        {
            "wording": "paper",
            "instance_id": ["nurse|Ann-Dot|black_first"] * 2,
            "occupation": "nurse",
            "subject": ["Ann", "Dot"],
            "choice": ["yes", "no"],
            # Yes 3 times as likely as No for Ann (0.75), as likely for Dot (0.5)
            "logprob_yes": [np.log(0.3), np.log(0.1)],
            "logprob_no": [np.log(0.1), np.log(0.1)],
        }
    )
    step3 = pd.DataFrame(
        {
            "wording": "paper",
            "instance_id": [*instances["instance_id"], *instances["instance_id"]],
            "occupation": "nurse",
            "question": ["q2", "q2", "q3", "q3"],
            "choice": ["white", "white", "both", "neither"],
        }
    )
    groups = {"Ann": "Black female", "Dot": "White female"}
    rows = contrast_selections(step2, step3, instances, groups, sides)
    chosen = rows.groupby(["question", "name"])["selected"].agg(list).to_dict()
    assert chosen == {
        ("q1", "Ann"): [True],
        ("q1", "Dot"): [False],
        ("q2", "Ann"): [False, False],
        ("q2", "Dot"): [True, True],
        ("q3", "Ann"): [True, False],  # "both" selects both, "neither" neither
        ("q3", "Dot"): [False, True],  # first as name1 of the "neither" question
    }
    assert set(zip(rows["name"], rows["partner"], strict=True)) == {("Ann", "Dot"), ("Dot", "Ann")}
    q2 = rows[rows["question"] == "q2"]
    assert set(zip(q2["name"], q2["paired_with"], strict=True)) == {
        ("Ann", "White female"),
        ("Dot", "Black female"),
    }
    scores = rows.groupby(["question", "name"])["score"].agg(list).to_dict()
    assert scores[("q1", "Ann")] == pytest.approx([0.75])
    assert scores[("q1", "Dot")] == pytest.approx([0.5])
    assert rows.loc[rows["question"] != "q1", "score"].isna().all()
    assert list(rows.columns) == SELECTION_COLUMNS
    with pytest.raises(ValueError, match="not in the name list"):
        contrast_selections(step2, step3, instances, {"Ann": "Black female"}, sides)


def random_selections(seed, occupations=("nurse", "pilot", "judge")):
    rng = np.random.default_rng(seed)
    rows = []
    for occupation in occupations:
        for question in ("q1", "q2"):
            for group in ("A", "B", "C"):
                for i in range(5):
                    chosen = rng.integers(0, 2, size=int(rng.integers(1, 6)))
                    rows += answers(occupation, question, group, f"{group}{i}", chosen)
    return pd.DataFrame(rows)


def test_occupations_do_not_depend_on_each_other():
    selections = random_selections(0)
    first = impact_ratios(selections)
    without_nurse = impact_ratios(selections[selections["occupation"] != "nurse"])
    pd.testing.assert_frame_equal(
        first[first["occupation"] != "nurse"].reset_index(drop=True), without_nurse
    )


@pytest.mark.parametrize("column", ["occupation", "question", "name", "group", "selected"])
def test_missing_column_is_named(column):
    with pytest.raises(ValueError, match=column):
        impact_ratios(HAND.drop(columns=column))
    with pytest.raises(ValueError, match=column):
        selection_rates(HAND.drop(columns=column))


def test_selected_must_be_boolean():
    with pytest.raises(ValueError, match="selected"):
        impact_ratios(HAND.assign(selected=2))


def test_figure_writes_a_png(tmp_path):
    table = impact_ratios(random_selections(1))
    table = pd.concat([table, impact_ratios(HAND)])  # NaN ratios too
    path = tmp_path / "figures" / "impact.png"
    impact_figure(table, "tiny-model", path)
    assert path.stat().st_size > 1000
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not list(path.parent.glob(".*partial*"))
    assert not math.isnan(table["impact_ratio"].max())


@pytest.mark.parametrize(
    ("confounded", "phrase"),
    [(False, "Both listing orders are pooled"), (True, "**Only one listing order was run")],
)
def test_the_report_phrases_the_findings_listing_orders(confounded, phrase):
    table = impact_ratios(HAND)
    settings = {"impact_threshold": 0.8, "confidence": 0.95}
    assert phrase in impact_markdown(table, "m", settings, confounded=confounded)


def test_a_groups_interval_varies_with_the_names_it_met():
    # every A name beats b0-b2 and loses to b3-b5: A's own names all look alike (rate 1/2
    # each), but its rate depends on which B names it met, so its interval must be wide
    rows = []
    for a in (f"a{i}" for i in range(6)):
        for b, a_chosen in ((f"b{j}", int(j < 3)) for j in range(6)):
            rows += [
                {"occupation": "nurse", "question": "q2", "name": a, "group": "A"}
                | {"selected": a_chosen, "partner": b},
                {"occupation": "nurse", "question": "q2", "name": b, "group": "B"}
                | {"selected": 1 - a_chosen, "partner": a},
            ]
    a = row(impact_ratios(pd.DataFrame(rows)), "nurse", "q2", "A")
    assert a["rate"] == 0.5
    assert a["rate_low"] < 0.4 and a["rate_high"] > 0.6


def ratio_draws(rates: dict[str, float], audits: int = 40) -> pd.DataFrame:
    """Impact tables of ``audits`` simulated audits, 8 names a group, 6 answers a name, each
    answer selected with its group's true rate."""
    rng = np.random.default_rng(3)
    tables = []
    for _ in range(audits):
        rows = [
            r
            for group, rate in rates.items()
            for i in range(8)
            for r in answers("nurse", "q1", group, f"{group}{i}", rng.random(6) < rate)
        ]
        tables.append(impact_ratios(table_of(rows)))
    return pd.concat(tables, ignore_index=True)


def test_a_ratio_leans_low_at_a_tie_by_what_ratio_lean_says():
    """Two groups with the same true rate (true ratios 1): the ratio under 1 of each audit
    reads low by about the lean its row states (E|D| / reference, D's crossed standard error)."""
    tables = ratio_draws({"A": 0.5, "B": 0.5})
    lower = tables[tables["impact_ratio"] < 1]
    realized = 1 - lower["impact_ratio"].mean()
    assert realized > 0.1  # the highest of two noisy rates is the reference
    assert lower["ratio_lean"].mean() == pytest.approx(realized, rel=0.3)


def test_far_from_a_tie_the_lean_is_a_bound_not_the_bias():
    tables = ratio_draws({"A": 0.8, "B": 0.3})
    b = tables[tables["group"] == "B"]
    realized = 0.3 / 0.8 - b["impact_ratio"].mean()
    assert abs(realized) < b["ratio_lean"].mean() / 2
    assert (tables["ratio_lean"] > 0).all()


def test_a_ratio_at_the_detectable_ratio_is_told_from_1_in_about_4_audits_of_5():
    at_a_tie = ratio_draws({"A": 0.5, "B": 0.5})
    detectable = float(np.median(detectable_ratio(at_a_tie["ratio_lean"].to_numpy(), 0.95)))
    assert 0.3 < detectable < 0.6  # 8 names a group, 6 answers a name
    planted = ratio_draws({"A": 0.5, "B": 0.5 * detectable}, audits=80)
    b = planted[planted["group"] == "B"]
    assert 0.65 < (b["ratio_high"] < 1).mean() < 0.92


def test_the_report_says_how_low_the_ratios_can_read_or_that_it_is_not_known():
    settings = {"impact_threshold": 0.8, "confidence": 0.95}
    table = ratio_draws({"A": 0.5, "B": 0.3}, audits=1)
    lean = table["ratio_lean"].iloc[0]
    text = impact_markdown(table, "m", settings, confounded=False)
    assert f"by up to `ratio_lean` on average (here {lean:.3f})" in text
    few = impact_markdown(impact_ratios(HAND), "m", settings, confounded=False)
    assert "How low a ratio can read at a tie with the reference is not known here" in few
