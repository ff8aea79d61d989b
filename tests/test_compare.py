"""Comparing two runs: matching, flip counts checked by hand, refusals, the paired test."""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from hiremeornot.analysis.compare import Run, compare, load_run, paired_values
from hiremeornot.analysis.metrics import instance_outcomes
from hiremeornot.analysis.paired import paired_changes
from hiremeornot.cli import main
from hiremeornot.design.contrasts import GENDER
from hiremeornot.errors import InputError
from hiremeornot.tables_io import write_table
from hiremeornot.writing.compare import figure_caveats, summary_paragraph

SETTINGS = {
    "difference": "biased",
    "bootstrap_resamples": 400,
    "confidence": 0.95,
    "alpha": 0.05,
    "seed": 7,
}
FEMALE, MALE = ["Mary", "Anna"], ["John", "Paul"]
ATTRIBUTES = {"nurse": ["E1", "E2"], "pilot": ["E2", "E3"]}


def instances() -> pd.DataFrame:
    rows = []
    for occupation, female, male, order in itertools.product(
        ATTRIBUTES, FEMALE, MALE, ["female_first", "male_first"]
    ):
        first = (female, "female") if order == "female_first" else (male, "male")
        second = (male, "male") if order == "female_first" else (female, "female")
        rows.append(
            {
                "instance_id": f"{occupation}|{female}-{male}|{order}",
                "occupation": occupation,
                "female": female,
                "male": male,
                "order": order,
                "name1": first[0],
                "gender1": first[1],
                "name2": second[0],
                "gender2": second[1],
            }
        )
    return pd.DataFrame(rows)


def _yes_no(role: str, yes_no=("Yes", "No")) -> dict:
    return {"answer": yes_no[role == "no"], "choice": role, "logprob_yes": -1.0, "logprob_no": -1.0}


def write_run(
    folder: Path,
    step1: dict | None = None,
    step2: dict | None = None,
    step3: dict | None = None,
    yes_no: tuple[str, str] = ("Yes", "No"),
    q1: str = "Is {s} qualified for {o}?",
    occupations=tuple(ATTRIBUTES),
) -> Path:
    """A run's result folder written by hand: Step 1 grants an attribute where subject and
    attribute hash alike; Steps 2 and 3 answer by their slot only (never by their prompt), so
    that a prompt changed through Step 1 keeps its answer unless overridden. ``step1``,
    ``step2`` and ``step3`` override the role answered: by (name1, name2, subject, element),
    by (instance, gender), by (instance, question)."""
    step1, step2, step3 = step1 or {}, step2 or {}, step3 or {}
    plan = instances()
    plan = plan[plan["occupation"].isin(occupations)]
    rows1, granted = {}, []
    for inst in plan.itertuples():
        for name, gender in ((inst.name1, inst.gender1), (inst.name2, inst.gender2)):
            for element in ATTRIBUTES[inst.occupation]:
                key = (inst.name1, inst.name2, name, element)
                role = step1.get(key, "yes" if (len(name) + int(element[1])) % 2 else "no")
                rows1[key] = {
                    "wording": "paper",
                    "name1": inst.name1,
                    "name2": inst.name2,
                    "subject": name,
                    "element_id": element,
                    "gender": gender,
                    "prompt": f"{inst.name1} and {inst.name2}. Does {name} have {element}?",
                    "choices": list(yes_no),
                    "roles": ["yes", "no"],
                    **_yes_no(role, yes_no),
                }
                granted.append(
                    {
                        "wording": "paper",
                        "instance_id": inst.instance_id,
                        "occupation": inst.occupation,
                        "name1": inst.name1,
                        "name2": inst.name2,
                        "subject": name,
                        "gender": gender,
                        "element_id": element,
                        "choice": role,
                    }
                )
    granted = pd.DataFrame(granted)
    facts = {
        (i, g): ",".join(group.loc[group["choice"] == "yes", "element_id"])
        for (i, g), group in granted.groupby(["instance_id", "gender"])
    }
    rows2, rows3 = [], []
    for inst in plan.itertuples():
        context = f"{inst.name1} and {inst.name2}. "
        for name, gender in ((inst.name1, inst.gender1), (inst.name2, inst.gender2)):
            role = step2.get((inst.instance_id, gender), "yes" if gender == "female" else "no")
            question = q1.format(s=name, o=inst.occupation)
            granted_to = facts[(inst.instance_id, gender)]
            rows2.append(
                {
                    "wording": "paper",
                    "instance_id": inst.instance_id,
                    "occupation": inst.occupation,
                    "subject": name,
                    "gender": gender,
                    "prompt": f"{context}{name} has {granted_to}. {question}",
                    "choices": list(yes_no),
                    "roles": ["yes", "no"],
                    **_yes_no(role, yes_no),
                }
            )
        statements = f"{inst.name1}: {facts[(inst.instance_id, inst.gender1)]}; "
        statements += f"{inst.name2}: {facts[(inst.instance_id, inst.gender2)]}. "
        names, genders = [inst.name1, inst.name2], [inst.gender1, inst.gender2]
        for question, extra in (("q2", []), ("q3", ["both", "neither"])):
            role = step3.get((inst.instance_id, question), "female")
            choices, roles = names + extra, genders + extra
            rows3.append(
                {
                    "wording": "paper",
                    "instance_id": inst.instance_id,
                    "occupation": inst.occupation,
                    "question": question,
                    "prompt": f"{context}{statements}{question}: who, for {inst.occupation}?",
                    "choices": choices,
                    "roles": roles,
                    "answer": choices[roles.index(role)],
                    "choice": role,
                    **{f"logprob_{r}": -1.0 for r in ["female", "male", "both", "neither"]},
                }
            )
    tables = {
        "step1": pd.DataFrame(list(rows1.values())),
        "step2": pd.DataFrame(rows2),
        "step3": pd.DataFrame(rows3),
    }
    for step, table in tables.items():
        write_table(table, folder / step / "paper" / "shard-0.parquet")
    write_table(granted, folder / "granted.parquet")
    outcomes = instance_outcomes(tables["step2"], tables["step3"], plan, sides=GENDER)
    write_table(outcomes, folder / "outcomes.tsv")
    return folder


# Run B differs from A in: two Step-1 answers (which change the text of the Step-2/3 questions
# of the instances that use them), one Step-2 answer to an unchanged question (a flip), one
# Step-2 answer to a question changed through Step 1 (not a flip), one Q2 answer (a flip).
STEP1_FLIPS = (
    ("Mary", "John", "Mary", "E2"),
    ("Paul", "Anna", "Paul", "E1"),
)
THROUGH = "nurse|Mary-John|female_first"  # uses ("Mary", "John", "Mary", "E2")
STEP2_FLIPS = {
    ("pilot|Anna-Paul|female_first", "male"): "yes",  # unaffected by Step 1: a flip
    (THROUGH, "female"): "no",  # its text changed through Step 1: not a flip
}
STEP3_FLIPS = {("pilot|Anna-John|male_first", "q2"): "male"}


def step1_default(key):
    name, element = key[2], key[3]
    return "yes" if (len(name) + int(element[1])) % 2 else "no"


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("compare")
    # flip the two Step-1 answers whatever their default is
    step1 = {key: "no" if step1_default(key) == "yes" else "yes" for key in STEP1_FLIPS}
    a = write_run(root / "a" / "m")
    b = write_run(root / "b" / "m", step1=step1, step2=STEP2_FLIPS, step3=STEP3_FLIPS)
    return a, b


def test_flips_are_counted_as_checked_by_hand(runs):
    a, b = runs
    result = compare(load_run(a, "A", sides=GENDER), load_run(b, "B", sides=GENDER), SETTINGS)
    flips = result.flips.set_index(["step", "question"])
    # Step 1: 4 pairs x 2 orders x 2 subjects x 3 distinct attributes, 2 flipped
    assert flips.loc[("step1", "attribute"), ["questions", "identical", "flipped"]].tolist() == [
        48,
        48,
        2,
    ]
    # ("Mary", "John", "Mary", "E2"): E2 is asked for nurse and pilot, so 2 instances' Step-2
    # (Mary's) and Step-3 questions read otherwise; ("Paul", "Anna", "Paul", "E1"): nurse only,
    # 1 instance. Step 2: 16 instances x 2 subjects, 3 changed through Step 1, 1 flipped.
    q1 = flips.loc[("step2", "q1")]
    assert [q1["questions"], q1["identical"], q1["flipped"]] == [32, 29, 1]
    assert [q1["through_step1"], q1["changed_through_step1"]] == [3, 1]
    assert q1["transitions"] == "no->yes 1"
    q2, q3 = flips.loc[("step3", "q2")], flips.loc[("step3", "q3")]
    assert [q2["questions"], q2["identical"], q2["flipped"], q2["through_step1"]] == [16, 13, 1, 3]
    assert q2["transitions"] == "female->male 1"
    assert [q3["identical"], q3["flipped"]] == [13, 0]
    total = flips.loc[("all", "all")]
    assert [total["questions"], total["identical"], total["flipped"]] == [112, 103, 4]
    assert total["changed_through_step1"] == 1
    same = compare(load_run(a, "A", sides=GENDER), load_run(a, "A again", sides=GENDER), SETTINGS)
    assert same.flips["flipped"].sum() == 0 and (same.changes["change"] == 0).all()
    assert (same.changes["p_value"] == 1).all()


def test_changes_per_occupation_are_b_minus_a_per_instance(runs):
    a, b = runs
    run_a, run_b = load_run(a, "A", sides=GENDER), load_run(b, "B", sides=GENDER)
    changes = compare(run_a, run_b, SETTINGS).changes.set_index(["occupation", "metric"])
    # By hand: pilot|Anna-Paul|female_first: Q1(male) no -> yes; Q2 chose female (Q1 yes):
    # nothing else changes. pilot|Anna-John|male_first: Q2 female -> male, Q3 stays female:
    # confirmed (Q1(John) = no) 1 -> 0, consistent 1 -> 0, biased towards female (+1) ->
    # towards male (not confirmed: -1). THROUGH: Q1(female) yes -> no, Q2 female: confirmed
    # 1 -> 0, biased stays female (consistent). 8 instances per occupation.
    assert changes.loc[("pilot", "confirmation"), "change"] == pytest.approx(-1 / 8)
    assert changes.loc[("pilot", "consistency"), "change"] == pytest.approx(-1 / 8)
    assert changes.loc[("pilot", "difference"), "change"] == pytest.approx(-2 / 8)
    assert changes.loc[("nurse", "confirmation"), "change"] == pytest.approx(-1 / 8)
    assert changes.loc[("nurse", "consistency"), "change"] == 0
    assert changes.loc[("nurse", "difference"), "change"] == 0
    # pooled over the 16 instances of both occupations
    assert changes.loc[("(all)", "confirmation"), "change"] == pytest.approx(-2 / 16)
    assert changes.loc[("(all)", "difference"), "change"] == pytest.approx(-2 / 16)
    assert (changes["low"] <= changes["change"]).all() and (
        changes["change"] <= changes["high"]
    ).all()
    # 2 names a side: no p-value below 2^(1-2) = 0.5, nothing can be significant
    assert (changes["smallest_p"] == 0.5).all() and (changes["p_value"] >= 0.5).all()
    assert not changes["significant"].any()


def test_instances_are_paired_by_id_not_by_row_order(runs):
    a, b = runs
    run_a, run_b = load_run(a, "A", sides=GENDER), load_run(b, "B", sides=GENDER)
    shuffled = Run("B", run_b.questions, run_b.outcomes.sample(frac=1, random_state=3), GENDER)
    values = paired_values(run_a, shuffled, "biased")
    changed = values[values["confirmation_a"] != values["confirmation_b"]]
    # the Q2 flip and the Q1 answer changed through Step 1, nothing else
    assert set(zip(changed["occupation"], changed["female"], changed["male"], strict=True)) == {
        ("pilot", "Anna", "John"),
        ("nurse", "Mary", "John"),
    }


def outcomes_frame(female: int, male: int, consistent: bool) -> pd.DataFrame:
    rows = [
        {
            "wording": "paper",
            "instance_id": f"nurse|f{f}-m{m}|{order}",
            "occupation": "nurse",
            "female": f"f{f}",
            "male": f"m{m}",
            "order": order,
            "q1_female": "yes",
            "q1_male": "yes",
            "q2": "female",
            "q3": "female" if consistent else "both",
            "confirmed": True,
            "consistent": consistent,
            "biased_towards": "female" if consistent else "none",
        }
        for f in range(female)
        for m in range(male)
        for order in ("female_first", "male_first")
    ]
    return pd.DataFrame(rows)


@pytest.mark.parametrize(("names", "significant"), [(8, True), (2, False)])
def test_the_paired_test_needs_enough_names(names, significant):
    """B keeps its Q2 choice in Q3 everywhere, A never: Consistency +1 in every instance."""
    a = Run("A", pd.DataFrame(), outcomes_frame(names, names, consistent=False), GENDER)
    b = Run("B", pd.DataFrame(), outcomes_frame(names, names, consistent=True), GENDER)
    table = paired_changes(paired_values(a, b, "biased"), SETTINGS, sides=GENDER)
    changes = table[table["occupation"] == "nurse"].set_index("metric")
    pooled = table[table["occupation"] == "(all)"].set_index("metric")  # one occupation: the same
    assert pooled[["change", "low", "high", "p_value"]].equals(
        changes[["change", "low", "high", "p_value"]]
    )
    # a finite smallest detectable change with 8 names a side; none with 2 (floor 0.5 > alpha)
    assert np.isfinite(changes["mdd"]).all() == significant
    assert changes.loc["consistency", "change"] == 1.0
    assert changes.loc["consistency", "smallest_p"] == pytest.approx(2.0 ** (1 - names))
    assert changes.loc["consistency", "significant"] == significant
    assert changes.loc["difference", "change"] == 1.0  # from no one to the female subject
    assert (
        changes.loc["confirmation", "change"] == 0
        and not changes.loc["confirmation", "significant"]
    )


def test_the_summary_says_what_cannot_be_concluded(runs):
    a, b = runs
    text = summary_paragraph(
        compare(load_run(a, "A", sides=GENDER), load_run(b, "B", sides=GENDER), SETTINGS)
    )
    assert "**4 flipped**" in text and "2 of 48 in Step 1 and 2 of 55 in Steps 2-3" in text
    assert "9 Step-2/3 questions read differently because Step 1" in text
    assert "no change can be significant" in text and "sampling noise" in text


@pytest.mark.parametrize(("names", "reachable"), [(8, True), (2, False)])
def test_a_comparison_decides_whether_a_change_can_be_significant(runs, names, reachable):
    a, b = runs
    result = compare(load_run(a, "A", sides=GENDER), load_run(b, "B", sides=GENDER), SETTINGS)
    paired = (
        Run(run, pd.DataFrame(), outcomes_frame(names, names, consistent=kept), GENDER)
        for run, kept in (("A", False), ("B", True))
    )
    changes = paired_changes(paired_values(*paired, "biased"), SETTINGS, sides=GENDER)
    result = dataclasses.replace(result, changes=changes)
    assert result.smallest_p == pytest.approx(2.0 ** (1 - names))
    assert result.reachable == reachable
    caveats = figure_caveats(result)
    assert any("no change can be significant" in line for line in caveats) == (not reachable)
    assert "95% interval over names" in caveats[0] and "not shown to be absent" in caveats[-2]


def test_runs_of_another_design_are_refused(runs, tmp_path):
    a, _ = runs
    # without pilot: its 16 Step-1 questions of E3 (E2 is asked for nurse too), 16 + 16 others
    smaller = write_run(tmp_path / "one" / "m", occupations=("nurse",))
    with pytest.raises(
        InputError, match=r"did not ask the same questions: 48 of A's 112 are not in B, 0 of B's 64"
    ):
        compare(load_run(a, "A", sides=GENDER), load_run(smaller, "B", sides=GENDER), SETTINGS)
    reworded = write_run(tmp_path / "q1" / "m", q1="Should {s} be hired as {o}?")
    with pytest.raises(InputError, match="although Step 1 granted the same attributes"):
        compare(load_run(a, "A", sides=GENDER), load_run(reworded, "B", sides=GENDER), SETTINGS)
    german = write_run(tmp_path / "de" / "m", yes_no=("Ja", "Nein"))
    with pytest.raises(InputError, match=r'offer other answers .*\["Yes", "No"\] vs \["Ja"'):
        compare(load_run(a, "A", sides=GENDER), load_run(german, "B", sides=GENDER), SETTINGS)


def test_the_command_writes_the_report_and_refuses_in_one_line(runs, tmp_path, capsys):
    a, b = runs
    out = tmp_path / "out"
    args = [
        "compare",
        "--settings",
        '{"difference": "biased", "bootstrap_resamples": 200, "confidence": 0.95, '
        '"alpha": 0.05, "seed": 1}',
        "--a-model",
        "m",
        "--a-results",
        str(a.parent),
        "--b-model",
        "m",
        "--b-results",
        str(b.parent),
        "--out-md",
        str(out / "c.md"),
        "--out-tsv",
        str(out / "c.tsv"),
        "--out-png",
        str(out / "c.png"),
        "--out-changed",
        str(out / "changed.tsv"),
    ]
    assert main(args) == 0
    report = (out / "c.md").read_text()
    assert report.startswith(f"# m ({b.parent}) against m ({a.parent})")
    assert len(pd.read_csv(out / "c.tsv", sep="\t")) == 3 * 3  # with the pooled rows
    changed = pd.read_csv(out / "changed.tsv", sep="\t")
    assert changed["identical"].tolist() == [True] * 4 + [False]
    assert (out / "c.png").read_bytes()[:4] == b"\x89PNG"
    (b / "outcomes.tsv").rename(b / "moved.tsv")
    try:
        assert main(args) == 1
    finally:
        (b / "moved.tsv").rename(b / "outcomes.tsv")
    error = capsys.readouterr().err.strip().splitlines()
    assert error[-1] == (
        f"hiremeornot: {b}/outcomes.tsv: not found (run the audit of that model to the end first)"
    )


def test_one_run_given_twice_by_two_paths_is_refused(runs, tmp_path, capsys):
    a, _ = runs
    out = tmp_path / "out"
    args = ["compare", "--settings", '{"difference": "biased"}', "--out-md", str(out / "c.md")]
    args += ["--out-tsv", str(out / "c.tsv"), "--out-png", str(out / "c.png")]
    args += ["--a-model", "m", "--a-results", str(a.parent), "--b-model", "m"]
    args += ["--b-results", f"{a.parent}/./"]
    assert main(args) == 1
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error.startswith("hiremeornot: both runs are 'm (") and error.endswith(
        f"({a}): compare two models or two result folders"
    )
    assert not out.exists()
