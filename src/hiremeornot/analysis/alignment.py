"""Is it the world's bias? Each occupation's female-minus-male result against the share of women
who hold that job (inputs/workforce.py), per model of a gender contrast
(docs/method.md#alignment-with-the-workforce).

Per measure (MEASURES: the headline difference, Q1's and Q2's readings), over the occupations
the crosswalk matches to a category:

- the **slope** of the occupation's result on its share of women (least squares over
  occupations), with its interval and test, and the **correlation**, its interval the slope's
  read as a correlation (CrossedFit). The variance treats the names of each side (and the
  wordings, where several are pooled) as crossed samples and the occupations as a sample: an
  effect a name has in every occupation alike leaves the slope as it is, one that grows with the
  share of women is the name's own slope and counts. With no name effect of that kind, the
  names' variance keeps crossed.py's floor at the answers' own, and the interval is
  conservative (docs/method.md#alignment-with-the-workforce).
- **against the workforce**: the share of occupations whose result favours the gender that is
  under-represented in that job (the paper's "contradicting traditional stereotypes"), with a
  Wilson interval over occupations; where no gender is preferred at all, about half would by
  chance, so the share is also given over the occupations whose headline verdict is "differs".
- the slope again over the **exact and close matches alone** (``close_*``): a slope that a
  crosswalk's broad matches carry shows there as one they do not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
import pandas as pd

from hiremeornot.analysis.crossed import VarianceParts, crossed_variance_parts
from hiremeornot.analysis.distributions import t_quantile, t_upper
from hiremeornot.analysis.metrics import signed_readings
from hiremeornot.analysis.stats import ALL_OCCUPATIONS
from hiremeornot.design.contrasts import Sides
from hiremeornot.inputs.names import GENDERS

SUMMARY_COLUMNS = [
    "measure",
    "reading",
    "occupations",
    "female_names",
    "male_names",
    "slope",
    "slope_low",
    "slope_high",
    "slope_p",
    "detectable_slope",
    "correlation",
    "correlation_low",
    "correlation_high",
    "against",
    "rated",
    "against_share",
    "against_low",
    "against_high",
    "against_differs",
    "differs",
    "outcome",
    "close_occupations",
    "close_slope",
    "close_slope_low",
    "close_slope_high",
    "close_slope_p",
]
OCCUPATION_COLUMNS = [
    "occupation",
    "category",
    "match",
    "reason",
    "share_women",
    "under_represented",
    "difference",
    "difference_q1",
    "difference_q2",
    "verdict",
    "against_workforce",
]
BAND_COLUMNS = ["measure", "share_women", "fit", "low", "high"]
BAND_POINTS = 41  # the fitted line's points, from the lowest share to the highest


class Alignment(NamedTuple):
    """One model's alignment: ``summary`` (SUMMARY_COLUMNS, a row per measure), ``occupations``
    (OCCUPATION_COLUMNS) and ``band`` (BAND_COLUMNS: each measure's fitted line with its
    pointwise interval)."""

    summary: pd.DataFrame
    occupations: pd.DataFrame
    band: pd.DataFrame


# The fewest matched occupations a slope is fitted on (two points fit any line).
FEWEST_OCCUPATIONS = 3
# The matches whose share is the job's own or nearly (close_*: the slope without broad ones).
CLOSE_MATCHES = ("exact", "close")
POWER = 0.8  # detectable_slope: the slope the test finds this often


def measures(reading: str) -> dict[str, str]:
    """Each measure's column in the occupation table, by the reading of the difference it
    takes (metrics.signed_readings): the headline difference, Q1's and Q2's."""
    return {"difference": reading, "difference_q1": "q1", "difference_q2": "q2"}


def alignment(
    outcomes: pd.DataFrame,
    shares: pd.DataFrame,
    tests: pd.DataFrame,
    sides: Sides,
    settings: Mapping,
) -> Alignment:
    """The summary, occupation table and fitted lines of one model of a gender contrast.
    ``shares`` is workforce.occupation_shares's, ``tests`` the model's tests.tsv,
    ``settings`` the report's (difference, confidence, alpha)."""
    sign = 1.0 if sides.a == "female" else -1.0  # every result as female minus male
    signed = signed_readings(outcomes, sides) * sign
    by_measure = measures(settings["difference"])
    values = pd.DataFrame({m: signed[r] for m, r in by_measure.items()})
    results = values.groupby(outcomes["occupation"]).mean()
    occupations = shares.set_index("occupation").join(results, how="inner")
    verdicts = tests.set_index("occupation")["verdict"]
    occupations["verdict"] = verdicts.reindex(occupations.index).fillna("")
    occupations["under_represented"] = np.select(
        [occupations["share_women"] < 0.5, occupations["share_women"] > 0.5],
        ["women", "men"],
        "",
    )
    occupations["against_workforce"] = _against(occupations["difference"], occupations)
    matched = occupations[occupations["share_women"].notna()]
    units = _unit_columns(outcomes, sides)
    rows, bands = [], []
    close = matched[matched["match"].isin(CLOSE_MATCHES)]
    for measure, reading in by_measure.items():
        fit, band = _fit(values[measure], outcomes, units, matched, settings)
        counts = _against_counts(matched, measure, settings["confidence"])
        alone = _fit(values[measure], outcomes, units, close, settings)[0]
        sensitivity = {
            f"close_{key}": alone.get(key, np.nan)
            for key in ("occupations", "slope", "slope_low", "slope_high", "slope_p")
        }
        rows.append({"measure": measure, "reading": reading, **fit, **counts, **sensitivity})
        bands.append(band.assign(measure=measure))
    table = occupations.rename_axis("occupation").reset_index()
    table["against_workforce"] = table["against_workforce"].astype("boolean")
    return Alignment(
        pd.DataFrame(rows, columns=SUMMARY_COLUMNS),
        table[OCCUPATION_COLUMNS],
        pd.concat(bands, ignore_index=True)[BAND_COLUMNS],
    )


def _against(results: pd.Series, occupations: pd.DataFrame) -> pd.Series:
    """Per occupation: its result favours the gender under-represented in the job (NaN where
    no gender is, no share is known or the result favours no one)."""
    favours = np.sign(results)
    under = occupations["under_represented"].map({"women": 1.0, "men": -1.0})
    return (favours == under).where(under.notna() & (favours != 0))


def _unit_columns(outcomes: pd.DataFrame, sides: Sides) -> list[str]:
    """What a unit of names is: a pair (each side's name), and its wording where several are
    pooled; every unit is asked in every occupation."""
    return [*sides.labels, *(["wording"] if outcomes["wording"].nunique() > 1 else [])]


def _fit(
    values: pd.Series,
    outcomes: pd.DataFrame,
    units: list[str],
    matched: pd.DataFrame,
    settings: Mapping,
) -> tuple[dict, pd.DataFrame]:
    """Slope and correlation of one measure (``values``, per answer) on the matched
    occupations' share of women, with their intervals, the slope's test and the slope it can
    detect, and the fitted line with its pointwise interval (BAND_COLUMNS less measure); the
    counts alone and no line with too few occupations."""
    inside = outcomes["occupation"].isin(matched.index)
    frame = outcomes.loc[inside, ["occupation", *units]].assign(value=values[inside])
    table = frame.groupby(["occupation", *units])["value"].mean().unstack("occupation")
    table = table.reindex(columns=matched.index).dropna()  # units asked in every occupation
    fit = {"occupations": len(matched)} | {
        f"{side}_names": table.index.get_level_values(side).nunique() for side in GENDERS
    }
    share = matched["share_women"].to_numpy()
    if len(matched) < FEWEST_OCCUPATIONS or np.ptp(share) == 0 or table.empty:
        return {**fit, "outcome": "too few occupations"}, pd.DataFrame(columns=BAND_COLUMNS[1:])
    spread = CrossedFit(table, share)
    slope, (se,), df = spread.slope, *spread.spread(spread.slope_weights[:, None])
    critical = t_quantile((1 + settings["confidence"]) / 2, df)
    low, high = slope - critical * se, slope + critical * se
    p_value = float(2 * t_upper(abs(slope) / se, df)) if se > 0 else float(slope == 0)
    fields = {
        **fit,
        "slope": slope,
        "slope_low": low,
        "slope_high": high,
        "slope_p": p_value,
        "detectable_slope": (critical + t_quantile(POWER, df)) * se,
        "correlation": spread.correlation(slope),
        "correlation_low": spread.correlation(low),
        "correlation_high": spread.correlation(high),
        "outcome": _outcome(slope, p_value, settings["alpha"]),
    }
    return fields, spread.band(critical)


def _outcome(slope: float, p_value: float, alpha: float) -> str:
    """follows the workforce | goes against the workforce | not shown."""
    if p_value >= alpha:
        return "not shown"
    return "follows the workforce" if slope > 0 else "goes against the workforce"


class CrossedFit:
    """The least-squares line of the occupations' results on their shares, and the variance of
    any weighted sum of the results, with names and occupations both samples.

    ``table``: units of names (rows: a pair, and its wording) x occupations, each cell the
    unit's mean in that occupation; an occupation's result is its column's mean. A weighted
    sum of the results (weights c_o summing to 0, as a slope's do, or not, as a fitted value's)
    is then the mean over units of each unit's own weighted sum, so its variance over the
    names is crossed.crossed_variance_parts's of those sums (the names of each side and the
    wordings crossed random factors, the answers' noise and every name-by-occupation effect
    inside): an effect a name has in every occupation alike cancels from a slope there, and
    one that grows with the share is the name's own slope. To it is added what the
    occupations add as a sample, sum c_o^2 x the variance of their deviations from the line:
    the residuals' mean square less what the names and the answers put into an occupation's
    result (its column's crossed variance after each unit's mean over occupations is taken
    out), never below 0. Degrees of freedom: Satterthwaite's of the three parts (the names'
    own share: the fewest levels of a names' factor less one; the answers' noise: the cells
    less the additive fit's rank; the occupations': occupations less two).
    """

    def __init__(self, table: pd.DataFrame, share: np.ndarray):
        self.cells = table.to_numpy(float)
        self.factors = [
            pd.factorize(table.index.get_level_values(level))[0] for level in table.index.names
        ]
        self.share, self.result = share, self.cells.mean(axis=0)
        centred = share - share.mean()
        self.slope_weights = centred / np.square(centred).sum()
        self.slope = float(self.slope_weights @ self.result)
        self.residual = self.result - self.result.mean() - self.slope * centred
        occupations = len(share)
        deviations = self.cells - self.cells.mean(axis=1, keepdims=True)
        noise = sum(self._names_variance(deviations)[:2]) * occupations / (occupations - 1)
        mean_square = np.square(self.residual).sum() / (occupations - 2)
        self.between = max(mean_square - float(noise.mean()), 0.0)
        self.names_df = max(min(len(np.unique(codes)) for codes in self.factors) - 1, 1)
        self.occupations_df = occupations - 2

    def _names_variance(self, sums: np.ndarray) -> VarianceParts:
        return crossed_variance_parts(self.factors, sums, np.ones(len(sums)))

    def spread(self, weights: np.ndarray) -> tuple[np.ndarray, float]:
        """The standard error of each column's weighted sum of the results (``weights``:
        occupations x columns), and the degrees of freedom of the first column's."""
        names = self._names_variance(self.cells @ weights)
        between = np.square(weights).sum(axis=0) * self.between
        df = satterthwaite(
            [names.levels[0], names.residual[0], between[0]],
            [self.names_df, names.residual_df, self.occupations_df],
        )
        return np.sqrt(names.total + between), df

    def band(self, critical: float) -> pd.DataFrame:
        """The fitted line at BAND_POINTS shares and its pointwise interval (+- ``critical``
        standard errors of each fitted value)."""
        grid = np.linspace(self.share.min(), self.share.max(), BAND_POINTS)
        weights = 1 / len(self.share) + np.outer(self.slope_weights, grid - self.share.mean())
        fit = self.result @ weights
        se, _ = self.spread(weights)
        low, high = fit - critical * se, fit + critical * se
        return pd.DataFrame({"share_women": grid, "fit": fit, "low": low, "high": high})

    def correlation(self, slope: float) -> float:
        """Pearson's r the fit would have with this slope and the same scatter about the line:
        monotone in the slope, so an interval of the slope is one of r."""
        spread = slope * self.share.std()
        return float(spread / np.hypot(spread, self.residual.std())) if spread else 0.0


def satterthwaite(variances: list[float], dfs: list[int]) -> float:
    """The degrees of freedom of a sum of independent variance estimates (Welch-Satterthwaite;
    a part with no degrees of freedom counts for none)."""
    terms = sum(v * v / df for v, df in zip(variances, dfs, strict=True) if df > 0)
    return sum(variances) ** 2 / terms if terms > 0 else float(min(d for d in dfs if d > 0))


def _against_counts(matched: pd.DataFrame, measure: str, confidence: float) -> dict:
    """How many matched occupations' results favour the gender under-represented in the job,
    of those rated (a gender is under-represented and the result favours someone), with its
    Wilson interval; and of those whose headline verdict is "differs" (headline only)."""
    against = _against(matched[measure], matched)
    rated = against.notna()
    count, total = int(against[rated].sum()), int(rated.sum())
    fields = {"against": count, "rated": total}
    if total:
        from statsmodels.stats.proportion import proportion_confint  # where it runs

        low, high = proportion_confint(count, total, alpha=1 - confidence, method="wilson")
        fields |= {"against_share": count / total, "against_low": low, "against_high": high}
    if measure == "difference":
        differs = rated & (matched["verdict"] == "differs")
        fields |= {
            "against_differs": int(against[differs].sum()),
            "differs": int(differs.sum()),
        }
    return fields


def alignment_checks(
    outcomes: pd.DataFrame,
    tests: pd.DataFrame,
    sides: Sides,
    report: Mapping,
    shares: Mapping[str, float],
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The calibration's view of the alignment: its slopes as checks and verdicts
    (``alignment_slope_<reading>``, pooled over occupations), "differs" where the slope shows
    an alignment either way."""
    occupations = list(dict.fromkeys(outcomes["occupation"]))
    frame = pd.DataFrame(
        {
            "occupation": occupations,
            "category": occupations,
            "match": "exact",
            "reason": "calibration",
            "share_women": [shares.get(o, np.nan) for o in occupations],
        }
    )
    summary = alignment(outcomes, frame, tests, sides, report).summary
    quantity = "alignment_slope_" + summary["reading"]
    checks = pd.DataFrame(
        {
            "occupation": ALL_OCCUPATIONS,
            "quantity": quantity,
            "estimate": summary["slope"],
            "low": summary["slope_low"],
            "high": summary["slope_high"],
        }
    )
    shown = summary["outcome"].isin(["follows the workforce", "goes against the workforce"])
    verdicts = pd.DataFrame(
        {
            "occupation": ALL_OCCUPATIONS,
            "difference": summary["slope"],
            "verdict": np.where(shown, "differs", "inconclusive"),
            "reading": quantity,
        }
    )
    return checks, verdicts
