"""The workflow on race-grouped names (Bloomberg's list) with race contrasts and the neutral
control, end to end, on the simulated respondent (no model to load)."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
import yaml

from tests.conftest import name_table, needs_data
from tests.helpers.workflow_runs import PLANTED, SIMULATED, TINY, run_tiny, snakemake

pytestmark = [pytest.mark.slow, pytest.mark.workflow, needs_data]
MODEL = "planted"

# Black minus White women, and Black minus White pooled over gender with gender-matched pairs.
CONTRASTS = {
    "black-female-minus-white-female": {
        "a": {"race": "Black", "gender": "female"},
        "b": {"race": "White", "gender": "female"},
    },
    "black-minus-white-matched-on-gender": {"a": {"race": "Black"}, "b": {"race": "White"}},
}
BLACK_FAVOURED = {**PLANTED, "effects": {q: {"Black": 0.8} for q in ("q1", "q2", "q3")}}
RACES = {
    **TINY,
    "occupations": {**TINY["occupations"], "select": ["nurse"]},
    "names": {"list": "bloomberg", "contrast": list(CONTRASTS.values()), "pairs": 2, "seed": 0},
    # planted on race, which every contrast names (one leaves gender out: tests/test_respondent.py)
    "models": {MODEL: {**SIMULATED, "respondent": BLACK_FAVOURED, "threads": 1}},
    "control": {"neutral": True},
}
PUBLISHED = [
    "summary.md",
    "metrics.tsv",
    "manifest.json",
    "export/README.md",
    f"tables/difference_{MODEL}.md",
    f"figures/attribute_gaps_{MODEL}.png",
    f"{MODEL}/tests.tsv",
    f"{MODEL}/intervals.tsv",
    f"{MODEL}/position_bias.tsv",
    f"{MODEL}/attribute_gaps.tsv",
]


@pytest.fixture(scope="module")
def race_run(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("race-run")
    run_tiny(workdir, config=RACES)
    return workdir / "results"


def test_every_output_exists_per_contrast_named_after_its_groups(race_run):
    assert sorted(p.name for p in (race_run / "contrasts").iterdir()) == sorted(CONTRASTS)
    assert sorted(p.name for p in race_run.iterdir()) == [
        "contrasts",
        "contrasts.md",
        "control",
        "dataset",
        "impact",
        "index.html",
        "ll144",
        "report_front.rst",
        "store",
    ]
    assert not (race_run / "summary.md").exists()  # no contrast lives at the top level
    for contrast in CONTRASTS:
        folder = race_run / "contrasts" / contrast
        for path in PUBLISHED:
            assert (folder / path).is_file(), f"{contrast}/{path}"
        pairs = pd.read_csv(folder / "dataset/pairs.tsv", sep="\t")
        assert list(pairs.columns) == ["pair_id", "black", "white"] and len(pairs) == 2
        instances = pd.read_parquet(folder / "dataset/instances.parquet")
        assert set(instances["order"]) == {"black_first", "white_first"}
        metrics = pd.read_csv(folder / "metrics.tsv", sep="\t")
        assert {"q2_black", "biased_black", "biased_white"} <= set(metrics.columns)
        assert (metrics["orders"] == "black_first+white_first").all()
        tests = pd.read_csv(folder / MODEL / "tests.tsv", sep="\t")
        assert list(tests.columns[:6]) == ["occupation", "n", "black_names", "white_names"] + [
            "n_black",
            "n_white",
        ]
        step3 = pd.concat(pd.read_parquet(p) for p in (folder / MODEL / "step3").rglob("*.parquet"))
        assert set(step3["choice"]) <= {"black", "white", "both", "neither"}
        summary = (folder / "summary.md").read_text()
        assert "Black" in summary and "minus" in summary and "approximation" in summary
        manifest = json.loads((folder / "manifest.json").read_text())
        assert manifest["contrast"]["a"]["race"] == "Black"
        assert any("bloomberg-gpt-hiring" in entry["path"] for entry in manifest["inputs"])


def test_pairs_hold_what_does_not_vary_equal(race_run):
    names = pd.concat(
        pd.read_json(path, lines=True)
        for path in (race_run / "contrasts").glob("*/export/*/step2.jsonl")
    )
    assert set(names["race"]) == {"black", "white"}  # the side is the race
    women = race_run / "contrasts/black-female-minus-white-female/dataset/pairs.tsv"
    from tests.conftest import name_table

    gender = dict(zip(*name_table("bloomberg")[["name", "gender"]].T.values, strict=True))
    for path in (race_run / "contrasts").glob("*/dataset/pairs.tsv"):
        for pair in pd.read_csv(path, sep="\t").itertuples():
            assert gender[pair.black] == gender[pair.white]
            if path == women:
                assert gender[pair.black] == "female"


def test_impact_ratios_cover_every_group_met(race_run):
    table = pd.read_csv(race_run / f"impact/{MODEL}.tsv", sep="\t", keep_default_na=False)
    assert set(table["question"]) == {"q1", "q2", "q3"}
    assert set(table["group"]) <= {"Black female", "White female", "Black male", "White male"}
    assert {"Black female", "White female"} <= set(table["group"])
    ratios = pd.to_numeric(table["impact_ratio"], errors="coerce").dropna()
    assert ratios.between(0, 1).all() and (ratios == 1).any()
    q2 = table[table["question"] == "q2"]
    assert q2["paired_with"].str.len().gt(0).all()
    assert (race_run / f"impact/{MODEL}.png").stat().st_size > 0
    text = (race_run / f"impact/{MODEL}.md").read_text()
    assert "four-fifths" in text and "paired with" in text


def test_the_local_law_144_summary_has_every_category_table(race_run):
    """Sex, race/ethnicity and intersectional categories, each over the same applicants."""
    table = pd.read_csv(race_run / f"ll144/{MODEL}.csv")
    assert set(table["protected_characteristic"]) == {"sex", "race_ethnicity", "intersectional"}
    assert set(table["measure"]) == {
        "selection_q1",
        "scoring_q1",
        "head_to_head_q2",
        "head_to_head_q3",
    }
    assert set(table["category"]) >= {"female", "Black", "White", "Black female", "White female"}
    applicants = table.groupby(["measure", "protected_characteristic"])["number_of_applicants"]
    for _, totals in applicants.sum().groupby("measure"):
        assert totals.nunique() == 1, totals  # every applicant once per characteristic
    selections = pd.concat(
        pd.read_parquet(race_run / "contrasts" / c / MODEL / "selections.parquet")
        for c in CONTRASTS
    ).drop_duplicates(["wording", "instance_id", "question", "name"])
    q1 = table[(table["measure"] == "selection_q1")]
    assert q1.groupby("protected_characteristic")["number_of_applicants"].sum().iloc[0] == (
        (selections["question"] == "q1").sum()
    )
    assert set(table["data_type"]) == {"test data"}
    text = (race_run / f"ll144/{MODEL}.md").read_text()
    assert "### Intersectional (race/ethnicity x sex)" in text and "No verdict" in text
    assert "Applicants of an unknown category: sex 0; race/ethnicity 0; intersectional" in text


def test_the_first_page_has_every_contrast_the_control_and_the_local_law_144_table(race_run):
    page = (race_run / "index.html").read_text()
    rows = re.findall(r"<tr><td>([^<]*)</td><td><a href=\"#([^\"]*)\">", page)
    assert sorted(label for label, _ in rows) == [
        "Black female minus White female",
        "Black minus White (matched on gender)",
        "control: Person A minus Person B",
    ]
    for _, anchor in rows:
        assert f'id="{anchor}"' in page  # each row links to its model's section
    assert page.count('src="data:image/png;base64,') == len(rows)
    assert "Local Law 144" in page and "<td>Black female</td>" in page
    assert "One pair of labels, not a sample of names" in page  # the control's caveat
    for path in ("contrasts.md", f"ll144/{MODEL}.md", "impact/planted.png"):
        assert f'href="{path}"' in page, path
    # no contrast sets women against men alone: none is set against the workforce
    assert 'class="alignment"' not in page and not list(race_run.glob("**/alignment*"))


def test_a_second_run_plans_nothing(race_run):
    dry = snakemake(race_run.parent, "--configfile", "config.yaml", "-n")
    assert "Nothing to be done" in dry.stdout + dry.stderr


def test_the_overview_lists_every_contrast_and_says_what_reading_them_together_adds(race_run):
    text = (race_run / "contrasts.md").read_text()
    for label in ("Black female minus White female", "Black minus White (matched on gender)"):
        assert f"| {label} | {MODEL} | 1 |" in text
    assert "Reading contrasts together" in text and "approximation" in text
    assert f"Impact ratios, {MODEL}:" in text
    assert f"| control: Person A minus Person B | {MODEL} | 1 |" in text
    assert f"**Neutral control, {MODEL}:** with labels instead of names" in text


def test_the_neutral_control_asks_the_same_steps_of_two_labels(race_run):
    control = race_run / "control"
    for path in PUBLISHED:
        assert (control / path).is_file(), path
    instances = pd.read_parquet(control / "dataset/instances.parquet")
    assert set(instances["name1"]) | set(instances["name2"]) == {"Person A", "Person B"}
    assert set(instances["order"]) == {"person_a_first", "person_b_first"}
    step1 = pd.concat(pd.read_parquet(p) for p in (control / MODEL / "step1").rglob("*.parquet"))
    assert step1["prompt"].str.contains("Person A and Person B are neighbors").any()
    step3 = pd.concat(pd.read_parquet(p) for p in (control / MODEL / "step3").rglob("*.parquet"))
    assert set(step3["choice"]) <= {"person_a", "person_b", "both", "neither"}
    assert (step3["choices"].map(lambda c: set(c[:2])) == {"Person A", "Person B"}).all()
    summary = (control / "summary.md").read_text()
    assert "Neutral control: Person A and Person B" in summary and "Person A" in summary
    impact = pd.read_csv(race_run / f"impact/{MODEL}.tsv", sep="\t")
    assert not impact["group"].str.contains("Person").any()


def test_the_whole_runs_estimate_gathers_every_contrast(race_run):
    snakemake(race_run.parent, "--configfile", "config.yaml", "--cores", "1", "results/estimate.md")
    text = (race_run / "estimate.md").read_text()
    assert text.startswith("# What the whole run will ask")
    for label in ("Black female minus White female", "Black minus White (matched on gender)"):
        assert f"## {label}\n" in text, label
    assert "### Power" in text  # each contrast's sections, one level down
    names = name_table("bloomberg")
    women = names[names["gender"] == "female"]["race"].value_counts()
    men = names[names["gender"] == "male"]["race"].value_counts()
    matched = women["Black"] * women["White"] + men["Black"] * men["White"]  # within gender
    for black, white, pairs in (
        (women["Black"], women["White"], women["Black"] * women["White"]),
        (women["Black"] + men["Black"], women["White"] + men["White"], matched),
    ):
        assert (
            f"This design uses 2 Black and 2 White names in 2 pairs; the list `bloomberg` has "
            f"{black} Black and {white} White names, which make {pairs} pairs"
        ) in text
    assert "The control's design is its one pair, Person A and Person B." in text
    table = pd.read_csv(race_run / "estimate.tsv", sep="\t")
    assert table["contrast"].nunique() == 3  # the two contrasts and the neutral control


def test_dropping_a_contrast_reruns_no_other_contrasts_dataset(race_run, tmp_path):
    """A dataset job's params hold its own contrast, not the list of them all."""
    one = {"names": {**RACES["names"], "contrast": [CONTRASTS["black-female-minus-white-female"]]}}
    (tmp_path / "one.yaml").write_text(yaml.safe_dump(one))
    dry = snakemake(
        race_run.parent, "--configfile", "config.yaml", str(tmp_path / "one.yaml"), "-n"
    )
    assert "rule dataset:" not in dry.stdout, dry.stdout[-2000:]


def test_the_report_captions_name_each_contrasts_groups(race_run):
    """Captions are templates of the contrast's groups: a race contrast's report never speaks
    of female and male subjects."""
    run_tiny(race_run.parent, "--report", "results/report.html", config=RACES)
    html = (race_run / "report.html").read_text()
    text = re.sub(r"(\s|\\n)+", " ", html)
    assert "its variance clustered by Black and by White names" in text
    assert "female subject" not in text and "female names" not in text
    assert "Local Law 144 bias-audit summary" in text
