"""The overview of a run with several contrasts (results/contrasts.md): one line per contrast
and model, the impact ratios, and what reading them together adds to each one's caveats."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from hiremeornot.analysis.findings import fact
from hiremeornot.design.contrasts import Contrast
from hiremeornot.writing.markdown import markdown_table

COLUMNS = [
    "contrast",
    "model",
    "occupations",
    "median difference",
    "towards A",
    "towards B",
    "differ",
    "floor on p",
    "Q2 first-listed",
    "confirmation",
    "consistency",
    "folder",
]


def contrast_rows(
    prefix: str,
    contrast: Contrast,
    model: str,
    metrics: pd.DataFrame,
    tests: pd.DataFrame,
    findings: pd.DataFrame,
) -> dict:
    """One contrast and model: its occupations, median difference, the verdicts, and what the
    neutral control also measures (first-listed share, median Confirmation, Consistency)."""
    differ = tests[tests["verdict"] == "differs"]
    return {
        "contrast": contrast.title,
        "model": model,
        "occupations": len(metrics),
        "median difference": float(metrics["difference"].median()),
        "towards A": int((differ["difference"] > 0).sum()),
        "towards B": int((differ["difference"] < 0).sum()),
        "differ": f"{len(differ)} of {len(tests)}",
        "floor on p": float(tests["smallest_p"].min()),
        "Q2 first-listed": float(fact(findings, "position_bias", "q2")["value"]),
        "confirmation": float(metrics["confirmation"].median()),
        "consistency": float(metrics["consistency"].median()),
        "folder": f"results/{prefix}",
    }


def overview(
    rows: Sequence[dict],
    impact: Mapping[str, pd.DataFrame],
    settings: dict,
    name_list: str,
) -> str:
    """The Markdown overview; ``impact`` maps each model to its impact-ratio table and
    ``settings`` is the config's ``report`` section."""
    table = pd.DataFrame(list(rows), columns=COLUMNS)
    tests = int(table["occupations"].sum())
    lines = [
        f"# Audit overview: {table['contrast'].nunique()} contrasts, `{name_list}` names\n",
        "Each contrast compares group A with group B and is audited on its own (its folder holds "
        "its summary, tables and figures); every difference is A minus B. `differ`: occupations "
        f"whose difference is significant (q < {settings['alpha']}, BH across that contrast's "
        "occupations); `towards A` / `towards B`: those favouring each group; `floor on p`: the "
        "floor the test sets on its p-values, 2^(1-k) with k the fewest names a side or wordings "
        "(a choice of the test, not a limit of the design; above alpha, nothing can differ); "
        "`Q2 first-listed`: the share of Q2 answers naming the first-listed person; "
        "`confirmation`, "
        "`consistency`: medians over occupations.\n",
        markdown_table(table),
        f"- **Reading contrasts together.** q-values correct across the occupations of one "
        f"contrast and model, not across the {len(table)} contrast x model cells ({tests} "
        "tests in all): read side by side, some of them differ by chance, more than any one "
        "summary's alpha lets through.",
        "- **Names.** A name stands for its group because its source list labels it so: names "
        "as a proxy for race or ethnicity are an approximation (people of every group bear "
        "every name), and they carry other signals (age, class, familiarity to the model). A "
        "difference between two groups of names is a difference in how the model treats those "
        "names.",
    ]
    control = table[table["contrast"].str.startswith("control: ")]
    for _, row in control.iterrows():
        named = table[(table["model"] == row["model"]) & ~table.index.isin(control.index)]
        lines.append(
            f"- **Neutral control, {row['model']}:** with labels instead of names, Q2 named the "
            f"first-listed person in {row['Q2 first-listed']:.0%} of its answers (the contrasts "
            f"of names: {_span(named['Q2 first-listed'], '.0%')}), median Confirmation "
            f"{row['confirmation']:.3f} ({_span(named['confirmation'], '.3f')}), Consistency "
            f"{row['consistency']:.3f} ({_span(named['consistency'], '.3f')}), and its median "
            f"difference, {row['contrast'].removeprefix('control: ')}, is "
            f"{row['median difference']:+.3f}: a preference for a label, not for a group. Where "
            "the contrasts of names show the same first-listed share, position alone may account "
            "for it; a matching share does not show that names play no part."
        )
    threshold = settings["impact_threshold"]
    for model, ratios in impact.items():
        below = ratios[ratios["below_threshold"]]
        defined = int(ratios["impact_ratio"].notna().sum())
        lines.append(
            f"- **Impact ratios, {model}:** {len(below)} of {defined} "
            f"ratios are below {threshold}, the whole interval of "
            f"{int(below['clearly_below'].sum())} of them; a screening heuristic, not a test "
            f"(results/impact/{model}.md)."
        )
    return "\n".join(lines) + "\n"


def _span(values: pd.Series, spec: str) -> str:
    """The values' range formatted with ``spec``: "0.5", or "0.4 to 0.6"."""
    low, high = values.min(), values.max()
    return f"{low:{spec}}" if low == high else f"{low:{spec}} to {high:{spec}}"
