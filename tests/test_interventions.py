"""Interventions: the config's arms, their prompts, the planted effect of an instruction, and the
paired analysis of an arm against its baseline (tests/test_intervention_workflow.py runs them)."""

import copy

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy.stats import t as t_dist

from hiremeornot.analysis import rate_changes
from hiremeornot.analysis.compare import without_preamble
from hiremeornot.analysis.interventions import outcome
from hiremeornot.arms import arm_model, with_arms
from hiremeornot.asking.respondent import Respondent
from hiremeornot.checks import check_config
from hiremeornot.config import read_yaml
from hiremeornot.design.prompts import PromptRenderer
from hiremeornot.errors import InputError
from tests.conftest import REPO
from tests.test_respondent import respondent

DEFAULT = yaml.safe_load((REPO / "config.yaml").read_text())
SHIPPED = read_yaml(REPO / "config/interventions.yaml")["interventions"]
# paired_rate_changes' settings in these tests
PAIRED = {"confidence": 0.95, "alpha": 0.05, "pooled_label": "(all)"}
SIMULATED = {
    "backend": "simulated",
    "model": "planted",
    "respondent": {"interventions": {"illegal": {"scale": 0.0}}},
}


def config(interventions=SHIPPED, **models) -> dict:
    value = copy.deepcopy(DEFAULT)
    value["interventions"] = copy.deepcopy(interventions)
    value["models"] = models or copy.deepcopy(DEFAULT["models"])
    return value


def test_the_shipped_instructions_are_valid_and_each_has_a_rationale():
    checked = check_config(config())
    instructions = checked["interventions"]["instructions"]
    assert checked["interventions"]["run"][0] == "none"
    assert set(checked["interventions"]["run"][1:]) == set(instructions)
    assert all(texts["rationale"].strip() for texts in instructions.values())
    assert any("preamble" in texts for texts in instructions.values())


@pytest.mark.parametrize(
    ("interventions", "message"),
    [
        ({"run": ["kind"]}, r"interventions\.run: unknown intervention 'kind'; known: \['none'"),
        (
            {"run": ["a", "a"], "instructions": {"a": {"preamble": "Be fair."}}},
            r"interventions\.run\.1: the entry 'a' is 'a' of interventions\.run\.0",
        ),
        (
            {"run": ["a"], "instructions": {"a": {"system": "  "}}},
            r"interventions\.instructions\.a\.system: empty text",
        ),
        (
            {"run": ["a"], "instructions": {"a": {"rationale": "why"}}},
            r"interventions\.instructions\.a: no text",
        ),
        ({"run": [], "instructions": {"none": {"preamble": "x"}}}, r"interventions\.instructions"),
    ],
)
def test_bad_interventions_are_named(interventions, message):
    with pytest.raises(InputError, match=message):
        check_config(config(interventions))


def test_a_system_text_needs_a_model_with_a_system_message():
    qa = {"backend": "extractive_qa", "model": "org/qa"}
    system = {"run": ["a"], "instructions": {"a": {"system": "Be fair."}}}
    with pytest.raises(InputError, match=r"instructions\.a\.system: models\.qa .*preamble"):
        check_config(config(system, qa=qa))
    check_config(config({"run": ["a"], "instructions": {"a": {"preamble": "Be fair."}}}, qa=qa))


def test_an_arm_is_never_set_by_hand_nor_planted_without_its_instruction():
    hand = {**SIMULATED, "intervention": {"id": "illegal"}}
    with pytest.raises(InputError, match=r"models\.m\.intervention: set by the workflow"):
        check_config(config(m=hand))
    unknown = copy.deepcopy(SIMULATED)
    unknown["respondent"]["interventions"] = {"kindness": {"scale": 0.5}}
    with pytest.raises(InputError, match=r"models\.m\.respondent\.interventions\.kindness"):
        check_config(config(m=unknown))


def test_each_model_gets_an_arm_per_intervention_with_its_instruction():
    checked = check_config(
        config(
            {
                "run": ["none", "illegal", "first"],
                "instructions": SHIPPED["instructions"]
                | {"first": {"preamble": "Read the strengths first."}},
            },
            plain={"backend": "transformers", "model": "org/m"},
            recruiter={"backend": "transformers", "model": "org/m", "system_prompt": "Hire."},
            planted=SIMULATED,
        )
    )
    models = with_arms(checked)
    assert list(models)[:3] == ["plain", "recruiter", "planted"]
    assert arm_model("plain", "illegal") == "plain+illegal" in models
    assert len(models) == 3 * 3
    illegal = SHIPPED["instructions"]["illegal"]["system"]
    assert models["plain+illegal"]["system_prompt"] == illegal
    assert models["recruiter+illegal"]["system_prompt"] == f"Hire.\n{illegal}"
    assert models["recruiter+first"]["system_prompt"] == "Hire."
    assert models["recruiter+first"]["intervention"] == {
        "id": "first",
        "preamble": "Read the strengths first.",
    }
    assert "system_prompt" not in models["planted+illegal"]  # no such simulated setting
    assert models["planted+illegal"]["intervention"]["id"] == "illegal"
    assert "intervention" not in models["plain"] and checked["models"]["plain"] == models["plain"]


def test_a_preamble_opens_every_prompt_and_is_read_off_again():
    templates = {key: DEFAULT["prompts"][key] for key in DEFAULT["prompts"]}
    plain = PromptRenderer(templates)
    armed = PromptRenderer(templates, "Be fair. ")
    args = ("Mary", "John", "Mary", "Skill", "skill", "Doing it.")
    statements = ("Mary has Skill.", "")
    pairs = [
        (plain.attribute_question(*args), armed.attribute_question(*args)),
        (
            plain.q1("Mary", "John", "Mary", "", "nurse"),
            armed.q1("Mary", "John", "Mary", "", "nurse"),
        ),
        (
            plain.choice_question("q2", "Mary", "John", statements, "nurse"),
            armed.choice_question("q2", "Mary", "John", statements, "nurse"),
        ),
    ]
    for bare, with_preamble in pairs:
        assert with_preamble == f"Be fair. {bare}"
    prompts = pd.Series([armed for _, armed in pairs])
    assert list(without_preamble(prompts, "Be fair.")) == [bare for bare, _ in pairs]
    with pytest.raises(InputError, match="do not start with the intervention's preamble"):
        without_preamble(pd.Series([bare for bare, _ in pairs]), "Be fair.")


def test_a_planted_instruction_scales_the_group_effects_and_adds_its_own():
    params = respondent(
        effects={"q1": {"female": 1.0}},
        wordings={"plain": {"female": 0.4}},
        step1={"effects": {"female": 0.3}},
        interventions={"halved": {"scale": 0.5, "effects": {"male": 0.2}}},
    ).params
    female, male = {"gender": "female"}, {"gender": "male"}
    baseline, arm = Respondent(params), Respondent(params, "halved")
    assert arm.shift("q1", "nurse", "plain", female) == pytest.approx(0.5 * 1.4)
    assert arm.shift("q1", "nurse", "plain", male) == pytest.approx(0.2)
    assert baseline.shift("q1", "nurse", "plain", female) == pytest.approx(1.4)
    assert arm.shift("step1", None, "", female) == baseline.shift("step1", None, "", female)


@pytest.mark.parametrize(
    ("significant", "baseline", "base_gap", "arm", "arm_gap", "expected"),
    [
        (False, "differs", 0.4, "differs", 0.3, "no detectable change"),
        (True, "differs", 0.4, "equivalent", 0.01, "removed"),
        (True, "differs", 0.4, "differs", -0.2, "reversed"),
        (True, "differs", 0.4, "differs", 0.2, "reduced"),
        (True, "differs", 0.4, "inconclusive", 0.1, "reduced"),
        (True, "differs", -0.2, "differs", -0.5, "widened"),
        (True, "inconclusive", 0.05, "differs", 0.3, "created"),
        (True, "equivalent", 0.0, "inconclusive", 0.1, "changed"),
        (True, "confounded with position", 0.4, "differs", 0.1, "confounded"),
    ],
)
def test_what_an_instruction_did_to_the_gap(
    significant, baseline, base_gap, arm, arm_gap, expected
):
    assert outcome(significant, baseline, base_gap, arm, arm_gap) == expected


def selections(selected_female: list[int], selected_male: list[int]) -> pd.DataFrame:
    """Q1 answers in one occupation about every pair of 6 female and 6 male names, each name
    selected or not whatever its partner."""
    rows = []
    for i, f in enumerate(selected_female):
        for j, m in enumerate(selected_male):
            rows.append({"name": f"F{i}", "partner": f"M{j}", "group": "female", "selected": f})
            rows.append({"name": f"M{j}", "partner": f"F{i}", "group": "male", "selected": m})
    return pd.DataFrame(rows).assign(occupation="nurse", question="q1")


def test_paired_rate_changes_are_zero_for_the_same_answers_and_found_for_a_new_one():
    baseline = selections([1, 1, 1, 1, 0, 0], [1, 0, 0, 0, 0, 0])
    same = rate_changes.paired_rate_changes(baseline, baseline, **PAIRED)
    assert list(same.columns) == rate_changes.RATE_CHANGE_COLUMNS
    assert list(same["occupation"]) == ["nurse", "nurse", "(all)", "(all)"]
    assert (same["rate_change"] == 0).all() and (same["p_value"] == 1).all()
    # never 0 [0, 0]: at least t(5) (6 names a side) of one answer's step (1 / 36 answers)
    step = t_dist.ppf(0.975, 5) / same["n_answers"]
    assert np.allclose(same["rate_change_low"], -step)
    assert np.allclose(same["rate_change_high"], step)
    arm = selections([1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 0, 0])  # the men now as the women
    table = rate_changes.paired_rate_changes(baseline, arm, **PAIRED)
    rows = table[table["occupation"] == "nurse"].set_index("group")
    assert rows.loc["male", "rate_a"] == pytest.approx(1 / 6)
    assert rows.loc["male", "rate_b"] == pytest.approx(4 / 6)
    assert rows.loc["male", "rate_change"] == pytest.approx(0.5)
    assert rows.loc["male", "ratio_change"] == pytest.approx(1 - 0.25)
    assert rows.loc["female", "rate_change"] == 0 and rows.loc["female", "ratio_change"] == 0
    # 3 of the 6 men gained all 6 of their answers: each man's share of the change's
    # deviation is +-(1/2) x 6 / 36, clustered by man (6 / 5 of their squares' sum), and one
    # answer's step (1 / 36) in quadrature
    names, step = 6 / 5 * 6 * (0.5 / 6) ** 2, (1 / 36) ** 2
    se = np.sqrt(names + step)
    df = 5 * (1 + step / names) ** 2  # Satterthwaite's: the names' share on 5, the step exact
    low, high = rows.loc["male", ["rate_change_low", "rate_change_high"]]
    reach = t_dist.ppf(0.975, df) * se
    assert (low, high) == pytest.approx((0.5 - reach, 1.0))  # 0.5 + reach is past 1
    assert rows.loc["male", "p_value"] == pytest.approx(2 * t_dist.sf(0.5 / se, df))
    # one answer more would not be a change the test may claim
    one = selections([1, 1, 1, 1, 0, 0], [1, 0, 0, 0, 0, 0])
    one.loc[one.index[one["group"] == "male"][-1], "selected"] = 1
    single = rate_changes.paired_rate_changes(baseline, one, **PAIRED).set_index("group")
    assert single.loc["male", "rate_change"].iloc[0] == pytest.approx(1 / 36)
    assert (single.loc["male", "p_value"] > 0.3).all()
    assert (single.loc["male", "rate_change_low"] < 0).all()
    with pytest.raises(ValueError, match="different names"):
        rate_changes.paired_rate_changes(
            baseline,
            arm.replace({"name": {"M0": "M9"}, "partner": {"M0": "M9"}}),
            **PAIRED,
        )


def test_the_pooled_rows_pool_every_occupations_answers():
    nurse = selections([1, 1, 1, 1, 0, 0], [1, 0, 0, 0, 0, 0])
    pilot = nurse.assign(occupation="pilot", selected=1 - nurse["selected"])
    both = pd.concat([nurse, pilot], ignore_index=True)
    table = rate_changes.paired_rate_changes(both, both, **PAIRED)
    pooled = table[table["occupation"] == "(all)"].set_index("group")
    assert pooled.loc["female", "rate_a"] == pytest.approx(0.5)
    assert pooled.loc["female", "n_answers"] == 72
    assert np.isfinite(table["q_value"]).all()
