"""The numbers of a New York City Local Law 144 bias-audit summary (6 RCNY 5-300 to 5-304).

Per model, over the whole test data (every occupation and contrast, a question two contrasts
share counted once), for each category of three protected characteristics, each computed on its
own as the rules require: sex, race/ethnicity, and the intersectional sex x race/ethnicity (a
list without races has sex alone). An applicant is one answer about one named person: one
name in one instance (pair, listing order) and wording.

- **Selection rate** (Q1, judged qualified: the primary selection): the share of a category's
  applicants the model selected; Q2 and Q3 head-to-head choices apart (a "rate" there depends on
  whom the category met).
- **Scoring rate**: the model's score is its probability of "Yes" to Q1 (over the answer space);
  the share of a category's applicants scoring above the median of the full sample. The median
  is of the sample, so each bootstrap resample scores against its own (``rescored``).
- **Impact ratio**: a category's rate over the highest category's rate, with percentile
  intervals from the crossed name bootstrap (analysis/bootstrap.py).
- Categories under 2% of the applicants are left out of the impact ratios (their counts and
  rates are kept), as the rules allow an auditor to; applicants whose category is unknown are
  counted (0 when every listed name has every attribute).
- A head-to-head category that met only its own category (sex, where every pair is matched on
  sex) compares nothing: its share is fixed by the design (Q2: one half), so it is "not
  measured" (``measured`` False; no rate, no ratio) rather than 0.500 with a ratio of 1.

The rules set no threshold and this module passes no verdict.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from hiremeornot.analysis import impact
from hiremeornot.analysis.bootstrap import NameBootstrap, RatesUnder

# characteristic -> the name-list attributes its categories are made of
CHARACTERISTICS = {
    "sex": ("gender",),
    "race_ethnicity": ("race",),
    "intersectional": ("race", "gender"),
}
# measure -> (the selection's question, what counts as selected)
MEASURES = {
    "selection_q1": "q1",
    "scoring_q1": "q1",
    "head_to_head_q2": "q2",
    "head_to_head_q3": "q3",
}
SMALL_SHARE = 0.02  # a category under this share of the applicants gets no impact ratio
ALL_OCCUPATIONS = "all occupations"
COLUMNS = [
    "characteristic",
    "measure",
    "category",
    "n_applicants",
    "n_selected",
    "n_names",
    "share",
    "small",
    "measured",
    *impact.RATE_AND_RATIO,
    "clearly_below",
]


def name_categories(names: pd.DataFrame) -> pd.DataFrame:
    """Per listed name, its category of each characteristic the list can tell (empty where
    the name lacks an attribute: an unknown category); a list without races has sex alone."""
    table = pd.DataFrame({"name": names["name"]})
    for characteristic, attributes in CHARACTERISTICS.items():
        if not all(a in names and names[a].fillna("").astype(str).ne("").any() for a in attributes):
            continue
        parts = [names[a].fillna("").astype(str) for a in attributes]
        known = np.logical_and.reduce([part.ne("") for part in parts])
        label = parts[0].str.cat(parts[1:], sep=" ") if len(parts) > 1 else parts[0]
        table[characteristic] = label.where(known, "")
    return table


def scoring_median(selections: pd.DataFrame) -> float:
    """The median score (Q1's probability of Yes) of the full sample; NaN if none is known."""
    return float(selections.loc[selections["question"] == "q1", "score"].median())


def measure_rows(selections: pd.DataFrame, measure: str, median: float) -> pd.DataFrame:
    """The applicants of one measure, ``selected`` as that measure counts it; a scoring row
    needs a score (rows without one are left out and counted by ``unscored``)."""
    rows = selections[selections["question"] == MEASURES[measure]]
    if measure == "scoring_q1":
        rows = rows[rows["score"].notna()]
        rows = rows.assign(selected=rows["score"] > median)
    return rows


def unscored(selections: pd.DataFrame) -> int:
    """Q1 applicants without a score (a backend that could not score both choices)."""
    return int(selections.loc[selections["question"] == "q1", "score"].isna().sum())


def unknown_categories(selections: pd.DataFrame, categories: pd.DataFrame) -> dict[str, int]:
    """Per characteristic, the applicants (answers about a person, all measures' questions)
    whose category is unknown."""
    known = categories.set_index("name")
    return {
        characteristic: int((selections["name"].map(known[characteristic]).fillna("") == "").sum())
        for characteristic in known.columns
    }


def ll144_rates(
    selections: pd.DataFrame,
    names: pd.DataFrame,
    *,
    n_resamples: int,
    seed: int,
    confidence: float,
    threshold: float,
) -> pd.DataFrame:
    """One row per (characteristic, measure, category): applicants, selected, distinct names,
    share of the measure's applicants, whether it is under SMALL_SHARE, whether it is
    ``measured`` (met_only_their_own: not, and no rate), the rate and the impact
    ratio with their intervals, and whether the whole interval lies under ``threshold`` with
    enough names (``clearly_below``, as in impact.impact_ratios) (COLUMNS). Applicants of an
    unknown category are left out here (``unknown_categories`` counts them)."""
    categories = name_categories(names).set_index("name")
    median = scoring_median(selections)
    parts = []
    for characteristic in categories.columns:
        rows = pd.concat(
            [
                _applicants(measure_rows(selections, m, median), m, categories[characteristic])
                for m in MEASURES
            ],
            ignore_index=True,
        )
        if rows.empty:
            continue
        counts = rows.groupby(["question", "group"])["selected"].agg(["size", "sum"])
        share = counts["size"] / counts.groupby(level="question")["size"].transform("sum")
        small = frozenset(share.index[share < SMALL_SHARE])
        unmeasured = met_only_their_own(rows, categories[characteristic])
        scoring = rows["question"] == "scoring_q1"
        options = dict(threshold=threshold, confidence=confidence, unrated=small | unmeasured)
        resampled = NameBootstrap(n_resamples, seed)
        parts_of = [impact.impact_ratios(rows[~scoring], **options, bounds_of=resampled)]
        if scoring.any():  # each resample scored against its own median
            rescoring = NameBootstrap(n_resamples, seed, rescored(rows[scoring]))
            parts_of.append(impact.impact_ratios(rows[scoring], **options, bounds_of=rescoring))
        table = pd.concat(parts_of, ignore_index=True)
        table = table.sort_values("question", key=lambda q: q.map(list(MEASURES).index))
        keys = pd.MultiIndex.from_frame(table[["question", "group"]])
        measured = ~keys.isin(list(unmeasured))
        table.loc[~measured, impact.RATE_AND_RATIO] = np.nan
        parts.append(
            table.assign(
                measured=measured,
                characteristic=characteristic,
                measure=table["question"],
                category=table["group"],
                n_applicants=counts["size"].reindex(keys).to_numpy(),
                n_selected=counts["sum"].reindex(keys).to_numpy().astype(int),
                share=share.reindex(keys).to_numpy(),
                small=keys.isin(list(small)),
            )
        )
    if not parts:
        return pd.DataFrame(columns=COLUMNS)
    return pd.concat(parts, ignore_index=True)[COLUMNS]


RESCORED_CHUNK = 256  # resamples rescored at once (a chunk holds resamples x applicants weights)


def rescored(rows: pd.DataFrame) -> RatesUnder:
    """bootstrap.rates_under for the scoring rates: a resample weighs each applicant by the draw
    counts of its name and partner, as rates_under does, and counts it as scoring above the
    median of that resample's weighted scores (the median of the sample it stands for), not of
    the full sample's, so that the interval carries the median's own uncertainty."""
    order = np.argsort(rows["score"].to_numpy(float), kind="stable")
    scores = rows["score"].to_numpy(float)[order]
    names, partners, groups = (rows[c].to_numpy()[order] for c in ("name", "partner", "group"))

    def under(cells: impact.Cells, draws: np.ndarray, column: dict[str, int]) -> np.ndarray:
        of_group = np.searchsorted(cells.groups(), groups)
        members = np.zeros((len(scores), len(cells.groups())))
        members[np.arange(len(scores)), of_group] = 1.0
        name_at = np.array([column[name] for name in names])
        partner_at = np.array([column[partner] for partner in partners])
        rates = np.full((len(draws), members.shape[1]), np.nan)
        for start in range(0, len(draws), RESCORED_CHUNK):
            chunk = draws[start : start + RESCORED_CHUNK]
            weights = chunk[:, name_at] * chunk[:, partner_at]
            above = scores[None, :] > weighted_medians(scores, weights)[:, None]
            totals, selected = weights @ members, (weights * above) @ members
            with np.errstate(invalid="ignore", divide="ignore"):
                rates[start : start + len(chunk)] = np.where(totals > 0, selected / totals, np.nan)
        return rates

    return under


def weighted_medians(ordered: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per row of whole-number ``weights`` (resamples x values): the median of ``ordered``
    (sorted values) each repeated its weight's times, as pandas takes it (the mean of the two
    middle values of an even count); NaN where the weights sum to 0."""
    cumulative = np.cumsum(weights, axis=1)
    total = cumulative[:, -1:]
    middle = np.concatenate([(total + 1) // 2, total // 2 + 1], axis=1)  # 1-based ranks
    # the first value whose running count reaches each rank: one search of every row at once,
    # each row's counts lifted above the row before's
    rows = np.arange(len(weights))[:, None]
    lift = (total.max() + 1) * rows
    found = np.searchsorted((cumulative + lift).ravel(), middle + lift)
    at = np.minimum(found - weights.shape[1] * rows, len(ordered) - 1)
    medians = ordered[at].mean(axis=1)
    return np.where(total[:, 0] > 0, medians, np.nan)


def met_only_their_own(rows: pd.DataFrame, categories: pd.Series) -> frozenset[tuple[str, str]]:
    """The (measure, category) pairs of the head-to-head measures whose every answer chose
    between two people of that one category: a share the design fixes, no comparison."""
    h2h = rows[rows["question"].str.startswith("head_to_head")]
    partner = h2h["partner"].map(categories).fillna("")
    met_another = (partner != h2h["group"]) & (partner != "")
    met = met_another.groupby([h2h["question"], h2h["group"]]).any()
    return frozenset(met.index[~met])


def _applicants(rows: pd.DataFrame, measure: str, categories: pd.Series) -> pd.DataFrame:
    """A measure's rows as impact.impact_ratios' selections: over all occupations, the
    measure as the question, the name's category (``categories``) as the group; a name
    without one left out, and a partner with no row left (no score, no category) weighing
    nothing in the draws."""
    rows = rows.assign(
        occupation=ALL_OCCUPATIONS,
        question=measure,
        group=rows["name"].map(categories).fillna(""),
    )
    rows = rows[rows["group"] != ""]
    partner = rows["partner"].where(rows["partner"].isin(rows["name"].unique()), impact.NOBODY)
    return rows.assign(partner=partner)
