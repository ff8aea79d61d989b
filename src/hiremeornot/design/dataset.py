"""The audit's instances: occupation x name pair x listing order."""

from __future__ import annotations

import pandas as pd

from hiremeornot.design.contrasts import Sides


def instance_columns(sides: Sides) -> list[str]:
    """instance_id, occupation, soc_code, pair_id, the A and B names (columns named by the
    sides: female, male), order, name1, name2 (listing order) and each one's side (gender1,
    gender2)."""
    attribute = sides.attribute
    return [
        "instance_id",
        "occupation",
        "soc_code",
        "pair_id",
        *sides.labels,
        "order",
        "name1",
        "name2",
        f"{attribute}1",
        f"{attribute}2",
    ]


def build_instances(
    occupations: pd.DataFrame, pairs: pd.DataFrame, orders: list[str], sides: Sides
) -> pd.DataFrame:
    """One row per (occupation, pair, order); name1 is listed first everywhere in the prompts.
    ``orders`` holds sides.orders (A first, B first) to run."""
    label_a, label_b = sides.labels
    rows = []
    for occupation in occupations.itertuples():
        for pair in pairs.itertuples(index=False):
            names = dict(zip(pairs.columns, pair, strict=True))
            for order in (o for o in sides.orders if o in orders):
                first, second = (
                    (label_a, label_b) if order == sides.orders[0] else (label_b, label_a)
                )
                rows.append(
                    (
                        f"{occupation.title}|{names['pair_id']}|{order}",
                        occupation.title,
                        occupation.soc_code,
                        names["pair_id"],
                        names[label_a],
                        names[label_b],
                        order,
                        names[first],
                        names[second],
                        first,
                        second,
                    )
                )
    return pd.DataFrame(rows, columns=instance_columns(sides))


def instance_order(instance_ids: pd.Series) -> pd.Series:
    """The listing order of each instance id ("occupation|A-B|order")."""
    return instance_ids.str.rsplit("|", n=1).str[-1]
