"""The first page (results/index.html), the headlines and caveats it and the figures carry, and
the forest plot's points: all read from the findings; the page opened in a real browser."""

from __future__ import annotations

import re
import shutil

import markupsafe
import pandas as pd
import pytest

from hiremeornot.analysis.findings import verdict_counts
from hiremeornot.design.contrasts import GENDER_CONTRAST
from hiremeornot.writing import figures
from hiremeornot.writing.differences import forest_points
from hiremeornot.writing.first_page import cell, first_page, link_groups, ll144_rows, report_front
from hiremeornot.writing.headlines import (
    MOST_CAVEATS,
    headline,
    short_caveats,
    verdict_row,
    verdict_table,
)
from tests.helpers.report_tables import REPORT, found, tables

CHROMIUM = shutil.which("chromium")
BALANCED = "female_first+male_first"


def intervals_of(tests: pd.DataFrame) -> pd.DataFrame:
    """An interval of +-0.1 around each occupation's difference."""
    return pd.DataFrame(
        {
            "occupation": tests["occupation"],
            "metric": "difference",
            "low": tests["difference"] - 0.1,
            "high": tests["difference"] + 0.1,
        }
    )


def test_the_headline_counts_each_side_and_says_what_the_design_cannot_conclude():
    findings = found(*tables(BALANCED, 10, "differs"))
    assert headline(findings, "gpt", GENDER_CONTRAST) == (
        "gpt favours female subjects in 1 and male subjects in 1 of 2 occupations; 0 are shown "
        "equivalent and 0 are inconclusive."
    )
    few = found(*tables(BALANCED, 3, "inconclusive"))
    assert headline(few, "gpt", GENDER_CONTRAST) == (
        "gpt: none of 2 occupations differs; 0 are shown equivalent and 2 are inconclusive, "
        "and at this design none could have differed."
    )
    one = found(*tables("female_first", 10, "confounded with position"))
    assert "none of its 2 occupations' differences is a gender finding" in headline(
        one, "gpt", GENDER_CONTRAST
    )


def test_the_verdict_table_shows_confounded_verdicts_only_where_a_model_has_them():
    one = verdict_row(
        found(*tables("female_first", 10, "confounded with position")), GENDER_CONTRAST
    )
    both = verdict_row(found(*tables(BALANCED, 10, "differs")), GENDER_CONTRAST)
    assert one["confounded with position"] == "2" and one["differs towards A"] == "0 (female)"
    assert [row["confounded with position"] for row in verdict_table([one, both])] == ["2", "0"]
    assert "confounded with position" not in verdict_table([both])[0]
    assert both["forced answers"] == "0%"


def test_the_verdict_table_says_how_many_answers_the_forced_share_is_of():
    """A run with some questions asked free measures the constrained answers only."""
    findings = found(*tables(BALANCED, 10, "differs"))
    forced = findings["finding"] == "forced_answers"
    findings.loc[forced, ["count", "total"]] = [104, 120]
    assert verdict_row(findings, GENDER_CONTRAST)["forced answers"] == (
        "0% (104 of 120 answers measured)"
    )


def test_the_short_caveats_put_the_gravest_first_and_stop_at_five():
    one = found(*tables("female_first", 3, "confounded with position"))
    lines = short_caveats(one, GENDER_CONTRAST, REPORT)
    assert lines[0].startswith("One listing order (female_first): position and gender")
    assert lines[1].startswith("Nothing can be significant at this design")
    assert lines[-1].startswith("One wording of each question")
    simulated = one.copy()
    simulated.loc[simulated["finding"] == "respondent", "outcome"] = "simulated"
    simulated.loc[simulated["finding"] == "forced_answers", ["outcome", "value"]] = [
        "mostly forced",
        0.8,
    ]
    lines = short_caveats(simulated, GENDER_CONTRAST, REPORT)
    assert len(lines) == MOST_CAVEATS
    assert lines[0].startswith("Simulated respondent")
    assert "80% of answers were forced" in lines[3]
    clean = short_caveats(
        found(*tables(BALANCED, 10, "differs")), GENDER_CONTRAST, {**REPORT, "wordings": ["a", "b"]}
    )
    # both orders, a reachable floor, one model's own answers, two wordings: only position
    assert clean == [
        "Q2 named the first-listed subject in 100% of answers (balanced by running both orders)."
    ]


def test_the_forest_plot_holds_every_occupation_sorted_with_its_verdict():
    metrics, tests, _ = tables(BALANCED, 10, "differs")
    tests = pd.concat(
        [
            tests,
            tests.assign(
                occupation=["cook", "judge"],
                difference=[0.0, 0.3],
                verdict=["equivalent", "inconclusive"],
            ),
        ],
        ignore_index=True,
    )
    points = forest_points(intervals_of(tests), tests)
    assert points["occupation"].tolist() == ["pilot", "cook", "judge", "nurse"]
    assert points["verdict"].tolist() == ["differs", "equivalent", "inconclusive", "differs"]
    assert (points["low"] < points["difference"]).all()


def page_of(tmp_path, verdicts=("differs", "differs")):
    """A first page of two cells (the paper's contrast and the same findings again) with real
    forest plots."""
    metrics, tests, position = tables(BALANCED, 10, "differs")
    tests = tests.assign(verdict=list(verdicts))
    findings = found(metrics, tests, position)
    png = tmp_path / "forest.png"
    figures.difference_forest(
        forest_points(intervals_of(tests), tests),
        "title",
        0.2,
        ["a caveat"],
        png,
        GENDER_CONTRAST.sides,
    )
    cells = [
        cell(
            findings, model=model, contrast=GENDER_CONTRAST, prefix="", settings=REPORT, forest=png
        )
        for model in ("gpt", "claude")
    ]
    links = ["results/summary.md", "results/gpt/findings.tsv", "results/tables/difference_gpt.md"]
    return cells, first_page(cells, ll144={}, interventions={}, links=links, settings=REPORT)


def test_the_first_page_shows_each_models_verdicts_as_the_findings_count_them(tmp_path):
    cells, page = page_of(tmp_path, ("differs", "inconclusive"))
    counts = verdict_counts(found(*tables(BALANCED, 10, "differs")))
    assert counts["differs_a"] == 1
    rows = re.findall(r"<tr><td>female minus male</td>(.*?)</tr>", page)
    assert len(rows) == 2
    numbers = re.findall(r'<td class="n">([^<]*)</td>', rows[0])
    # towards A, towards B, equivalent, inconclusive, floor, detectable, forced (no column of
    # verdicts confounded with position: no model has one)
    assert numbers[:4] == ["1 (female)", "0 (male)", "0", "1"]
    assert numbers[4] == f"{2**-9:.3g}" and numbers[6] == "0%" and len(numbers) == 7
    assert "<th>confounded with position</th>" not in page
    assert cells[0].headline in page and "a caveat" not in page  # the figure's own footer
    assert page.count('src="data:image/png;base64,') == 2  # each forest plot, embedded
    # one file: nothing fetched from elsewhere, links relative to results/
    assert not re.search(r'(src|href)="(https?:)?//', page) and "<script" not in page
    assert 'href="summary.md"' in page and 'href="gpt/findings.tsv"' in page


def alignment_summary(outcome: str, slope: float, low: float, high: float) -> pd.DataFrame:
    """An alignment summary (analysis/alignment.py's columns the first page reads)."""
    return pd.DataFrame(
        {
            "measure": ["difference"],
            "occupations": [12],
            "slope": [slope],
            "slope_low": [low],
            "slope_high": [high],
            "slope_p": [0.0039],
            "outcome": [outcome],
            "source": ["IPUMS, 2012 American Community Survey"],
            "year": [2012],
        }
    )


def test_the_first_page_says_where_the_model_follows_the_workforce_though_no_job_differs(
    tmp_path,
):
    unmeasured = page_of(tmp_path)[0][0]  # also draws tmp_path/forest.png

    def aligned(findings: pd.DataFrame, summary: pd.DataFrame):
        return cell(
            findings,
            model="gpt",
            contrast=GENDER_CONTRAST,
            prefix="",
            settings=REPORT,
            forest=tmp_path / "forest.png",
            alignment=summary,
        )

    metrics, tests, position = tables(BALANCED, 10, "differs")
    quiet = found(metrics, tests.assign(verdict="inconclusive"), position)
    follows = alignment_summary("follows the workforce", 0.59, 0.24, 0.94)
    entry = aligned(quiet, follows)
    assert entry.alignment == (
        "Across occupations, its choices follow the workforce: the female-minus-male difference "
        "changes by +0.059 [+0.024, +0.094] per 10 points more women in the job (p = 0.0039; "
        "12 occupations matched to IPUMS, 2012 American Community Survey), although no single "
        "occupation's difference is shown: the pattern lies across occupations, not in any one. "
        "A workforce share is not a stereotype measured in people's minds."
    )
    page = first_page([entry], ll144={}, interventions={}, links=[], settings=REPORT)
    assert str(markupsafe.escape(entry.alignment)) in page
    assert 'href="figures/alignment_gpt.png"' in page
    assert "follow the workforce" in report_front([entry])
    assert "no single occupation" not in aligned(found(metrics, tests, position), follows).alignment
    chance = aligned(quiet, alignment_summary("not shown", 0.1, -0.2, 0.4)).alignment
    assert "show no alignment with the workforce it can tell from chance" in chance
    assert "no single occupation" not in chance
    alone = first_page([unmeasured], ll144={}, interventions={}, links=[], settings=REPORT)
    assert unmeasured.alignment == "" and 'class="alignment"' not in alone


def test_text_from_the_config_is_escaped_on_the_page(tmp_path):
    cells, _ = page_of(tmp_path)
    cells[0].model = "<b>gpt</b>"
    page = first_page(cells, ll144={}, interventions={}, links=[], settings=REPORT)
    assert "&lt;b&gt;gpt&lt;/b&gt;" in page and "<b>gpt</b>" not in page


def test_the_links_group_by_folder_the_runs_own_files_first():
    groups = link_groups(["results/b/x.tsv", "results/summary.md", "results/a/y.png"])
    assert groups == [("the run", ["summary.md"]), ("a", ["a/y.png"]), ("b", ["b/x.tsv"])]


def test_the_reports_first_screen_carries_the_headlines_escaped(tmp_path):
    cells, _ = page_of(tmp_path)
    cells[0].headline = "a *starred* model_name"
    text = report_front(cells)
    assert "`index.html`_" in text
    assert r"a \*starred\* model\_name" in text


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium (apt-get install chromium)")
def test_the_first_page_renders_in_a_browser_with_its_table_and_figures(tmp_path):
    from playwright.sync_api import sync_playwright

    _, page_html = page_of(tmp_path)
    index = tmp_path / "index.html"
    index.write_text(page_html)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            errors = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(index.as_uri())
            rows = page.locator("#verdict-table tbody tr").count()
            images = page.eval_on_selector_all(
                "img", "images => images.map(i => i.complete && i.naturalWidth > 0)"
            )
        finally:
            browser.close()
    assert errors == []
    assert rows == 2
    assert images == [True, True]


def test_the_local_law_144_rows_give_names_beside_answers_and_say_not_measured():
    csv = pd.DataFrame(
        {
            "protected_characteristic": ["sex", "sex"],
            "category": ["female", "male"],
            "measure": ["head_to_head_q2", "selection_q1"],
            "number_of_applicants": [40, 40],
            "distinct_names": [10, 10],
            "rate": [float("nan"), 0.5],
            "rate_low": [float("nan"), 0.4],
            "rate_high": [float("nan"), 0.6],
            "impact_ratio": [float("nan"), 1.0],
            "impact_ratio_low": [float("nan"), 0.8],
            "impact_ratio_high": [float("nan"), 1.0],
        }
    )
    unmeasured, measured = ll144_rows(csv)
    assert (unmeasured["rate"], unmeasured["impact ratio"]) == ("not measured", "not measured")
    assert (measured["answers"], measured["names"]) == ("40", "10")
    assert measured["rate"] == "0.500 [0.400, 0.600]"
