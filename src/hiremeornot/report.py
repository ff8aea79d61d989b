"""Gather per-model metrics into the published tables and the generated summary."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from hiremeornot.atomic import atomic_output
from hiremeornot.backends import location
from hiremeornot.names import ORDERS
from hiremeornot.stats import CONFOUNDED, FIRST_LISTED, smallest_p
from hiremeornot.tables_io import write_table
from hiremeornot.wordings import robustness_sentence

TEST_FIELDS = ["p_value", "q_value", "significant", "p_equivalence", "q_equivalence", "verdict"]

EMBEDDED_NOTE = (
    "**{model} is the embedded smoke-test model (SmolLM2-135M-Instruct).** It makes the pipeline "
    "run anywhere in minutes, but its answers are not evidence about any real model: do not read "
    "these numbers as findings."
)


def markdown_table(frame: pd.DataFrame, digits: int = 3) -> str:
    """A GitHub-flavoured Markdown table."""

    def cell(value: object) -> str:
        return f"{value:.{digits}f}" if isinstance(value, float) else str(value)

    lines = ["| " + " | ".join(frame.columns) + " |", "|" + "---|" * len(frame.columns)]
    lines += [
        "| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)
    ]
    return "\n".join(lines) + "\n"


def write_markdown(text: str, path: str | Path) -> None:
    with atomic_output(path) as partial:
        partial.write_text(text)


def annotated_differences(
    metrics: pd.DataFrame, intervals: pd.DataFrame, tests: pd.DataFrame, threshold: float
) -> pd.DataFrame:
    """Occupations whose |difference| exceeds the threshold, with interval, tests and verdict."""
    bounds = intervals[intervals["metric"] == "difference"][["occupation", "low", "high"]]
    table = (
        metrics[["occupation", "difference"]]
        .merge(bounds, on="occupation", validate="1:1")
        .merge(tests[["occupation", *TEST_FIELDS]], on="occupation", validate="1:1")
    )
    above = table[table["difference"].abs() > threshold]
    return above.sort_values(["difference", "occupation"], ascending=[False, True]).reset_index(
        drop=True
    )


def _first_listed_share(position: pd.DataFrame, question: str = "q2") -> float:
    asked = position[position["question"] == question]
    named = asked["n_named"].sum()
    return asked["first_listed"].sum() / named if named else float("nan")


def _percent(share: float) -> str:
    return "n/a" if share != share else f"{share:.0%}"


def design_caveats(
    metrics: pd.DataFrame, tests: pd.DataFrame, position: pd.DataFrame, settings: dict
) -> list[str]:
    """What besides gender could explain the differences, in words: position, names, chance,
    wording. The first sentence is the position one."""
    orders = set(metrics["orders"])
    share = _percent(_first_listed_share(position))
    if orders == {"+".join(ORDERS)}:
        position_note = (
            "Differences are order-balanced: the mean of the female-first and the male-first "
            f"listing (Q2 named the first-listed subject in {share} of its answers; the "
            "balance cancels that position effect)."
        )
    else:
        position_note = (
            f"**Position and gender are confounded:** only the order {' / '.join(sorted(orders))} "
            f"was run, so the {'/'.join(FIRST_LISTED.get(o, o) for o in sorted(orders))} name "
            "was always listed first, and Q2 named the "
            f"first-listed subject in {share} of its answers. A difference here may be a "
            "preference for the first-listed name: it is not a gender finding. Run "
            "`names.orders: [female_first, male_first]`."
        )
    female, male = int(tests["female_names"].max()), int(tests["male_names"].max())
    wordings = settings["wordings"]
    names_note = (
        f"Intervals and tests treat the {female} female and {male} male names as a sample of "
        "names (a crossed bootstrap over both); names unlike these may behave differently."
    )
    floor = smallest_p(female, male, len(wordings))
    if floor >= settings["alpha"]:
        if smallest_p(female, male) < settings["alpha"]:
            limit, remedy = (
                f"{len(wordings)} wordings pooled as a random factor",
                "Use more wordings, or read each wording's results (results/<model>/wordings/).",
            )
        else:
            limit, remedy = (
                f"{min(female, male)} names on the smaller side",
                "Use more names (`names.pairs: all`, or `names.list: unqover`).",
            )
        names_note += (
            f" With {limit} the smallest achievable p-value is {floor:.3g}, not below alpha = "
            f"{settings['alpha']}: **no occupation can be significant, whatever the model "
            f"does.** {remedy}"
        )
    chance_note = (
        f"q-values correct for testing {len(tests)} occupations (Benjamini-Hochberg); "
        f"a |difference| above {settings['difference_threshold']} without a small q-value may "
        "be chance."
    )
    if len(wordings) > 1:
        wording_note = (
            f"The values pool {len(wordings)} wordings of every question ({', '.join(wordings)}); "
            "intervals and tests resample the wordings beside the names, so they speak for "
            "wordings like these. results/<model>/wordings/ reports each wording."
        )
    else:
        wording_note = (
            "Every question used one wording; a difference may not survive rewording it "
            "(prompts.variants, docs/prompts.md)."
        )
    return [position_note, names_note, chance_note, wording_note]


def write_difference_table(
    table: pd.DataFrame, model: str, settings: dict, caveats: list[str], tsv: str, md: str
) -> None:
    """A difference table as TSV and as Markdown with a caption and the caveats."""
    write_table(table, tsv)
    caption = (
        f"Occupations with |female - male difference| > {settings['difference_threshold']} for "
        f"{model} (reading: {settings['difference']}, docs/method.md). Positive values: the "
        "model's behaviour favours female subjects; negative: male subjects. low-high: "
        f"{settings['confidence']:.0%} interval over the names; p_value: test of a zero "
        "difference; q_value: Benjamini-Hochberg across occupations; p_equivalence / "
        f"q_equivalence: two one-sided tests of |difference| < {settings['equivalence_margin']}; "
        f"verdict: differs (q_value < {settings['alpha']}), equivalent (q_equivalence < "
        f"{settings['alpha']}) or inconclusive."
    )
    notes = "\n".join(f"- {line}" for line in caveats)
    body = markdown_table(table) if len(table) else "(no occupation above the threshold)\n"
    write_markdown(f"{caption}\n\n{notes}\n\n{body}", md)


def _listed(frame: pd.DataFrame) -> str:
    return ", ".join(
        f"{o} ({d:+.2f})" for o, d in zip(frame["occupation"], frame["difference"], strict=True)
    )


def model_summary(
    rows: pd.DataFrame,
    tests: pd.DataFrame,
    position: pd.DataFrame,
    settings: dict,
    robustness: pd.DataFrame | None = None,
) -> str:
    """The findings of one model, as Markdown bullet points."""
    threshold, alpha = settings["difference_threshold"], settings["alpha"]
    caveats = design_caveats(rows, tests, position, settings)
    confounded = (tests["verdict"] == CONFOUNDED).all()
    above = rows[rows["difference"].abs() > threshold]
    lines = [
        f"{len(rows)} occupations, {int(rows['n'].sum())} instances "
        f"(occupation x name pair x order), {int(tests['female_names'].max())} female and "
        f"{int(tests['male_names'].max())} male names, orders: "
        f"{', '.join(sorted(set(rows['orders'])))}.",
        f"Confirmation: median {rows['confirmation'].median():.3f} "
        f"(range {rows['confirmation'].min():.3f}-{rows['confirmation'].max():.3f}); "
        f"from the probabilities: median {rows['confirmation_p'].median():.3f}.",
        f"Consistency: median {rows['consistency'].median():.3f} "
        f"(range {rows['consistency'].min():.3f}-{rows['consistency'].max():.3f}); "
        f"from the probabilities: median {rows['consistency_p'].median():.3f}.",
    ]
    if confounded:
        lines.append(
            f"{len(above)} occupations with |difference| > {threshold} (reading "
            f"{settings['difference']}), {int((above['difference'] > 0).sum())} towards the "
            "female and "
            f"{int((above['difference'] < 0).sum())} towards the male subject; with one "
            "listing order these are not gender findings (see below)."
        )
    else:
        verdicts = tests.set_index("occupation")["verdict"]
        differs = tests[tests["verdict"] == "differs"].sort_values("difference")
        differ_above = verdicts.reindex(above["occupation"]).eq("differs").sum()
        lines += [
            f"{len(above)} occupations with |order-balanced difference| > {threshold} (reading "
            f"{settings['difference']}): {int((above['difference'] > 0).sum())} towards "
            f"female, {int((above['difference'] < 0).sum())} towards male subjects; "
            f"{int(differ_above)} of them differ significantly.",
            f"Verdicts: {int((verdicts == 'differs').sum())} differ (q < {alpha}), "
            f"{int((verdicts == 'equivalent').sum())} equivalent within "
            f"+-{settings['equivalence_margin']}, {int((verdicts == 'inconclusive').sum())} "
            "inconclusive" + (f"; differ: {_listed(differs)}." if len(differs) else "."),
        ]
    for question in ("q2", "q3"):
        asked = position[position["question"] == question]
        share = _percent(_first_listed_share(position, question))
        biased = int((asked["q_value"] < alpha).sum())
        lines.append(
            f"{question.upper()} named the first-listed subject in {share} of the answers that "
            f"named someone (0.5 means no position bias); {biased} occupations show a position "
            f"bias (exact test, BH q < {alpha})."
        )
    if robustness is not None:
        wordings = settings["wordings"]
        lines.append(robustness_sentence(robustness, wordings[0], wordings))
    lines += caveats
    return "\n".join(f"- {line}" for line in lines) + "\n"


def summary(
    models: dict[str, dict], tables: dict[str, dict[str, pd.DataFrame]], settings: dict
) -> str:
    """A short Markdown summary of each model's results."""
    parts = ["# Audit summary\n"]
    for model, frames in tables.items():
        parts.append(f"## {model}\n")
        if location.is_embedded(models[model]["model"]):
            parts.append(EMBEDDED_NOTE.format(model=model) + "\n")
        parts.append(
            model_summary(
                frames["metrics"],
                frames["tests"],
                frames["position"],
                settings,
                frames.get("robustness"),
            )
        )
    return "\n".join(parts)
