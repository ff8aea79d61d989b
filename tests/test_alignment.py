"""Each occupation's result against who holds the job: the slope, its interval over names and
occupations, and the occupations that go against their workforce."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from hiremeornot.analysis.alignment import CrossedFit, alignment
from hiremeornot.design.contrasts import GENDER, Sides
from hiremeornot.writing.alignment import alignment_sentence
from hiremeornot.writing.alignment_figure import alignment_notes

SETTINGS = {"difference": "q2", "confidence": 0.95, "alpha": 0.05}
FEMALE = [f"f{i}" for i in range(6)]
MALE = [f"m{i}" for i in range(6)]


def outcomes(favour_women: dict[str, float], rng: np.random.Generator, name_effect=None):
    """Outcomes of every pair of FEMALE x MALE names, both orders, in each occupation: Q2 names
    the woman with probability ``favour_women[occupation]`` (plus the female name's
    ``name_effect``); every other reading is a tie."""
    rows = []
    for occupation, p in favour_women.items():
        for female, male, order in itertools.product(FEMALE, MALE, ("female_first", "male_first")):
            shift = (name_effect or {}).get(female, 0.0)
            q2 = "female" if rng.random() < min(max(p + shift, 0), 1) else "male"
            rows.append(
                {
                    "instance_id": f"{occupation}-{female}-{male}-{order}",
                    "occupation": occupation,
                    "female": female,
                    "male": male,
                    "order": order,
                    "wording": "paper",
                    "q1_female": "yes",
                    "q1_male": "yes",
                    "q2": q2,
                    "q3": "both",
                    "biased_towards": "none",
                }
            )
    return pd.DataFrame(rows)


def shares_of(share_women: dict[str, float | None]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "occupation": list(share_women),
            "category": [o.title() if s is not None else "" for o, s in share_women.items()],
            "match": ["exact" if s is not None else "none" for s in share_women.values()],
            "reason": "test",
            "share_women": [np.nan if s is None else s for s in share_women.values()],
        }
    )


def verdicts_of(table: pd.DataFrame, differs: set[str] = frozenset()) -> pd.DataFrame:
    occupations = table["occupation"].unique()
    verdicts = ["differs" if o in differs else "inconclusive" for o in occupations]
    return pd.DataFrame({"occupation": occupations, "verdict": verdicts})


SHARES = {"pilot": 0.05, "mechanic": 0.1, "lawyer": 0.35, "teacher": 0.75, "nurse": 0.9}


def test_the_slope_is_the_least_squares_line_of_the_occupations_results():
    rng = np.random.default_rng(0)
    table = outcomes({o: 0.2 + 0.6 * s for o, s in SHARES.items()}, rng)
    found = alignment(table, shares_of(SHARES), verdicts_of(table), GENDER, SETTINGS)
    row = found.summary.set_index("measure").loc["difference"]
    q2 = (table["q2"] == "female").astype(float) * 2 - 1
    results = q2.groupby(table["occupation"]).mean().reindex(list(SHARES))
    slope, _ = np.polyfit(list(SHARES.values()), results, 1)
    assert row["slope"] == pytest.approx(slope)
    assert row["correlation"] == pytest.approx(np.corrcoef(list(SHARES.values()), results)[0, 1])
    assert row["slope_low"] < row["slope"] < row["slope_high"]
    assert row["outcome"] == "follows the workforce" and row["slope_p"] < 0.05
    assert row["correlation_low"] < row["correlation"] < row["correlation_high"] <= 1
    band = found.band[found.band["measure"] == "difference"]
    assert (band["low"] < band["fit"]).all() and (band["fit"] < band["high"]).all()


def test_a_model_that_prefers_no_one_shows_no_alignment_and_half_against_by_chance():
    rng = np.random.default_rng(1)
    table = outcomes(dict.fromkeys(SHARES, 0.5), rng)
    row = alignment(table, shares_of(SHARES), verdicts_of(table), GENDER, SETTINGS)
    row = row.summary.set_index("measure").loc["difference"]
    assert row["outcome"] == "not shown"
    assert row["slope_low"] < 0 < row["slope_high"]


def test_an_effect_a_name_has_in_every_occupation_leaves_the_slope_alone():
    table = pd.DataFrame(
        np.random.default_rng(2).normal(size=(len(FEMALE) * len(MALE), len(SHARES))),
        index=pd.MultiIndex.from_product([FEMALE, MALE], names=["female", "male"]),
    )
    share = np.array(list(SHARES.values()))
    plain = CrossedFit(table, share)
    shifted = CrossedFit(table + np.repeat(np.arange(len(FEMALE)), len(MALE))[:, None], share)
    assert shifted.slope == pytest.approx(plain.slope)
    weights = plain.slope_weights[:, None]
    assert shifted.spread(weights)[0] == pytest.approx(plain.spread(weights)[0])
    # a name's own slope (its effect grows with the share) widens the interval
    own = table + np.outer(np.repeat(np.linspace(-2, 2, len(FEMALE)), len(MALE)), share)
    assert CrossedFit(own, share).spread(weights)[0] > 2 * plain.spread(weights)[0]


def test_occupations_against_their_workforce_are_counted_with_their_verdicts():
    rng = np.random.default_rng(3)
    # pilot and nurse favour the gender under-represented in the job, the others do not
    favour = {"pilot": 0.9, "mechanic": 0.2, "lawyer": 0.2, "teacher": 0.9, "nurse": 0.1}
    table = outcomes(favour, rng)
    found = alignment(table, shares_of(SHARES), verdicts_of(table, {"pilot"}), GENDER, SETTINGS)
    against = found.occupations.set_index("occupation")["against_workforce"]
    assert against.to_dict() == {
        "pilot": True,
        "mechanic": False,
        "lawyer": False,
        "teacher": False,
        "nurse": True,
    }
    row = found.summary.set_index("measure").loc["difference"]
    assert (row["against"], row["rated"], row["against_differs"], row["differs"]) == (2, 5, 1, 1)
    assert row["against_low"] < 0.4 < row["against_high"]


def test_too_few_matched_occupations_give_no_line_and_unmatched_ones_are_kept():
    rng = np.random.default_rng(4)
    shares = {"pilot": 0.05, "nurse": 0.9, "lawyer": None}
    table = outcomes(dict.fromkeys(shares, 0.5), rng)
    found = alignment(table, shares_of(shares), verdicts_of(table), GENDER, SETTINGS)
    row = found.summary.set_index("measure").loc["difference"]
    assert row["outcome"] == "too few occupations" and row["occupations"] == 2
    assert np.isnan(row["slope"]) and found.band.empty
    lawyer = found.occupations.set_index("occupation").loc["lawyer"]
    assert lawyer["match"] == "none" and pd.isna(lawyer["against_workforce"])
    summary = found.summary.assign(source="a survey", year=2012, licence="CC BY 4.0")
    assert "not measured: a slope needs at least 3 occupations matched" in alignment_sentence(
        summary, found.occupations, audited=3
    )


def test_the_figure_says_which_intervals_span_every_possible_difference():
    rng = np.random.default_rng(4)
    shares = {"pilot": 0.05, "nurse": 0.9, "lawyer": None}
    table = outcomes(dict.fromkeys(shares, 0.5), rng)
    found = alignment(table, shares_of(shares), verdicts_of(table), GENDER, SETTINGS)
    row = found.summary.assign(source="a survey", year=2012, licence="CC BY 4.0")
    row = row.set_index("measure").loc["difference"]
    occupations = found.occupations.assign(low=[-1.0, -0.4, -1.0], high=[1.0, 0.3, 1.0])
    notes = alignment_notes(occupations, row)
    assert "Not matched to a job category: lawyer." in notes
    # lawyer spans the range too, but is not drawn: of the 2 matched, pilot alone
    assert [n for n in notes if "span" in n] == [
        "1 of 2 intervals spans every possible difference (-1 to 1): too few names a side to "
        "bound them, so those points say nothing alone."
    ]
    bounded = occupations.assign(low=-0.5, high=0.5)
    assert not [n for n in alignment_notes(bounded, row) if "span" in n]


def test_a_contrast_listed_male_first_reads_the_same_female_minus_male():
    rng = np.random.default_rng(5)
    table = outcomes({o: 0.2 + 0.6 * s for o, s in SHARES.items()}, rng)
    male_first = Sides("gender", "male", "female", "male", "female")
    flipped = alignment(table, shares_of(SHARES), verdicts_of(table), male_first, SETTINGS)
    plain = alignment(table, shares_of(SHARES), verdicts_of(table), GENDER, SETTINGS)
    pd.testing.assert_frame_equal(flipped.summary, plain.summary)


def test_the_slope_is_fitted_again_without_the_broad_matches_and_said_beside_the_headline():
    rng = np.random.default_rng(6)
    # the broad matches (lawyer, teacher) carry the line; pilot, mechanic, nurse lie flat
    favour = {"pilot": 0.5, "mechanic": 0.5, "lawyer": 0.05, "teacher": 0.95, "nurse": 0.5}
    table = outcomes(favour, rng)
    shares = shares_of(SHARES)
    shares.loc[shares["occupation"].isin(["lawyer", "teacher"]), "match"] = "broad"
    found = alignment(table, shares, verdicts_of(table), GENDER, SETTINGS)
    row = found.summary.set_index("measure").loc["difference"]
    close = ["pilot", "mechanic", "nurse"]
    q2 = (table["q2"] == "female").astype(float) * 2 - 1
    results = q2.groupby(table["occupation"]).mean().reindex(close)
    assert row["close_occupations"] == 3
    assert row["close_slope"] == pytest.approx(
        np.polyfit([SHARES[o] for o in close], results, 1)[0]
    )
    assert row["close_slope_low"] < 0 < row["close_slope_high"] and row["close_slope_p"] > 0.05
    assert row["slope"] > 0.5 > row["close_slope_high"]  # all five: steep; the close: flat
    summary = found.summary.assign(source="a survey", year=2012, licence="CC BY 4.0")
    sentence = alignment_sentence(summary, found.occupations, audited=5)
    assert "over the 3 exact or close matches alone, " in sentence
    # with two close matches, no line of their own
    shares.loc[shares["occupation"] == "nurse", "match"] = "broad"
    found = alignment(table, shares, verdicts_of(table), GENDER, SETTINGS)
    row = found.summary.set_index("measure").loc["difference"]
    assert row["close_occupations"] == 2 and np.isnan(row["close_slope"])
    summary = found.summary.assign(source="a survey", year=2012, licence="CC BY 4.0")
    sentence = alignment_sentence(summary, found.occupations, audited=5)
    assert "too few exact or close matches (2) to fit without the broad ones" in sentence
    exact = alignment(table, shares_of(SHARES), verdicts_of(table), GENDER, SETTINGS).summary
    sentence = alignment_sentence(
        exact.assign(source="s", year=1, licence="l"), found.occupations, 5
    )
    assert "all 5 matches exact or close;" in sentence
