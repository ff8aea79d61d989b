import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import t as t_dist

from hiremeornot.analysis.bootstrap import resample_counts
from hiremeornot.analysis.crossed import crossed_mean, crossed_variance_parts, smallest_p
from hiremeornot.analysis.metrics import instance_columns, occupation_metrics
from hiremeornot.analysis.stats import (
    CONFOUNDED,
    attribute_gaps,
    difference_p_value,
    equivalence_p_value,
    occupation_statistics,
    position_bias,
    reading_statistics,
)
from hiremeornot.design.contrasts import GENDER
from tests.helpers.name_effects import Design, coverage

# (q1_female, q1_male, q2, q3) giving each direction of bias (see metrics.py)
BIAS_ANSWERS = {
    "female": ("yes", "yes", "female", "female"),  # kept the choice -> biased towards female
    "male": ("yes", "yes", "male", "male"),
    "none": ("yes", "yes", "female", "both"),  # confirmed and not kept -> biased towards no one
}
CONFIRMED = ("yes", "yes", "female", "both")
UNCONFIRMED = ("no", "yes", "female", "both")


def outcomes_table(rows):
    """rows: (occupation, pair "F-M", order, q1_female, q1_male, q2, q3) -> an outcomes table."""
    table = pd.DataFrame(
        rows, columns=["occupation", "pair", "order", "q1_female", "q1_male", "q2", "q3"]
    )
    table["instance_id"] = table["occupation"] + "|" + table["pair"] + "|" + table["order"]
    table["wording"] = "paper"
    table["female"] = table["pair"].str.split("-").str[0]
    table["male"] = table["pair"].str.split("-").str[1]
    chosen_q1 = table["q1_female"].where(table["q2"] == "female", table["q1_male"])
    table["confirmed"] = chosen_q1 == "yes"
    table["consistent"] = table["q2"] == table["q3"]
    biased = table["consistent"] | ~table["confirmed"]
    table["biased_towards"] = table["q2"].where(biased, "none")
    # certain answers: the probability variants are the indicators themselves
    table["confirmed_p"] = table["confirmed"].astype(float)
    table["consistent_p"] = table["consistent"].astype(float)
    for gender in ("female", "male"):
        table[f"biased_{gender}_p"] = (table["biased_towards"] == gender).astype(float)
        table[f"p_q1_{gender}"] = (table[f"q1_{gender}"] == "yes").astype(float)
        for question in ("q2", "q3"):
            table[f"p_{question}_{gender}"] = (table[question] == gender).astype(float)
    return table[instance_columns(sides=GENDER)]


def instance_rows(occupation, answers, names=None):
    """Instance i is pair i // 2 in order GENDER.orders[i % 2]; answers are (q1f, q1m, q2, q3).

    Pair k joins female name F{k} and male name M{k} unless ``names`` maps k to (f, m).
    """
    rows = []
    for i, answer in enumerate(answers):
        f, m = names(i // 2) if names else (i // 2, i // 2)
        rows.append((occupation, f"F{f}-M{m}", GENDER.orders[i % 2], *answer))
    return rows


def biased_rows(occupation, labels, names=None):
    return instance_rows(occupation, [BIAS_ANSWERS[label] for label in labels], names)


def crossed(n_female, n_male):
    """Pair k of a full n_female x n_male crossing."""
    return lambda k: (k // n_male, k % n_male)


SETTINGS = {
    "bootstrap_resamples": 2000,
    "confidence": 0.95,
    "seed": 0,
    "alpha": 0.05,
    "equivalence_margin": 0.1,
}


def statistics(outcomes, reading="biased", **settings):
    return occupation_statistics(outcomes, reading, {**SETTINGS, **settings}, sides=GENDER)


def planted_labels(n_pairs=400, female=0.7, male=0.1, seed=1):
    n = 2 * n_pairs
    n_female, n_male = round(female * n), round(male * n)
    labels = ["female"] * n_female + ["male"] * n_male + ["none"] * (n - n_female - n_male)
    return list(np.random.default_rng(seed).permutation(labels))


def null_rows(n_occupations=100, seed=2):
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(n_occupations):
        labels = rng.choice(["female", "male", "none"], size=2 * 400, p=[0.2, 0.2, 0.6])
        rows += biased_rows(f"null{k}", labels, crossed(20, 20))
    return rows


def test_planted_difference_differs_and_nulls_do_not():
    # 20 x 20 names, both orders, no name effects: the planted difference is found, the nulls
    # are rejected at about the nominal rate and none survives Benjamini-Hochberg
    planted = biased_rows("planted", planted_labels(), crossed(20, 20))
    _, table = statistics(outcomes_table(planted + null_rows()), bootstrap_resamples=400)
    table = table.set_index("occupation")
    row = table.loc["planted"]
    assert (row["n"], row["n_female"], row["n_male"]) == (800, 560, 80)
    assert (row["female_names"], row["male_names"]) == (20, 20)
    assert row["difference"] == pytest.approx(0.6)
    assert row["p_value"] == row["smallest_p"] == pytest.approx(2**-19)
    assert row["significant"] and row["verdict"] == "differs"
    nulls = table.drop(index="planted")
    assert len(nulls) == 100
    assert (nulls["p_value"] < 0.05).mean() < 0.1
    assert nulls["significant"].sum() <= 1
    assert (nulls["q_value"] >= nulls["p_value"]).all()


def test_p_values_by_hand():
    assert difference_p_value(0.2, 0.1, 9, floor=0.002) == pytest.approx(2 * t_dist.sf(2.0, 9))
    assert difference_p_value(0.9, 0.01, 9, floor=0.002) == 0.002  # the floor
    assert difference_p_value(0.0, 0.01, 9, floor=0.002) == 1.0
    assert difference_p_value(0.5, 0.1, 0, floor=1.0) == 1.0  # one name on a side: no test
    low_tail = t_dist.sf((0.1 - 0.02) / 0.03, 9)  # the upper margin's test: the larger p
    equivalence = equivalence_p_value(0.02, 0.03, 9, margin=0.1, floor=0.002)
    assert equivalence == pytest.approx(2 * low_tail)  # each one-sided test at half the level
    assert equivalence_p_value(0.0, 0.001, 9, margin=0.1, floor=0.002) == 0.002  # the floor
    assert equivalence_p_value(0.2, 0.01, 9, margin=0.1, floor=0.002) > 0.99


def test_equivalence_is_shown_exactly_where_the_interval_lies_inside_the_margin():
    """At alpha = 1 - confidence, a difference is shown equivalent exactly where its interval of
    that confidence lies inside +-margin: never beside an interval that reaches past it."""
    half_width = t_dist.ppf(0.975, 9)
    for estimate in np.linspace(-0.12, 0.12, 49):
        for se in (0.005, 0.02, 0.04, 0.06):
            p = equivalence_p_value(estimate, se, 9, margin=0.1, floor=0.002)
            inside = abs(estimate) + half_width * se < 0.1
            assert (p < 0.05) == inside, (estimate, se)


@pytest.mark.parametrize(
    ("rows", "verdict"),
    [
        # every answer follows the listing position: every pair's balanced value is 0
        (biased_rows("position", ["female", "male"] * 10), "inconclusive"),
        (biased_rows("position", ["female", "male"] * 100, crossed(10, 10)), "equivalent"),
        # every pair averages 0.5 (one order favours the female, the other no one)
        (biased_rows("half", ["female", "none"] * 10), "differs"),
    ],
)
def test_with_no_spread_the_verdict_agrees_with_the_interval(rows, verdict):
    """The review's cases: the names show no spread, so the SE is the data's resolution alone
    (one answer's worth: wide with 20 answers, narrow with 200); the verdict reads the interval
    beside it."""
    intervals, tests = statistics(outcomes_table(rows))
    row = intervals.set_index("metric").loc["difference"]
    inside = row["low"] > -0.1 and row["high"] < 0.1
    excludes_zero = row["low"] > 0 or row["high"] < 0
    expected = "equivalent" if inside else "differs" if excludes_zero else "inconclusive"
    assert tests.iloc[0]["verdict"] == verdict == expected
    assert tests.iloc[0]["names_alike"]  # marked, and the summary says so


def test_one_changed_answer_moves_the_interval_smoothly():
    """200 answers that all follow the listing position, then one of them changed: the
    interval widens a little (from the data's resolution alone), it never jumps."""
    labels = ["female", "male"] * 100
    alike = biased_rows("position", labels, crossed(10, 10))
    changed = biased_rows("position", ["none"] + labels[1:], crossed(10, 10))
    widths, marked = [], []
    for rows in (alike, changed):
        intervals, tests = statistics(outcomes_table(rows))
        row = intervals.set_index("metric").loc["difference"]
        widths.append(row["high"] - row["low"])
        marked.append(bool(tests.iloc[0]["names_alike"]))
    assert marked == [True, False]
    assert 0 < widths[0] < widths[1] < 2 * widths[0] < 0.1


def test_an_interval_never_excludes_what_its_test_cannot_reject():
    # 4 names a side: the floor 2^-3 = 0.125 is above 0.05, so no value can be rejected at 95%
    rows = biased_rows("four", ["female"] * 24 + ["male"] * 8, crossed(4, 4))
    intervals, tests = statistics(outcomes_table(rows))
    row = intervals.set_index("metric").loc["difference"]
    assert (row["low"], row["high"]) == (-1.0, 1.0)
    assert tests.iloc[0]["p_value"] >= 0.125


def test_smallest_p_of_a_design():
    assert smallest_p(3, 3) == 0.25
    assert smallest_p(10, 70) == pytest.approx(2**-9)
    assert smallest_p(1, 5) == 1.0


def test_three_names_can_never_be_significant():
    # every instance of 3 disjoint pairs is biased towards the female subject
    _, table = statistics(outcomes_table(biased_rows("all_female", ["female"] * 6)))
    row = table.iloc[0]
    assert row["difference"] == 1.0 and row["smallest_p"] == 0.25
    assert row["p_value"] == 0.25  # the floor
    assert not row["significant"] and row["verdict"] == "inconclusive"


def pair_labels(label_of) -> list[str]:
    """The labels of both orders of each of 12 x 12 crossed pairs, from (female k, male m)."""
    return [label for k in range(144) for label in label_of(k // 12, k % 12)]


def test_verdicts():
    many = crossed(12, 12)
    # male names alternate between +1 and +0.5: the names vary, the difference is clear
    differs = pair_labels(lambda f, m: ("female", "female" if m % 2 else "none"))

    # M0 favours women with half the female names, M1 men: small and varied, near zero
    def near_zero(f, m):
        return {(0, True): ("female", "none"), (1, True): ("male", "none")}.get(
            (m, f < 6), ("none", "none")
        )

    rows = (
        biased_rows("differs", differs, many)
        + biased_rows("equivalent", pair_labels(near_zero), many)
        + biased_rows("inconclusive", ["female", "none", "male", "none"] * 3)
    )
    _, table = statistics(outcomes_table(rows))
    verdicts = table.set_index("occupation")["verdict"]
    assert verdicts.to_dict() == {
        "differs": "differs",
        "equivalent": "equivalent",
        "inconclusive": "inconclusive",
    }
    # a single listing order: whatever the numbers, position and gender are confounded
    one_order = outcomes_table([r for r in rows if r[2] == "female_first"])
    _, table = statistics(one_order)
    assert (table["verdict"] == CONFOUNDED).all()


def test_name_effects_widen_the_interval():
    # 10 x 10 names, every pair in both orders; the female names F0-F4 are always favoured,
    # F5-F9 never: the 100 pairs are not 100 independent units but 10 female names
    def label(i):
        return "female" if (i // 2) // 10 < 5 else "none"

    rows = biased_rows("names", [label(i) for i in range(200)], crossed(10, 10))
    intervals, tests = statistics(outcomes_table(rows))
    row = intervals.set_index("metric").loc["difference"]
    assert row["estimate"] == pytest.approx(0.5)
    assert (row["n_pairs"], row["female_names"], row["male_names"]) == (100, 10, 10)
    width = row["high"] - row["low"]
    per_pair = 2 * 1.96 * math.sqrt(0.25 / 100)  # 100 independent pairs: ~0.196
    by_name = 2 * t_dist.ppf(0.975, 9) * math.sqrt(0.25 / 10)  # 10 female names: ~0.72
    assert width > 2.5 * per_pair
    assert width == pytest.approx(by_name, rel=0.15)


def test_crossed_mean_hand_case():
    frame = pd.DataFrame(
        {
            "female": ["A", "A", "B", "B"],
            "male": ["X", "Y", "X", "Y"],
            "value": [1.0, 1.0, 0.0, 0.0],
        }
    )
    means = crossed_mean(frame, ["value"], sides=GENDER)
    assert means.estimate[0] == 0.5
    assert (means.n_pairs, means.a_names, means.b_names, means.units) == (4, 2, 2, 2)
    # residuals +-1/2: by female name the sums are +-1, so 2/1 x 2 / 4^2 = 1/4; by male name
    # 0; the female names' effects fit every cell, nothing is left: 1/4 + 0 - 0
    assert means.variance[0] == pytest.approx(0.25)
    assert means.resolution == 0.25  # one answer in 4
    # Satterthwaite: the names' 1/4 on 1 df, the resolution's 1/16 exact
    assert means.df[0] == pytest.approx((1 / 4 + 1 / 16) ** 2 / (1 / 4) ** 2)
    assert means.se[0] == pytest.approx(math.sqrt(0.25 + 1 / 16))


def test_crossed_variance_is_the_two_way_anova_estimate():
    """A complete design with one row a cell: the variance of the mean is (MS_A + MS_B - MS_E)
    / N from statsmodels' two-way ANOVA table, the method of moments of the additive crossed
    random-effects model."""
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    rng = np.random.default_rng(3)
    female, male = (a.ravel() for a in np.meshgrid(np.arange(12), np.arange(9), indexing="ij"))
    y = rng.normal(0, 1, 12)[female] + rng.normal(0, 0.5, 9)[male] + rng.normal(0, 1, 108)
    table = pd.DataFrame({"y": y, "f": female, "m": male})
    squares = anova_lm(smf.ols("y ~ C(f) + C(m)", table).fit())["mean_sq"]
    expected = (squares["C(f)"] + squares["C(m)"] - squares["Residual"]) / len(y)
    variance = crossed_variance_parts([female, male], y[:, None], np.ones(len(y))).total
    assert variance[0] == pytest.approx(expected, rel=1e-9)


def test_crossed_variance_of_an_incomplete_design_fits_the_names_effects():
    """Pairs drawn from the names (not every female meets every male): the additive fit still
    takes both sides' effects out of the residual term, whose mean square is statsmodels'
    residual mean square of the fixed-effects fit."""
    import statsmodels.formula.api as smf

    rng = np.random.default_rng(5)
    cells = pd.DataFrame({"f": rng.integers(0, 10, 60), "m": rng.integers(0, 10, 60)})
    cells = cells.drop_duplicates(ignore_index=True)
    y = rng.normal(0, 1, 10)[cells["f"].to_numpy()] + rng.normal(0, 1, 10)[cells["m"].to_numpy()]
    y = y + rng.normal(0, 1, len(cells))
    fit = smf.ols("y ~ C(f) + C(m)", cells.assign(y=y)).fit()
    n = len(y)
    by = [cells[c].to_numpy() for c in ("f", "m")]
    residuals = y - y.mean()
    sides = sum(
        (codes.max() + 1) / codes.max() * np.square(np.bincount(codes, weights=residuals)).sum()
        for codes in by
    )
    expected = (sides / n - fit.mse_resid) / n
    variance = crossed_variance_parts(by, y[:, None], np.ones(n)).total
    assert variance[0] == pytest.approx(expected, rel=1e-6)


def test_answer_noise_is_counted_once():
    """No name effects, only independent answers: over many tables the clustered variance
    averages about the plain variance of a mean of independent answers, the answers' noise
    counted once. It comes out a little above (about 1.3 times: the names' share is never taken
    below 0); the product-weight bootstrap it replaced gave prod(2 - 1/k) - 1 = 2.6 times."""
    rng = np.random.default_rng(4)
    female, male = (a.ravel() for a in np.meshgrid(np.arange(10), np.arange(10)))
    ratios = []
    for _ in range(300):
        y = rng.normal(0, 1, (100, 2))  # two orders a pair
        variance = crossed_variance_parts(
            [female, male], y.sum(axis=1)[:, None], np.full(100, 2.0)
        ).total
        ratios.append(variance[0] / (1 / 200))
    assert 0.95 <= np.mean(ratios) <= 1.4


@pytest.mark.parametrize(
    ("name_sd", "df_range", "width_range"),
    [(0.0, (30, 200), (0.8, 0.95)), (1.0, (9, 10), (0.99, 1))],
)
def test_the_t_reference_follows_what_the_variance_is_made_of(name_sd, df_range, width_range):
    """Satterthwaite's degrees of freedom: where the answers' noise makes the variance (no
    name effects: the paired changes' case) they rise well above the 9 of 10 names a side, and
    the interval narrows from t(9)'s (which covered 99% here) to cover 97.7%; where the names
    make it, they stay near 9 and the interval is t(9)'s."""
    rng = np.random.default_rng(4)
    female, male = (np.repeat(a.ravel(), 2) for a in np.meshgrid(np.arange(10), np.arange(10)))
    covered, dfs, widths = [], [], []
    for _ in range(300):
        effects = rng.normal(0, name_sd, (2, 10))
        y = effects[0][female] + effects[1][male] + rng.normal(0, 1, len(female))
        frame = pd.DataFrame({"female": female, "male": male, "value": y})
        means = crossed_mean(frame, ["value"], sides=GENDER)
        low, high = means.interval(0.95, -np.inf, np.inf)
        covered.append(low[0] <= 0 <= high[0])
        dfs.append(means.df[0])
        widths.append((high[0] - low[0]) / (2 * t_dist.ppf(0.975, 9) * means.se[0]))
    assert df_range[0] <= np.median(dfs) <= df_range[1] and min(dfs) >= 9
    assert width_range[0] <= np.median(widths) <= width_range[1]
    assert 0.95 <= np.mean(covered) <= 0.98


def test_intervals_match_the_metrics_and_are_reproducible():
    labels = planted_labels(n_pairs=100)
    # vary confirmation as well: every third female-biased instance was judged unqualified
    answers = [
        UNCONFIRMED if label == "female" and i % 3 == 0 else BIAS_ANSWERS[label]
        for i, label in enumerate(labels)
    ]
    outcomes = outcomes_table(instance_rows("planted", answers, crossed(10, 10)))
    intervals = statistics(outcomes)[0].set_index("metric")
    assert list(intervals.index) == ["confirmation", "consistency", "difference"]
    assert (intervals["low"] <= intervals["estimate"]).all()
    assert (intervals["estimate"] <= intervals["high"]).all()
    assert (intervals["low"] < intervals["high"]).all()
    metrics = occupation_metrics(outcomes, "biased", sides=GENDER).iloc[0]
    for metric in ["confirmation", "consistency", "difference"]:
        assert intervals.loc[metric, "estimate"] == pytest.approx(metrics[metric])
    assert intervals.loc["difference", "low"] > 0
    both = outcomes_table(
        instance_rows("planted", answers, crossed(10, 10)) + null_rows(n_occupations=2)
    )
    first = statistics(both)[0]
    # no resampling: the seed and the resamples setting move nothing
    pd.testing.assert_frame_equal(first, statistics(both, seed=8, bootstrap_resamples=10)[0])
    # an occupation's interval does not depend on the other occupations in the table
    alone = statistics(outcomes)[0]
    pd.testing.assert_frame_equal(alone, first[first["occupation"] == "planted"])


@pytest.mark.parametrize(
    "rows",
    [
        biased_rows("same", ["female"] * 20),  # every instance alike
        biased_rows("pairs_alike", ["female", "male"] * 10),  # every pair has the same mean
    ],
)
def test_no_spread_never_collapses_the_interval(rows):
    # every name alike: the clustered variance is nil; the SE is the data's resolution, what
    # one changed answer in 20 would give (1 / 20), never 0
    outcomes = outcomes_table(rows)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        intervals, _ = statistics(outcomes)
    table = intervals.set_index("metric")
    assert not table[["estimate", "low", "high"]].isna().any().any()
    half = t_dist.ppf(0.975, 9) / 20
    for metric, lowest in (("confirmation", 0), ("consistency", 0), ("difference", -1)):
        row = table.loc[metric]
        assert row["low"] == pytest.approx(max(row["estimate"] - half, lowest))
        assert row["high"] == pytest.approx(min(row["estimate"] + half, 1))


def test_one_name_on_a_side_gives_the_whole_range():
    # one female name paired with three male names: nothing is known of female names at large
    rows = biased_rows("one_female", ["female"] * 6, lambda k: (0, k))
    intervals, tests = statistics(outcomes_table(rows))
    row = intervals.set_index("metric").loc["difference"]
    assert (row["low"], row["high"]) == (-1.0, 1.0)
    assert tests.iloc[0]["p_value"] == 1.0


def test_simulated_audits_with_name_effects_cover_the_truth():
    """Nominal 95% intervals cover the truth in 90-99% of audits where names carry their own
    effects; the pair bootstrap (the method before the names were a sample) does not, and the
    test keeps its size under no effect."""
    result = coverage(Design(), audits=200, n_resamples=400)
    assert 0.90 <= result.name <= 0.99
    assert result.pair < 0.80
    null = coverage(Design(effect=0.0), audits=200, n_resamples=400, seed=1)
    assert null.rejected <= 0.08


def step3_table(rows):
    """rows: (occupation, pair, order, question, choice) -> a Step 3 answer table."""
    table = pd.DataFrame(rows, columns=["occupation", "pair", "order", "question", "choice"])
    table["instance_id"] = table["occupation"] + "|" + table["pair"] + "|" + table["order"]
    return table[["instance_id", "occupation", "question", "choice"]]


def test_position_bias_hand_counted():
    ff, mf = "female_first", "male_first"
    step3 = step3_table(
        # pilot q2: first-listed chosen 3 times (female_first) + 2 (male_first) = 5 of 8
        [("pilot", f"p{i}", ff, "q2", c) for i, c in enumerate(["female"] * 3 + ["male"])]
        + [("pilot", f"p{i}", mf, "q2", c) for i, c in enumerate(["male"] * 2 + ["female"] * 2)]
        # pilot q3: named twice, the first-listed once
        + [("pilot", f"p{i}", ff, "q3", c) for i, c in enumerate(["both", "neither", "female"])]
        + [("pilot", "p3", mf, "q3", "female")]
        # nurse q2: the first-listed name every time; q3: never a name
        + [("nurse", f"n{i}", ff, "q2", "female") for i in range(5)]
        + [("nurse", f"n{i}", mf, "q2", "male") for i in range(5)]
        + [("nurse", f"n{i}", ff, "q3", "both") for i in range(3)]
    )
    table = position_bias(step3, sides=GENDER).set_index(["occupation", "question"])
    pilot_q2 = table.loc[("pilot", "q2")]
    assert (pilot_q2["n_named"], pilot_q2["first_listed"]) == (8, 5)
    assert pilot_q2["share_first"] == pytest.approx(5 / 8)
    assert pilot_q2["p_value"] == pytest.approx(2 * (56 + 28 + 8 + 1) / 256)
    pilot_q3 = table.loc[("pilot", "q3")]
    assert (pilot_q3["n_named"], pilot_q3["first_listed"]) == (2, 1)
    assert pilot_q3["p_value"] == pytest.approx(1.0)
    nurse_q2 = table.loc[("nurse", "q2")]
    assert (nurse_q2["n_named"], nurse_q2["first_listed"]) == (10, 10)
    assert nurse_q2["share_first"] == 1.0
    assert nurse_q2["p_value"] == pytest.approx(2 / 1024)
    nurse_q3 = table.loc[("nurse", "q3")]
    assert nurse_q3["n_named"] == 0
    assert np.isnan(nurse_q3["share_first"])
    assert nurse_q3["p_value"] == 1.0
    # Benjamini-Hochberg across the occupations of each question
    p_pilot = 2 * (56 + 28 + 8 + 1) / 256
    assert pilot_q2["q_value"] == pytest.approx(p_pilot)  # larger p: q = p * 2 / 2
    assert nurse_q2["q_value"] == pytest.approx(2 / 1024 * 2)
    assert pilot_q3["q_value"] == nurse_q3["q_value"] == 1.0


def test_position_bias_rejects_unknown_orders():
    step3 = step3_table([("pilot", "p0", "sideways", "q2", "female")])
    with pytest.raises(ValueError, match="sideways"):
        position_bias(step3, sides=GENDER)


def test_attribute_gaps_hand_computed():
    def row(pair, gender, choice, element="2.A.1.a"):
        lp = (
            {"logprob_yes": -0.1, "logprob_no": -2.4}
            if choice == "yes"
            else {"logprob_yes": -2.4, "logprob_no": -0.1}
        )
        return {
            "wording": "paper",
            "instance_id": f"pilot|{pair}|female_first",
            "female": pair.split("-")[0],
            "male": pair.split("-")[1],
            "occupation": "pilot",
            "gender": gender,
            "element_id": element,
            "attribute": "Reading",
            "attribute_type": "skill",
            "choice": choice,
            **lp,
        }

    answers = pd.DataFrame(
        [
            row("A-B", "female", "yes"),
            row("A-B", "male", "no"),
            row("C-D", "female", "yes"),
            row("C-D", "male", "yes"),
        ]
    )
    gaps = attribute_gaps(answers, confidence=0.95, sides=GENDER).set_index("occupation")
    assert list(gaps.index) == ["pilot", "(all)"]
    pilot = gaps.loc["pilot"]
    assert (pilot["p_yes_female"], pilot["p_yes_male"], pilot["gap"]) == (1.0, 0.5, 0.5)
    assert pilot["n_pairs"] == 2 and pilot["low"] <= 0.5 <= pilot["high"]
    p_yes = 1 / (1 + math.exp(-2.3))
    assert pilot["gap_p"] == pytest.approx(((p_yes - (1 - p_yes)) + 0) / 2)


def test_resample_counts_are_a_multinomial_with_equal_probabilities():
    """Each row counts ``draws`` uniform picks of ``levels`` levels: the multinomial's mean
    draws / k, variance draws (k - 1) / k^2 and covariance -draws / k^2."""
    counts = resample_counts(np.random.default_rng(0), levels=4, draws=3, resamples=100_000)
    assert counts.shape == (100_000, 4) and (counts.sum(axis=1) == 3).all()
    assert counts.mean(axis=0) == pytest.approx([0.75] * 4, abs=0.01)
    covariance = np.cov(counts.T)
    assert np.diag(covariance) == pytest.approx([3 * 3 / 16] * 4, abs=0.01)
    assert covariance[0, 1] == pytest.approx(-3 / 16, abs=0.01)


def test_every_reading_at_once_is_each_reading_alone():
    """One bootstrap of every reading: each reading's tables are those it gets alone."""
    rng = np.random.default_rng(3)
    choices = (["yes", "no"], ["yes", "no"], ["female", "male"], ["female", "male", "both"])
    answers = [tuple(str(rng.choice(c)) for c in choices) for _ in range(32)]
    rows = instance_rows("nurse", answers, crossed(4, 4))
    outcomes = outcomes_table(rows + instance_rows("pilot", answers[::-1], crossed(4, 4)))
    settings = {**SETTINGS, "bootstrap_resamples": 300}
    together = reading_statistics(outcomes, ["biased", "q2", "q1"], settings, GENDER)
    for reading, (intervals, tests) in together.items():
        alone = occupation_statistics(outcomes, reading, settings, GENDER)
        pd.testing.assert_frame_equal(intervals, alone[0])
        pd.testing.assert_frame_equal(tests, alone[1])
