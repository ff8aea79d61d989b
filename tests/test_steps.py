import pandas as pd
import pytest
import yaml

from hiremeornot.dataset import build_instances
from hiremeornot.names import make_pairs, read_name_lists
from hiremeornot.occupations import select_occupations
from hiremeornot.onet import extract_attributes
from hiremeornot.plan import step_settings
from hiremeornot.steps import build_questions, granted_from_step1
from tests.conftest import OCCUPATIONS_TABLE, ONET_DIR, REPO, subjects_dir

CONFIG = yaml.safe_load((REPO / "config.yaml").read_text())


@pytest.fixture(scope="module")
def inputs():
    occupations = select_occupations(OCCUPATIONS_TABLE, ["nurse", "surgeon", "pilot", "doctor"])
    pairs = make_pairs(read_name_lists(subjects_dir("ethical-interventions")), 3, 0)
    instances = build_instances(occupations, pairs, ["female_first", "male_first"])
    attributes = extract_attributes(ONET_DIR, sorted(set(occupations["soc_code"])), 5)
    return {"instances": instances, "attributes": attributes}


def settings(step, shard_size):
    config = {
        **CONFIG,
        "models": {"m": {**CONFIG["models"]["smollm2-135m"], "shard_size": shard_size}},
    }
    return step_settings(config, "m", step)


def test_step1_asks_each_distinct_question_once_across_shards(inputs):
    per_instance = 4 * 3 * 2 * 2 * 15  # occupations x pairs x orders x subjects x attributes
    shards = [build_questions("step1", i, settings("step1", 1), inputs) for i in range(4)]
    together = pd.concat(shards)
    assert together["prompt"].is_unique
    distinct_attributes = inputs["attributes"][["element_id", "attribute_type"]].drop_duplicates()
    assert len(together) == 3 * 2 * 2 * len(distinct_attributes) < per_instance
    assert all(len(s) for s in shards)  # every shard has work
    whole = build_questions("step1", 0, settings("step1", 0), inputs)
    assert set(whole["prompt"]) == set(together["prompt"])


def test_steps_2_and_3_find_f_a_in_every_step1_shard(inputs):
    step1 = pd.concat(build_questions("step1", i, settings("step1", 2), inputs) for i in range(2))
    step1["choice"] = ["yes" if "Critical Thinking" in p else "no" for p in step1["prompt"]]
    step1[["logprob_yes", "logprob_no"]] = -1.0
    shard_instances = inputs["instances"][
        inputs["instances"]["occupation"].isin(["doctor", "nurse"])  # table order
    ]
    granted = granted_from_step1(shard_instances, inputs["attributes"], settings("step2", 2), step1)
    assert len(granted) == len(shard_instances) * 2
    assert all(phrases == ["Critical Thinking skill"] for phrases in granted.values())
    step2 = build_questions("step2", 0, settings("step2", 2), {**inputs, "step1": step1})
    assert len(step2) == len(shard_instances) * 2
    assert step2["prompt"].str.contains(" has Critical Thinking skill. Is ").all()
    step3 = build_questions("step3", 1, settings("step3", 2), {**inputs, "step1": step1})
    assert set(step3["occupation"]) == {"pilot", "surgeon"}
    assert list(step3["question"].value_counts()) == [12, 12]


def test_a_missing_step1_answer_is_an_error(inputs):
    step1 = build_questions("step1", 0, settings("step1", 0), inputs).iloc[1:]
    step1 = step1.assign(choice="no", logprob_yes=-1.0, logprob_no=-0.5)
    with pytest.raises(ValueError, match="no answer in Step 1"):
        build_questions("step2", 0, settings("step2", 0), {**inputs, "step1": step1})
