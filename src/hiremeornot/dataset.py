"""The audit's instances: occupation x name pair x listing order."""

from __future__ import annotations

import pandas as pd

from hiremeornot.names import ORDERS

INSTANCE_COLUMNS = [
    "instance_id",
    "occupation",
    "soc_code",
    "pair_id",
    "female",
    "male",
    "order",
    "name1",
    "name2",
    "gender1",
    "gender2",
]


def build_instances(
    occupations: pd.DataFrame, pairs: pd.DataFrame, orders: list[str]
) -> pd.DataFrame:
    """One row per (occupation, pair, order); name1 is listed first everywhere in the prompts."""
    rows = []
    for occupation in occupations.itertuples():
        for pair in pairs.itertuples():
            for order in (o for o in ORDERS if o in orders):
                female_first = order == "female_first"
                name1, name2 = (
                    (pair.female, pair.male) if female_first else (pair.male, pair.female)
                )
                gender1, gender2 = ("female", "male") if female_first else ("male", "female")
                rows.append(
                    (
                        f"{occupation.title}|{pair.pair_id}|{order}",
                        occupation.title,
                        occupation.soc_code,
                        pair.pair_id,
                        pair.female,
                        pair.male,
                        order,
                        name1,
                        name2,
                        gender1,
                        gender2,
                    )
                )
    return pd.DataFrame(rows, columns=INSTANCE_COLUMNS)


def instance_pair(instance_ids: pd.Series) -> pd.Series:
    """The name pair of each instance id ("occupation|Female-Male|order")."""
    return instance_ids.str.rsplit("|", n=2).str[1]


def instance_order(instance_ids: pd.Series) -> pd.Series:
    """The listing order of each instance id ("occupation|Female-Male|order")."""
    return instance_ids.str.rsplit("|", n=1).str[-1]
