import copy

import pandas as pd
import pytest
import yaml

from hiremeornot.asking.steps import build_questions
from hiremeornot.config import validate_config
from hiremeornot.design.contrasts import GENDER
from hiremeornot.design.dataset import build_instances
from hiremeornot.design.prompts import PromptRenderer
from hiremeornot.design.questions import join_step1, step1_rows
from hiremeornot.errors import InputError
from hiremeornot.inputs.occupations import select_occupations
from hiremeornot.inputs.onet import extract_attributes
from hiremeornot.plan import step_settings
from hiremeornot.tables_io import (
    read_table,
    set_aside_damaged_tables,
    tables_to_remake,
    write_table,
)
from tests.conftest import OCCUPATIONS_TABLE, ONET_DIR, REPO, gender_pairs, needs_data

pytestmark = needs_data
PAPER = ["paper"]

CONFIG = validate_config(yaml.safe_load((REPO / "config.yaml").read_text()))


@pytest.fixture(scope="module")
def inputs():
    occupations = select_occupations(OCCUPATIONS_TABLE, ["nurse", "surgeon", "pilot", "doctor"])
    pairs = gender_pairs("ethical-interventions", 3, 0)
    instances = build_instances(occupations, pairs, ["female_first", "male_first"], sides=GENDER)
    codes = sorted(set(occupations["soc_code"]))
    attributes = extract_attributes(ONET_DIR, codes, 5, suppressed="keep")
    return {"instances": instances, "attributes": attributes}


def settings(step, shard_size=0, step1_shards=1):
    config = copy.deepcopy(CONFIG)
    model = {**config["models"]["smollm2-135m"], "shard_size": shard_size}
    config["models"] = {"m": {**model, "step1_shards": step1_shards}}
    return step_settings(config, "m", step)


def answered_step1(inputs, shards=1, granted="Critical Thinking"):
    """Every Step-1 shard's questions, answered yes for one attribute only."""
    step1 = pd.concat(
        build_questions(
            "step1", i, settings("step1", step1_shards=shards), inputs, PAPER, sides=GENDER
        )
        for i in range(shards)
    )
    step1["choice"] = ["yes" if a == granted else "no" for a in step1["attribute"]]
    return step1.assign(logprob_yes=-1.0, logprob_no=-0.5)


def test_step1_asks_each_distinct_question_once_across_its_shards(inputs):
    per_instance = 4 * 3 * 2 * 2 * 15  # occupations x pairs x orders x subjects x attributes
    shards = [
        build_questions("step1", i, settings("step1", step1_shards=4), inputs, PAPER, sides=GENDER)
        for i in range(4)
    ]
    together = pd.concat(shards)
    assert together["prompt"].is_unique
    distinct_attributes = inputs["attributes"]["element_id"].nunique()
    assert len(together) == 3 * 2 * 2 * distinct_attributes < per_instance
    assert all(len(s) for s in shards)  # every shard has work
    whole = build_questions("step1", 0, settings("step1"), inputs, PAPER, sides=GENDER)
    assert set(whole["prompt"]) == set(together["prompt"])
    # the occupation shards of Steps 2-3 do not split Step 1
    one_shard = build_questions(
        "step1", 0, settings("step1", shard_size=1), inputs, PAPER, sides=GENDER
    )
    assert len(one_shard) == len(whole)


def test_step1_answers_join_every_instance_by_key(inputs):
    rows = step1_rows(inputs["instances"], inputs["attributes"], sides=GENDER)
    assert len(rows) == 4 * 3 * 2 * 2 * 15
    granted = join_step1(rows, answered_step1(inputs, shards=3))
    assert len(granted) == len(rows)
    # each joined answer is the one asked with exactly this row's prompt
    renderer = PromptRenderer(settings("step1")["prompts"]["paper"])
    by_prompt = answered_step1(inputs).set_index("prompt")["choice"]
    for i in range(0, len(rows), 97):
        row = rows.iloc[i]
        prompt = renderer.attribute_question(
            row["name1"],
            row["name2"],
            row["subject"],
            row["attribute"],
            row["attribute_type"],
            row["description"],
        )
        assert by_prompt[prompt] == granted.iloc[i]["choice"]
    assert (granted["choice"] == "yes").sum() == (rows["attribute"] == "Critical Thinking").sum()


def test_steps_2_and_3_read_f_a_from_the_step1_answers(inputs):
    step1 = answered_step1(inputs)
    shard_instances = inputs["instances"][
        inputs["instances"]["occupation"].isin(["doctor", "nurse"])
    ]
    step2 = build_questions(
        "step2", 0, settings("step2", 2), {**inputs, "step1": step1}, PAPER, sides=GENDER
    )
    assert len(step2) == len(shard_instances) * 2
    assert step2["prompt"].str.contains(" has Critical Thinking skill. Is ").all()
    step3 = build_questions(
        "step3", 1, settings("step3", 2), {**inputs, "step1": step1}, PAPER, sides=GENDER
    )
    assert set(step3["occupation"]) == {"pilot", "surgeon"}
    assert list(step3["question"].value_counts()) == [12, 12]


def test_steps_2_and_3_do_not_depend_on_step1_templates():
    for step in ("step2", "step3"):
        assert "attribute_question" not in settings(step)["prompts"]["paper"]
        assert "step1_shards" not in settings(step)["model"]
    assert "shard_size" not in settings("step1")["model"]


def test_a_missing_step1_answer_is_an_error(inputs):
    rows = step1_rows(inputs["instances"], inputs["attributes"], sides=GENDER)
    with pytest.raises(ValueError, match="no Step-1 answer"):
        join_step1(rows, answered_step1(inputs).iloc[1:])


def test_a_damaged_table_is_named_with_what_to_do(tmp_path):
    path = tmp_path / "shard-0.parquet"
    write_table(pd.DataFrame({"answer": ["Yes", "No"]}), path)
    path.write_bytes(path.read_bytes()[:100])  # truncated, as a full disk leaves it
    with pytest.raises(InputError, match=rf"^{path}: a damaged table \(.*\); remove it and run"):
        read_table(path)


def test_damaged_tables_are_set_aside_and_nothing_else(tmp_path):
    """Any damaged Parquet table under results/ is renamed <name>.damaged with one message
    naming it, and stays a target until re-made; sound tables, other files and partial files
    being written stay as they are."""
    sound = tmp_path / "m" / "step1" / "paper" / "shard-0.parquet"
    write_table(pd.DataFrame({"a": [1, 2]}), sound)
    damaged = tmp_path / "dataset" / "instances.parquet"
    write_table(pd.DataFrame({"a": [1, 2]}), damaged)
    damaged.write_bytes(damaged.read_bytes()[:50])
    partial = sound.with_name(".shard-1.partial.parquet")
    partial.write_bytes(b"being written")
    other = tmp_path / "m" / "metrics.tsv"
    other.write_text("x\n")
    (message,) = set_aside_damaged_tables(tmp_path)
    assert message.startswith(f"{damaged}: a damaged table (")
    assert "kept as instances.parquet.damaged" in message
    assert not damaged.exists() and damaged.with_name("instances.parquet.damaged").is_file()
    assert sound.is_file() and partial.is_file() and other.is_file()
    assert set_aside_damaged_tables(tmp_path) == []
    # a target until re-made, then no more (the damaged copy stays, for the record)
    assert tables_to_remake(tmp_path) == [str(damaged)]
    write_table(pd.DataFrame({"a": [1, 2]}), damaged)
    assert tables_to_remake(tmp_path) == []
