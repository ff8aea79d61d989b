"""Paired changes between two runs of one design: per instance, a metric's value in run A and
in run B; per occupation, the change B - A with its interval and test from its variance clustered
by both sides' names (instances sharing a name are not independent; analysis/crossed.py),
BH-corrected across occupations per
metric. Used by two runs compared (compare.py), an intervention against its baseline and the
calibration."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from hiremeornot.analysis.crossed import crossed_means
from hiremeornot.analysis.metrics import signed_readings
from hiremeornot.analysis.power import detectable_change
from hiremeornot.analysis.stats import (
    ALL_OCCUPATIONS,
    METRICS,
    difference_p_value,
    name_count_columns,
    q_values,
)
from hiremeornot.design.contrasts import Sides
from hiremeornot.errors import InputError

METRIC_RANGE = {"confirmation": (-1.0, 1.0), "consistency": (-1.0, 1.0), "difference": (-2.0, 2.0)}


def change_columns(sides: Sides) -> list[str]:
    """The columns of the per-occupation changes (``female_names``: the names of a side)."""
    return [
        "occupation",
        "metric",
        "n",
        "mean_a",
        "mean_b",
        "change",
        "low",
        "high",
        *name_count_columns(sides),
        "smallest_p",
        "p_value",
        "q_value",
        "significant",
        "mdd",
    ]


def paired_outcomes(
    outcomes_a: pd.DataFrame,
    outcomes_b: pd.DataFrame,
    reading: str,
    sides: Sides,
    labels: tuple[str, str] = ("A", "B"),
) -> pd.DataFrame:
    """paired_values of two outcomes tables (metrics.instance_outcomes) of one design;
    ``labels`` name the runs in errors."""
    keys = ["wording", "instance_id"]
    first, second = (o.sort_values(keys, ignore_index=True) for o in (outcomes_a, outcomes_b))
    if not first[keys].equals(second[keys]):
        missing = set(first["instance_id"]) ^ set(second["instance_id"])
        example = sorted(missing)[0] if missing else first.loc[0, "instance_id"]
        raise InputError(
            f"{labels[0]} and {labels[1]} have outcomes of different instances (e.g. "
            f"{example!r}); compare runs of one design"
        )
    for column in ("occupation", *sides.labels, "order"):
        differ = first[first[column] != second[column]]
        if len(differ):
            raise InputError(
                f"instance {differ.iloc[0]['instance_id']!r} has another {column} in "
                f"{labels[1]} than in {labels[0]}"
            )
    values = first[["occupation", *sides.labels, "wording"]].copy()
    for run, outcomes in (("a", first), ("b", second)):
        values[f"confirmation_{run}"] = outcomes["confirmed"].astype(float)
        values[f"consistency_{run}"] = outcomes["consistent"].astype(float)
        values[f"difference_{run}"] = signed_readings(outcomes, sides)[reading]
    return values


def paired_changes(values: pd.DataFrame, settings: Mapping[str, Any], sides: Sides) -> pd.DataFrame:
    """Per occupation and metric, then pooled over occupations (ALL_OCCUPATIONS): A's and B's
    means, the change B - A with its interval, the test of no change, and the smallest change
    that test would detect with 80% power (``mdd``, before the correction for many occupations).

    The interval is a t interval and the test a t test on the per-instance differences' mean,
    its variance clustered by female and by male name (and wordings where several ran;
    crossed.crossed_means), the p-value never below the floor the test sets
    (crossed.smallest_p); q-values are Benjamini-Hochberg across occupations, per metric (the
    pooled row is one test of its own: its q-value is its p-value). ``settings`` is the
    config's ``report`` section (confidence, alpha).
    """
    deltas = values.assign(**{f"d_{m}": values[f"{m}_b"] - values[f"{m}_a"] for m in METRICS})
    columns = [f"d_{m}" for m in METRICS]
    lowest = np.array([METRIC_RANGE[m][0] for m in METRICS])
    highest = np.array([METRIC_RANGE[m][1] for m in METRICS])
    # every occupation, then all of them as one (ALL_OCCUPATIONS)
    groups = pd.concat([deltas, deltas.assign(occupation=ALL_OCCUPATIONS)])
    by_occupation = groups.groupby("occupation", sort=False)
    sizes = by_occupation.size()
    means = by_occupation[[f"{m}_{run}" for m in METRICS for run in "ab"]].mean()
    changes_by_occupation = crossed_means(groups, "occupation", columns, sides)
    rows = []
    for occupation, change in changes_by_occupation.items():
        low, high = change.interval(settings["confidence"], lowest, highest)
        floor = change.floor
        for i, metric in enumerate(METRICS):
            rows.append(
                {
                    "occupation": occupation,
                    "metric": metric,
                    "n": sizes[occupation],
                    "mean_a": means.at[occupation, f"{metric}_a"],
                    "mean_b": means.at[occupation, f"{metric}_b"],
                    "change": change.estimate[i],
                    "low": low[i],
                    "high": high[i],
                    f"{sides.a}_names": change.a_names,
                    f"{sides.b}_names": change.b_names,
                    "smallest_p": floor,
                    "p_value": difference_p_value(
                        change.estimate[i], change.se[i], change.df[i], floor=floor
                    ),
                    "mdd": detectable_change(
                        change.se[i], change.df[i], floor=floor, alpha=settings["alpha"]
                    ),
                }
            )
    table = pd.DataFrame(rows)
    each = table["occupation"] != ALL_OCCUPATIONS
    table["q_value"] = table["p_value"]
    table.loc[each, "q_value"] = (
        table[each].groupby("metric", sort=False)["p_value"].transform(q_values)
    )
    table["significant"] = table["q_value"] < settings["alpha"]
    return table[change_columns(sides)]
