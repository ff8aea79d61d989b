"""The NYC Local Law 144 summary's CSV: its rates in the fields published bias audits record,
with the data's dates and the tool's distribution date (writing/ll144.py writes its words)."""

from __future__ import annotations

import pandas as pd

CSV_COLUMNS = [
    "model",
    "protected_characteristic",
    "category",
    "measure",
    "number_of_applicants",
    "number_selected_or_scoring_above_median",
    "rate",
    "rate_low",
    "rate_high",
    "impact_ratio",
    "impact_ratio_low",
    "impact_ratio_high",
    "impact_ratio_lean_at_a_tie",
    "reference_category",
    "share_of_applicants",
    "excluded_under_2_percent",
    "measured",
    "distinct_names",
    "data_type",
    "audit_date",
    "distribution_date",
    "data_start",
    "data_end",
]


def data_dates(manifest: dict) -> tuple[str, str]:
    """When the run that produced the answers started and finished (the manifest's run)."""
    run = manifest["run"]
    return run["started"], run["finished"]


def distribution_date(manifest: dict, model: str) -> str | None:
    """The model's ``distribution_date`` as the run's config gave it (None: not given)."""
    return manifest["config"].get("models", {}).get(model, {}).get("distribution_date")


def ll144_csv(rates: pd.DataFrame, model: str, manifest: dict, *, audit_date: str) -> pd.DataFrame:
    """The rates table in the fields published bias audits record (CSV_COLUMNS)."""
    start, end = data_dates(manifest)
    return pd.DataFrame(
        {
            "model": model,
            "protected_characteristic": rates["characteristic"],
            "category": rates["category"],
            "measure": rates["measure"],
            "number_of_applicants": rates["n_applicants"],
            "number_selected_or_scoring_above_median": rates["n_selected"],
            "rate": rates["rate"],
            "rate_low": rates["rate_low"],
            "rate_high": rates["rate_high"],
            "impact_ratio": rates["impact_ratio"],
            "impact_ratio_low": rates["ratio_low"],
            "impact_ratio_high": rates["ratio_high"],
            "impact_ratio_lean_at_a_tie": rates["ratio_lean"],
            "reference_category": rates["reference"],
            "share_of_applicants": rates["share"],
            "excluded_under_2_percent": rates["small"],
            "measured": rates["measured"],
            "distinct_names": rates["n_names"],
            "data_type": "test data",
            "audit_date": audit_date,
            "distribution_date": distribution_date(manifest, model) or "",
            "data_start": start,
            "data_end": end,
        },
        columns=CSV_COLUMNS,
    )
