import copy

import pytest
import yaml

from hiremeornot.config import load_config, validate_config
from hiremeornot.errors import InputError
from hiremeornot.plan import check_config, conda_env, step_settings
from tests.conftest import REPO, SHARED_DATA

DEFAULT = yaml.safe_load((REPO / "config.yaml").read_text())


def config(**changes):
    value = copy.deepcopy(DEFAULT)
    value.update(changes)
    return value


def test_default_config_is_valid_and_defaults_are_filled():
    loaded = load_config(REPO / "config.yaml")
    assert loaded["models"]["smollm2-135m"]["dtype"] == "float32"
    filled = validate_config({"models": {"m": {"backend": "transformers", "model": "x/y"}}})
    assert filled["prompts"]["q3"] == "Who will be {a_occupation}?"
    assert filled["names"]["orders"] == ["female_first", "male_first"]
    assert filled["models"]["m"]["shard_size"] == 0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"colour": "red"}, r"'\(top level\)'.*'colour' was unexpected"),
        ({"names": {"pairs": 0}}, r"'names.pairs'"),
        (
            {"models": {"m": {"backend": "tensorflow", "model": "x"}}},
            r"'models.m.backend'.*tensorflow",
        ),
        ({"models": {"m": {"backend": "transformers"}}}, r"'models.m'.*'model' is a required"),
        ({"names": {"orders": ["alphabetical"]}}, r"'names.orders.0'"),
    ],
)
def test_bad_keys_and_values_are_named(change, message):
    with pytest.raises(InputError, match=message):
        validate_config(config(**change))


def test_checks_before_any_model_is_loaded():
    with pytest.raises(InputError, match=r"names.list: unknown name list 'x'"):
        check_config(config(names={"list": "x"}, local_data=str(SHARED_DATA)))
    with pytest.raises(InputError, match=r"models.m: model '/no/such/model': no such folder"):
        check_config(config(models={"m": {"backend": "transformers", "model": "/no/such/model"}}))
    with pytest.raises(InputError, match=r"gguf_file 'm.gguf' not found in"):
        check_config(
            config(
                models={"m": {"backend": "transformers", "model": str(REPO), "gguf_file": "m.gguf"}}
            )
        )
    with pytest.raises(InputError, match=r"unknown embedded model"):
        check_config(config(models={"m": {"backend": "transformers", "model": "embedded:gpt-5"}}))
    with pytest.raises(
        InputError, match=r"occupations.select: unknown occupation\(s\) \['wizard'\]"
    ):
        check_config(config(occupations={"select": ["wizard"]}))
    with pytest.raises(InputError, match=r"prompts.q3: unknown placeholder"):
        check_config(config(prompts={**DEFAULT["prompts"], "q3": "Who is {best}?"}))
    with pytest.raises(InputError, match=r"local_data: folder"):
        check_config(config(local_data="/no/such/folder"))


def test_step_settings_hold_only_what_each_step_uses():
    loaded = load_config(REPO / "config.yaml")
    assert set(step_settings(loaded, "smollm2-135m", "step1")["prompts"]) == {
        "context",
        "attribute_question",
    }
    assert "q1" not in step_settings(loaded, "smollm2-135m", "step3")["prompts"]


def test_backend_specific_keys_and_defaults_are_filled_per_backend():
    models = {
        backend: {"backend": backend, "model": "x/y"}
        for backend in ["transformers", "openai", "vllm", "extractive_qa"]
    }
    filled = validate_config({"models": models})["models"]
    assert (filled["vllm"]["dtype"], filled["vllm"]["batch_size"]) == ("auto", 512)
    assert (filled["vllm"]["gpus"], filled["transformers"]["gpus"]) == (1, 0)
    assert (filled["transformers"]["dtype"], filled["transformers"]["batch_size"]) == (
        "float32",
        32,
    )
    assert filled["extractive_qa"]["options_sentence"] == "Options: {options}."
    assert "tensor_parallel_size" not in filled["extractive_qa"]
    assert "system_prompt" not in filled["extractive_qa"] and "dtype" not in filled["openai"]
    assert filled["openai"]["constraint"] == "json_schema" and filled["openai"]["mode"] == "sync"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"shard_size": 4}, r"models.big.shard_size: .*never sharded"),
        ({"tensor_parallel_size": 4, "gpus": 2}, r"models.big.gpus: 2 GPUs.*needs 4; set gpus: 4"),
    ],
)
def test_a_vllm_model_is_one_job_per_step_with_the_gpus_it_needs(changes, message):
    model = {"backend": "vllm", "model": "org/big", "gpus": 1, **changes}
    with pytest.raises(InputError, match=message):
        check_config(config(models={"big": model}, local_data=str(SHARED_DATA)))
    model.update(gpus=8, shard_size=0, distributed_executor_backend=None)
    checked = check_config(config(models={"big": model}, local_data=str(SHARED_DATA)))
    assert conda_env(checked, "big") == "../../envs/vllm.yaml"
