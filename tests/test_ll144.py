"""The Local Law 144 summary's numbers against a fixture computed by hand, and its words."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hiremeornot.analysis import bootstrap, impact
from hiremeornot.analysis.ll144 import (
    COLUMNS,
    ll144_rates,
    name_categories,
    rescored,
    scoring_median,
    unknown_categories,
    unscored,
    weighted_medians,
)
from hiremeornot.writing.ll144 import ll144_markdown
from hiremeornot.writing.ll144_csv import CSV_COLUMNS, ll144_csv

NAMES = pd.DataFrame(
    {
        "name": ["Ann", "Bea", "Cal", "Dan"],
        "gender": ["female", "female", "male", "male"],
        "race": ["Black", "White", "Black", "White"],
    }
)
# Q1: (name, partner, judged qualified, probability of Yes). Ann is turned down once with a
# high score, so selection and scoring differ.
Q1 = [
    ("Ann", "Cal", True, 0.90),
    ("Ann", "Dan", False, 0.95),
    ("Bea", "Cal", True, 0.80),
    ("Bea", "Dan", True, 0.70),
    ("Cal", "Ann", False, 0.30),
    ("Cal", "Bea", True, 0.60),
    ("Dan", "Ann", False, 0.20),
    ("Dan", "Bea", False, 0.10),
]
# Q2: the two people of each pair, the first one chosen
Q2 = [("Ann", "Cal", True), ("Cal", "Ann", False), ("Dan", "Bea", True), ("Bea", "Dan", False)]


def selections() -> pd.DataFrame:
    rows = [
        {"question": "q1", "name": n, "partner": p, "selected": s, "score": score}
        for n, p, s, score in Q1
    ]
    rows += [
        {"question": "q2", "name": n, "partner": p, "selected": s, "score": float("nan")}
        for n, p, s in Q2
    ]
    table = pd.DataFrame(rows).assign(wording="paper", occupation="nurse")
    table["instance_id"] = [f"i{i}" for i in range(len(table))]
    return table


def rated(table: pd.DataFrame, characteristic: str, measure: str) -> pd.DataFrame:
    part = table[(table["characteristic"] == characteristic) & (table["measure"] == measure)]
    return part.set_index("category")


@pytest.fixture(scope="module")
def rates() -> pd.DataFrame:
    return ll144_rates(selections(), NAMES, n_resamples=200, seed=0, confidence=0.95, threshold=0.8)


def test_selection_rates_and_impact_ratios_per_characteristic_by_hand(rates):
    assert list(rates.columns) == COLUMNS
    sex = rated(rates, "sex", "selection_q1")
    assert sex["n_applicants"].to_dict() == {"female": 4, "male": 4}
    assert sex["n_selected"].to_dict() == {"female": 3, "male": 1}
    assert sex["rate"].to_dict() == {"female": 0.75, "male": 0.25}
    assert sex["impact_ratio"].to_dict() == pytest.approx({"female": 1.0, "male": 1 / 3})
    assert set(sex["reference"]) == {"female"}
    race = rated(rates, "race_ethnicity", "selection_q1")
    assert race["rate"].to_dict() == {"Black": 0.5, "White": 0.5}
    assert race["impact_ratio"].to_dict() == {"Black": 1.0, "White": 1.0}
    both = rated(rates, "intersectional", "selection_q1")
    assert both["rate"].to_dict() == {
        "Black female": 0.5,
        "Black male": 0.5,
        "White female": 1.0,
        "White male": 0.0,
    }
    assert both["impact_ratio"].to_dict() == {
        "Black female": 0.5,
        "Black male": 0.5,
        "White female": 1.0,
        "White male": 0.0,
    }
    assert (both["share"] == 0.25).all() and not both["small"].any()
    measured = rates[rates["measured"]]
    assert (measured["rate_low"] <= measured["rate"]).all()
    assert (measured["rate"] <= measured["rate_high"]).all()


def test_a_head_to_head_category_that_met_only_its_own_is_not_measured(rates):
    """Q2 pairs Ann with Cal (both Black) and Dan with Bea (both White): by race the choices
    compare nothing, a share of one half fixed by the design; by sex they do."""
    race = rated(rates, "race_ethnicity", "head_to_head_q2")
    assert not race["measured"].any()
    assert race[["rate", "impact_ratio", "reference"]].isna().all().all()
    sex = rated(rates, "sex", "head_to_head_q2")
    assert sex["measured"].all() and sex["rate"].notna().all()


def test_scoring_rates_count_scores_above_the_full_samples_median(rates):
    # the eight scores' median: (0.60 + 0.70) / 2
    assert scoring_median(selections()) == pytest.approx(0.65)
    sex = rated(rates, "sex", "scoring_q1")
    assert sex["n_selected"].to_dict() == {"female": 4, "male": 0}
    assert sex["rate"].to_dict() == {"female": 1.0, "male": 0.0}
    assert sex["impact_ratio"].to_dict() == {"female": 1.0, "male": 0.0}
    both = rated(rates, "intersectional", "scoring_q1")
    assert both["rate"].to_dict() == {
        "Black female": 1.0,
        "Black male": 0.0,
        "White female": 1.0,
        "White male": 0.0,
    }


def test_head_to_head_choices_are_their_own_measure(rates):
    q2 = rated(rates, "sex", "head_to_head_q2")
    assert q2["n_applicants"].to_dict() == {"female": 2, "male": 2}
    assert q2["rate"].to_dict() == {"female": 0.5, "male": 0.5}
    assert set(rates["measure"]) == {"selection_q1", "scoring_q1", "head_to_head_q2"}


def test_a_category_under_two_percent_keeps_its_rate_but_gets_no_ratio():
    """60 applicants: Ann (Black female) 30 at rate 0.5, Dan (White male) 29 at rate 0.25, Eve
    (Asian female) 1, selected: 1/60 < 2%, so the reference is Ann's, not Eve's 1.0."""
    names = pd.concat(
        [NAMES, pd.DataFrame({"name": ["Eve"], "gender": ["female"], "race": ["Asian"]})]
    )
    rows = [("Ann", "Dan", i % 2 == 0) for i in range(30)]
    rows += [("Dan", "Ann", i % 4 == 0) for i in range(28)] + [("Dan", "Ann", False)]
    rows += [("Eve", "Ann", True)]
    table = pd.DataFrame(
        [
            {"question": "q1", "name": n, "partner": p, "selected": s, "score": 0.5}
            for n, p, s in rows
        ]
    ).assign(wording="paper", occupation="nurse")
    table["instance_id"] = [f"i{i}" for i in range(len(table))]
    rates = ll144_rates(table, names, n_resamples=100, seed=0, confidence=0.95, threshold=0.8)
    race = rated(rates, "race_ethnicity", "selection_q1")
    assert race["n_applicants"].to_dict() == {"Asian": 1, "Black": 30, "White": 29}
    assert race["rate"].to_dict() == pytest.approx({"Asian": 1.0, "Black": 0.5, "White": 7 / 29})
    assert race["small"].to_dict() == {"Asian": True, "Black": False, "White": False}
    assert pd.isna(race.at["Asian", "impact_ratio"])
    assert set(race["reference"]) == {"Black"}
    assert race.at["White", "impact_ratio"] == pytest.approx((7 / 29) / 0.5)


def test_a_list_without_races_has_sex_alone_and_unknown_categories_are_counted():
    genders = NAMES.assign(race="")
    assert list(name_categories(genders).columns) == ["name", "sex"]
    rates = ll144_rates(
        selections(), genders, n_resamples=50, seed=0, confidence=0.95, threshold=0.8
    )
    assert set(rates["characteristic"]) == {"sex"}
    partial = NAMES.assign(race=["Black", "", "Black", "White"])  # Bea's race unknown
    counts = unknown_categories(selections(), name_categories(partial))
    assert counts == {"sex": 0, "race_ethnicity": 3, "intersectional": 3}  # Bea: 2 Q1, 1 Q2
    assert unscored(selections()) == 0


MANIFEST = {
    "run": {"started": "2026-12-01T10:00:00Z", "finished": "2026-12-01T11:00:00Z"}
    | {"from_store": 2, "questions": 12},
    "config": {
        "names": {"list": "bloomberg"},
        "sources": {"names": {"bloomberg": {"folder": "bloomberg-gpt-hiring"}}},
    },
    "config_sha256": "abc",
    "project": {"git": {"commit": "0123"}},
    "sources": [
        {"source": "bloomberg-gpt-hiring", "title": "Bloomberg names", "licence": "MIT"}
        | {"version": "v1"},
        {"source": "onet", "title": "O*NET", "licence": "CC BY 4.0", "version": "29.3"},
    ],
    "models": {"m": {"model": "embedded:smollm2-135m-instruct", "backend": "transformers"}},
}


def summary(rates, manifest, counts) -> str:
    """The Local Law 144 summary of ``rates`` as these tests write it (95%, threshold 0.8)."""
    return ll144_markdown(
        rates,
        "m",
        manifest,
        selections(),
        counts,
        threshold=0.8,
        confidence=0.95,
        audit_date="2026-12-02",
    )


def test_the_summary_says_the_counts_the_data_and_no_verdict(rates):
    counts = {"unknown": {"sex": 0, "race_ethnicity": 0, "intersectional": 0}}
    counts |= {"unscored": 0, "median": 0.65, "confounded": False, "free": []}
    text = summary(rates, MANIFEST, counts)
    for phrase in [
        "No verdict",
        "Applicants of an unknown category: sex 0; race/ethnicity 0; intersectional",
        "median is 0.6500",
        "Test data, not historical data",
        "Bloomberg names (licence: MIT; version: v1)",
        "release 29.3",
        "the audit date (of this summary) 2026-12-02; the tool's distribution date **not "
        "given** (`models.m.distribution_date`",
        "; the answers by the run of 2026-12-01T10:00:00Z",
        "### Intersectional (race/ethnicity x sex)",
        "Head-to-head choices: Q2",
        "| selection_q1 | intersectional | White male | 1 | 0.000 |",  # under 0.8: listed
        "9 of 22 ratios are under 0.8",
        "Local Law 144 does not adopt it",
        "Both listing orders are pooled",
        "not measured: met only its own category",
        "Not measured: Black (race/ethnicity, head_to_head_q2); White (race/ethnicity",
        "sex: 4 names for 8 applicants (selection_q1)",
        "EEO-1 categories this name list cannot represent: Hispanic or Latino, Asian, Native "
        "Hawaiian or Other Pacific Islander, American Indian or Alaska Native, Two or More Races.",
        "can read low at a tie by up to",
        "Power: not known. No ratio here rests on 5 names or more",
    ]:
        assert phrase in text, phrase
    one_order = summary(rates, MANIFEST, counts | {"confounded": True})
    assert "**Only one listing order was run" in one_order
    assert "held to the answer constraint" in text and "Asked free" not in text
    free = summary(rates, MANIFEST, counts | {"free": ["q2", "q3"]})
    assert "- Asked free (answers_mode): Q2 and Q3. An instance" in free
    assert "some free: a non-answer is no applicant" in free
    assert "held to the answer constraint" not in free
    dated = MANIFEST | {
        "config": MANIFEST["config"] | {"models": {"m": {"distribution_date": "2027-01-04"}}}
    }
    dated_text = summary(rates, dated, counts)
    assert "the tool's distribution date 2027-01-04;" in dated_text
    # with a lean of 0.1: 1 - (1.96 + 0.84) x 0.1 / sqrt(2 / pi) = 0.65
    leaning = summary(rates.assign(ratio_lean=0.1), MANIFEST, counts)
    assert "a ratio would have to lie near 0.65 or below for its 95% interval" in leaning
    assert set(ll144_csv(rates, "m", dated, audit_date="2026-12-02")["distribution_date"]) == {
        "2027-01-04"
    }
    table = ll144_csv(rates, "m", MANIFEST, audit_date="2026-12-02")
    assert list(table.columns) == CSV_COLUMNS
    assert set(table["data_type"]) == {"test data"}
    assert len(table) == len(rates)


def test_weighted_medians_are_the_medians_of_the_repeated_values():
    rng = np.random.default_rng(0)
    values = np.sort(rng.random(7))
    weights = rng.integers(0, 4, (50, 7))
    expected = [np.median(np.repeat(values, w)) if w.sum() else np.nan for w in weights]
    assert np.allclose(weighted_medians(values, weights), expected, equal_nan=True)


def scoring_rows(scores: dict[str, list[float]]) -> pd.DataFrame:
    """Scoring applicants (no partner) of names A0.. and B0.., their group the first letter."""
    rows = [
        {"name": name, "group": name[0], "score": score, "partner": impact.NOBODY}
        for name, listed in scores.items()
        for score in listed
    ]
    table = pd.DataFrame(rows).assign(occupation="all", question="scoring_q1")
    return table.assign(selected=table["score"] > table["score"].median())


def test_each_resample_is_scored_against_its_own_median():
    """With every name drawn once a resample is the sample; with some drawn twice and others
    not, its rates are those of the sample it stands for, median and all."""
    rows = scoring_rows({"A0": [0.9, 0.6], "A1": [0.5], "B0": [0.4, 0.55], "B1": [0.2, 0.3]})
    cells = impact.tally(rows).cells[("all", "scoring_q1")]
    _, column = bootstrap.name_draws(cells, 1, np.random.default_rng(0))
    under = rescored(rows)
    once = np.ones((1, len(column)))
    # median 0.5: A 2 of 3 above it (0.9, 0.6), B 1 of 4 (0.55)
    assert under(cells, once, column)[0].tolist() == [2 / 3, 0.25]
    drawn = once.copy()
    drawn[0, column["A1"]], drawn[0, column["B1"]], drawn[0, column["B0"]] = 0, 2, 0
    # the sample A0, B1, B1: scores 0.2 0.2 0.3 0.3 0.6 0.9, median 0.3
    assert under(cells, drawn, column)[0].tolist() == [1.0, 0.0]


def test_a_resamples_share_above_its_own_median_is_one_half():
    """Above the median is half the sample by definition, in every sample: rescored, every
    resample keeps that (less the scores tied at its median); against the full
    sample's median held fixed, the resamples' shares wander from it, so their spread would be
    read as the rates' uncertainty."""
    rng = np.random.default_rng(1)
    rows = scoring_rows({f"A{i}": list(rng.random(3)) for i in range(12)})
    cells = impact.tally(rows).cells[("all", "scoring_q1")]
    draws, column = bootstrap.name_draws(cells, 300, np.random.default_rng(2))
    answers = draws[:, [column[name] for name in rows["name"]]].sum(axis=1)
    own = rescored(rows)(cells, draws, column)[:, 0]
    ties = draws.max(axis=1)  # a name drawn k times puts k equal scores at the median
    assert np.all((own <= 0.5) & (own >= 0.5 - ties / answers))
    fixed = bootstrap.rates_under(cells, draws, column)[:, 0]
    assert np.abs(fixed - 0.5).max() > 0.1
