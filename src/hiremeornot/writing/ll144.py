"""The NYC Local Law 144 bias-audit summary of one model in words: categories, counts, rates and
impact ratios, the data and its dates; no verdict (the rules set no threshold). Its CSV, in the
fields of published audits, is ll144_csv.py's."""

from __future__ import annotations

import numpy as np
import pandas as pd

from hiremeornot.analysis.impact import MIN_NAMES, detectable_ratio
from hiremeornot.analysis.ll144 import CHARACTERISTICS, SMALL_SHARE
from hiremeornot.writing.impact import lean_line
from hiremeornot.writing.ll144_csv import data_dates, distribution_date
from hiremeornot.writing.markdown import markdown_table, percent
from hiremeornot.writing.non_answers import named_questions

CHARACTERISTIC_TITLES = {
    "sex": "Sex",
    "race_ethnicity": "Race/ethnicity",
    "intersectional": "Intersectional (race/ethnicity x sex)",
}
MEASURE_TITLES = {
    "selection_q1": "Selection rates: judged qualified (Q1)",
    "scoring_q1": "Scoring rates: the probability of Yes to Q1, above the sample's median",
    "head_to_head_q2": "Head-to-head choices: Q2 (who is more qualified), not selection rates",
    "head_to_head_q3": "Head-to-head choices: Q3 (one, both or neither), not selection rates",
}
SELECTED_WORDS = {
    "selection_q1": "selected",
    "scoring_q1": "scoring above the median",
    "head_to_head_q2": "chosen",
    "head_to_head_q3": "chosen (or both)",
}
HEAD_TO_HEAD = {
    "head_to_head_q2": "The model picks one of the two people of a pair, so a category's share "
    "depends on whom it met, and the two people's shares sum to one; reported apart from the "
    "selection rates.",
    "head_to_head_q3": "The model picks one of the two people of a pair, both or neither; a "
    "category's share (picked, or both) depends on whom it met; reported apart from the "
    "selection rates.",
}
# a head-to-head category that met only its own (ll144.met_only_their_own)
NOT_MEASURED = "not measured: met only its own category"


def _interval(value: float, low: float, high: float) -> str:
    if pd.isna(value):
        return "-"
    return f"{value:.3f} [{low:.3f}, {high:.3f}]"


def _category_table(rows: pd.DataFrame, measure: str) -> str:
    shown = pd.DataFrame(
        {
            "category": rows["category"],
            "applicants": rows["n_applicants"],
            SELECTED_WORDS[measure]: rows["n_selected"],
            "rate [95% interval]": [
                _interval(*values) if measured else NOT_MEASURED
                for measured, *values in zip(
                    rows["measured"], rows["rate"], rows["rate_low"], rows["rate_high"], strict=True
                )
            ],
            "impact ratio [interval]": [
                NOT_MEASURED
                if not measured
                else "under 2%: not rated"
                if small
                else _interval(ratio, low, high)
                for measured, small, ratio, low, high in zip(
                    rows["measured"],
                    rows["small"],
                    rows["impact_ratio"],
                    rows["ratio_low"],
                    rows["ratio_high"],
                    strict=True,
                )
            ],
            "can read low at a tie by up to": [
                "-" if pd.isna(lean) else f"{lean:.3f}" for lean in rows["ratio_lean"]
            ],
            "names": rows["n_names"],
            "share": [percent(share, 1) for share in rows["share"]],
        }
    )
    return markdown_table(shown)


def _data_section(
    manifest: dict, model: str, selections: pd.DataFrame, *, audit_date: str
) -> list[str]:
    config = manifest["config"]
    start, end = data_dates(manifest)
    sources = {source["source"]: source for source in manifest["sources"]}
    listed = config["names"]["list"]
    names = sources.get(config["sources"]["names"][listed]["folder"], {})
    onet = sources.get("onet", {})
    identity = manifest["models"][model]
    occupations = list(dict.fromkeys(selections["occupation"]))
    wordings = sorted(set(selections["wording"]))
    run = manifest["run"]
    return [
        "## The data\n",
        "- **Test data, not historical data.** The applicants are fictional: each is a name "
        "placed in a prompt, and the model's answers are the tool's decisions. Historical data "
        "(the tool's decisions about real applicants) is not used: an audit of a model before it "
        "screens anyone has none, and test data holds every other difference between applicants "
        "equal, so a difference between categories comes from the names.",
        f"- **Names**: the list `{listed}`, {names.get('title', 'see the manifest')} "
        f"(licence: {names.get('licence', 'see the manifest')}; version: "
        f"{names.get('version', '-')}). A name's category is the label its source list gives "
        "it, an approximation of the category a reader perceives (`names.validate` checks the "
        "model's own reading); the rules' categories are applicants' own (as in EEO-1 "
        "reports), which test data cannot have.",
        f"- **Occupations** ({len(occupations)}): {', '.join(occupations)}; their attributes "
        f"from {onet.get('title', 'O*NET')}, release {onet.get('version', '-')}.",
        f"- **Prompts**: the three-step questions of the paper (Step 1 attributes, then Q1, Q2, "
        f"Q3), wording(s) {', '.join(wordings)}; their templates are in the run's config "
        "(`prompts`), recorded in the manifest.",
        f"- **Model**: `{identity['model']}` through the `{identity['backend']}` backend; its "
        "identity (settings, weights' hashes, served model names) is in the manifest.",
        f"- **Dates**: the audit date (of this summary) {audit_date}; the tool's distribution "
        f"date {_distribution(manifest, model)}; the answers by the run of {start} to {end} "
        f"({run['from_store']} of the first contrast's {run['questions']} questions answered "
        "from the store: asked before, by this run for another contrast or by an earlier run "
        "with the same settings).",
        f"- Config SHA-256 `{manifest['config_sha256']}`, code commit "
        f"`{manifest['project']['git']['commit']}`.",
        "",
    ]


def _detectable_line(rows: pd.DataFrame, confidence: float) -> str:
    """What ratio this design could tell from 1, for one table (the median over its
    categories)."""
    lean = rows["ratio_lean"].dropna()
    if lean.empty:
        return (
            f"Power: not known. No ratio here rests on {MIN_NAMES} names or more in its category "
            "and in the reference, too few for the spread of the rates to say what this design "
            "could detect.\n"
        )
    smallest = float(np.median(detectable_ratio(lean.to_numpy(), confidence)))
    return (
        f"Power: at this design (these names, these answers) a ratio would have to lie near "
        f"{max(smallest, 0.0):.2f} or below for its {confidence:.0%} interval to leave 1 out in 4 "
        "audits of 5 (a normal approximation, from the spread of the categories' rates). A "
        "milder disadvantage can go unseen, or come out reversed in the point estimate.\n"
    )


def _distribution(manifest: dict, model: str) -> str:
    date = distribution_date(manifest, model)
    if date:
        return date
    return (
        f"**not given** (`models.{model}.distribution_date`; a published summary states it, "
        "6 RCNY 5-303)"
    )


def ll144_markdown(
    rates: pd.DataFrame,
    model: str,
    manifest: dict,
    selections: pd.DataFrame,
    counts: dict,
    *,
    threshold: float,
    confidence: float,
    audit_date: str,
) -> str:
    """The summary of one model: what it is, the category tables per measure with what they
    could detect, the counts, the data, and the four-fifths rule of thumb with its caveats (no
    verdict); ``confidence`` is the intervals' level. ``counts`` holds
    ``unknown`` (per characteristic), ``unscored``, ``median``, ``confounded`` (the findings:
    one listing order ran) and ``free`` (the questions asked free, non_answers.free_questions)."""
    characteristics = [c for c in CHARACTERISTICS if c in set(rates["characteristic"])]
    told = ", ".join(CHARACTERISTIC_TITLES[c].lower() for c in characteristics)
    lines = [
        f"# NYC Local Law 144 bias-audit summary: {model}\n",
        "The numbers a bias audit of an automated employment decision tool publishes under New "
        "York City's Local Law 144 (6 RCNY 5-300 to 5-304), for the model as this audit asks it: "
        "selection and scoring rates and impact ratios per category of "
        f"{told}, each computed on its own, over the whole test data (every contrast, occupation "
        "and listing order pooled; per occupation: `results/impact/`). An applicant is one answer "
        "about one named person (one name in one pair, listing order and wording). An impact "
        "ratio is the category's rate over the highest category's rate (`reference`); the "
        "intervals come from the crossed bootstrap over names (docs/method.md). In the "
        "known-answer calibration these pooled intervals covered 91-95% of nominal 95% for the "
        "Q1 rates at 100-150 audits a design, and the Q2 rates as little as 87.5% at 40 "
        "(within its Monte-Carlo error of 95%; docs/calibration.md): read the pooled rates' "
        "intervals as possibly a little narrow.\n",
        "**No verdict.** The rules require these numbers and set no threshold; this summary "
        "does not say whether the model passes. It is not legal advice.\n",
    ]
    unknown = counts["unknown"]
    lines += [
        "## Counts\n",
        "- Applicants of an unknown category: "
        + "; ".join(f"{CHARACTERISTIC_TITLES[c].lower()} {unknown[c]}" for c in characteristics)
        + " (every name of the list has "
        + ("its categories)." if not any(unknown.values()) else "not every category).")
        + "",
        "- Applicants and individuals: an applicant is one answer about one name, and the "
        "individuals behind them are the names (the `names` column): "
        f"{_names_line(rates)} A category's rate rests on its names more than on its answers, "
        "and the intervals are over the names.",
        eeo1_line(rates),
        f"- Categories under {percent(SMALL_SHARE)} of a measure's applicants are left out of "
        "its impact ratios, as the rules allow, their counts and rates still shown: "
        + _small_categories(rates),
        _unmeasured_line(rates),
        *_free_line(counts["free"]),
        _scoring_line(counts),
        "",
    ]
    for measure, title in MEASURE_TITLES.items():
        part = rates[rates["measure"] == measure]
        if part.empty:
            continue
        lines.append(f"## {title}\n")
        if measure in HEAD_TO_HEAD:
            lines.append(HEAD_TO_HEAD[measure] + "\n")
        for characteristic in characteristics:
            rows = part[part["characteristic"] == characteristic]
            if len(rows):
                lines += [
                    f"### {CHARACTERISTIC_TITLES[characteristic]}\n",
                    _category_table(rows, measure),
                    _detectable_line(rows, confidence),
                    "",
                ]
    lines += _data_section(manifest, model, selections, audit_date=audit_date)
    lines += _four_fifths(
        rates, threshold, confounded=counts["confounded"], free=bool(counts["free"])
    )
    return "\n".join(lines)


def _small_categories(rates: pd.DataFrame) -> str:
    """Each category excluded under SMALL_SHARE, with what justifies it."""
    small = rates[rates["small"]]
    if small.empty:
        return "none."
    return (
        "; ".join(
            f"{row.category} ({row.measure}: {percent(row.share, 1)}, {row.n_applicants} "
            f"applicants from {row.n_names} names, too small a share for its ratio to the "
            "highest category to be read beside the others')"
            for row in small.itertuples()
        )
        + "."
    )


def _names_line(rates: pd.DataFrame) -> str:
    """How many names stand behind how many applicants, per characteristic (its first
    measure)."""
    parts = []
    for characteristic, rows in rates.groupby("characteristic", sort=False):
        first = rows[rows["measure"] == rows["measure"].iloc[0]]
        parts.append(
            f"{CHARACTERISTIC_TITLES[characteristic].lower()}: {int(first['n_names'].sum())} "
            f"names for {int(first['n_applicants'].sum())} applicants ({first['measure'].iloc[0]})"
        )
    return "; ".join(parts) + "."


def _unmeasured_line(rates: pd.DataFrame) -> str:
    unmeasured = rates[~rates["measured"].astype(bool)]
    if unmeasured.empty:
        return "- Every head-to-head category met another category: each share is measured."
    listed = "; ".join(
        f"{row.category} ({CHARACTERISTIC_TITLES[row.characteristic].lower()}, {row.measure})"
        for row in unmeasured.itertuples()
    )
    return (
        f"- Not measured: {listed}. In these head-to-head questions the category met only "
        "its own (the pairs are matched on it), so its share is fixed by the design (in Q2 one "
        "half) and compares nothing; it gets no rate and no ratio."
    )


# The EEO-1 component 1 categories (the ones the rules' intersectional tables follow), and
# the labels of name lists that stand for each.
EEO1_RACES = {
    "Hispanic or Latino": ("hispanic", "latino", "latina", "latinx"),
    "White": ("white",),
    "Black or African American": ("black", "african american"),
    "Asian": ("asian",),
    "Native Hawaiian or Other Pacific Islander": ("native hawaiian", "pacific islander"),
    "American Indian or Alaska Native": ("american indian", "alaska native", "native american"),
    "Two or More Races": ("two or more races", "multiracial"),
}
EEO1_SEXES = {"Female": ("female", "woman"), "Male": ("male", "man")}


def eeo1_line(rates: pd.DataFrame) -> str:
    """The EEO-1 categories the name list cannot represent, and its labels that are none."""
    found = {
        characteristic: {c.lower() for c in rates.loc[rates["characteristic"] == key, "category"]}
        for characteristic, key in (("sex", "sex"), ("race", "race_ethnicity"))
    }
    missing, foreign = [], []
    for characteristic, standard in (("sex", EEO1_SEXES), ("race", EEO1_RACES)):
        labels = found[characteristic]
        missing += [c for c, spelled in standard.items() if not labels & set(spelled)]
        known = {label for spelled in standard.values() for label in spelled}
        foreign += sorted(labels - known)
    said = (
        f"EEO-1 categories this name list cannot represent: {', '.join(missing)}"
        if missing
        else "The name list represents every EEO-1 sex and race/ethnicity category"
    )
    if not found["race"]:
        said += " (the list gives no race/ethnicity at all)"
    if foreign:
        said += f"; categories of the list that are no EEO-1 category: {', '.join(foreign)}"
    return f"- {said}. Their applicants are not in this audit, so nothing here speaks for them."


def _scoring_line(counts: dict) -> str:
    """How the scoring rates score, and the Q1 answers they could not."""
    return (
        f"- Scoring: the score is the model's probability of Yes to Q1 over the answer space; "
        f"the full sample's median is {counts['median']:.4f} (each bootstrap resample scores "
        "against its own median, so the intervals carry the median's uncertainty too). "
        f"{counts['unscored']} Q1 answers carry no score (their backend could not score both "
        "choices, or it was asked free and a reply carries no probability) and are left out of the "
        "scoring rates."
    )


def _free_line(free: list[str]) -> list[str]:
    """Where questions were asked free, that the model's non-answers are not applicants."""
    if not free:
        return []
    return [
        f"- Asked free (answers_mode): {named_questions(free)}. An instance any of whose Q1, Q2 "
        "or Q3 the model refused, hedged or left unread is no applicant here, in no measure: "
        "the rates are of the answers given. How many went unanswered, and whether one group's "
        "did more, is in `results/<model>/non_answers.tsv` and the summary; where it differs by "
        "group, these rates are of a selected sample."
    ]


def _four_fifths(
    rates: pd.DataFrame, threshold: float, *, confounded: bool, free: bool
) -> list[str]:
    below = rates[rates["impact_ratio"] < threshold]
    shown = below[
        ["measure", "characteristic", "category", "n_names", "impact_ratio", "ratio_low"]
        + ["ratio_high", "ratio_lean", "clearly_below"]
    ]
    listed = markdown_table(shown) if len(below) else "None.\n"
    return [
        "## The four-fifths rule of thumb\n",
        f"The EEOC's rule of thumb (the Uniform Guidelines' four-fifths rule) reads an impact "
        f"ratio under {threshold} as a sign of adverse impact worth a closer look; Local Law 144 "
        f"does not adopt it. {len(below)} of {rates['impact_ratio'].notna().sum()} ratios are "
        f"under {threshold}; `clearly_below` marks those whose whole interval lies under it, "
        f"where the category and the reference have {MIN_NAMES} names or more (an interval over "
        "fewer names cannot place a ratio).\n",
        listed,
        lean_line(rates, "category"),
        "- A rule of thumb, not a test: with several categories and measures some ratios fall "
        "under it by chance, and a ratio above it does not show the absence of bias. Read the "
        "intervals, which say how much the ratio would move with other names of the same "
        "categories.",
        "- Names stand in for the categories: they also carry other signals (age, class, how "
        "familiar the model is with them), and the choice of names moves the rates.",
        "- The answers depend on the prompts' wording and on how they were asked ("
        + (
            "some free: a non-answer is no applicant"
            if free
            else "held to the answer constraint: the model may only answer with a listed choice"
        )
        + "); another wording can give other rates (`results/wordings/` where several were "
        "run).",
        "- Q2 and Q3 are head-to-head: a category's share there depends on the categories it met.",
        "- Both listing orders are pooled, so the first-listed position favours no category."
        if not confounded
        else "- **Only one listing order was run: in Q2 and Q3 a category's share mixes the "
        "category with its position in the prompt.**",
        "",
    ]
