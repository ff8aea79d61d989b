"""The crossed variance of selection rates, ratios and their changes (selection_variance.py)."""

import numpy as np
import pandas as pd
import pytest

from hiremeornot.analysis.crossed import crossed_variance_parts
from hiremeornot.analysis.impact import tally
from hiremeornot.analysis.selection_variance import pair_cells, ratio_bounds


def q2_answers(seed: int, n: int = 8) -> pd.DataFrame:
    """Q2 answers of every pair of n female and n male names, twice each (both orders), with
    name effects: one row per answer and person."""
    rng = np.random.default_rng(seed)
    female, male = rng.normal(0, 0.7, n), rng.normal(0, 0.7, n)
    rows = []
    for i in range(n):
        for j in range(n):
            for _ in range(2):
                chosen = rng.random() < 1 / (1 + np.exp(male[j] - female[i]))
                rows.append((f"F{i}", "female", f"M{j}", chosen))
                rows.append((f"M{j}", "male", f"F{i}", not chosen))
    table = pd.DataFrame(rows, columns=["name", "group", "partner", "selected"])
    return table.assign(occupation="nurse", question="q2")


def test_a_rates_variance_is_the_two_way_crossed_variance_of_its_answers():
    answers = q2_answers(0)
    cells = tally(answers).cells[("nurse", "q2")]
    pairs = pair_cells([cells], cells.groups())
    coefficients = np.array([[1.0, 0.0]])  # the female rate
    women = answers[answers["group"] == "female"]
    summed = women.groupby(["name", "partner"])["selected"].agg(["sum", "size"]).reset_index()
    expected = crossed_variance_parts(
        [pd.factorize(summed["name"])[0], pd.factorize(summed["partner"])[0]],
        summed[["sum"]].to_numpy(float),
        summed["size"].to_numpy(float),
    ).total[0]
    assert total(pairs.variance(coefficients)) == pytest.approx(expected, rel=1e-9)
    # in Q2 the two rates sum to one: their difference has four times a rate's variance, and
    # the two groups' variances are one
    assert total(pairs.variance(np.array([[0.0, 1.0]]))) == pytest.approx(expected, rel=1e-9)
    assert total(pairs.variance(np.array([[1.0, -1.0]]))) == pytest.approx(4 * expected, rel=1e-9)


def total(parts) -> float:
    """A variance from its parts: the names' share and the answers' own."""
    return float(parts.levels[0] + parts.residual[0])


def test_a_ratios_interval_is_its_smallest_to_any_group_and_the_reference_reaches_1():
    answers = q2_answers(1, n=10)
    cells = tally(answers).cells[("nurse", "q2")]
    pairs = pair_cells([cells], cells.groups())
    rates = pairs.rates[0]
    low, high = ratio_bounds(pairs, np.array([True, True]), 0.95)
    top, other = np.argmax(rates), np.argmin(rates)
    assert high[top] == 1.0 and low[top] < 1.0  # another group may be on top
    assert low[other] < rates[other] / rates[top] <= high[other] <= 1.0
