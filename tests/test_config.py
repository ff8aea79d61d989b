import copy
import dataclasses
import hashlib
import importlib.resources
import json
from dataclasses import replace

import pytest
import yaml

from hiremeornot import checks, plan
from hiremeornot.asking import backends
from hiremeornot.asking.backends import ASKED_PER_REQUEST, READ_BY_ANOTHER_MODEL, model_identity
from hiremeornot.asking.backends.base import CONSTRAINED_ONLY, BackendSettings, Request
from hiremeornot.asking.backends.extractive_qa import ExtractiveQASettings
from hiremeornot.asking.backends.openai import OpenAISettings
from hiremeornot.asking.backends.providers import ProviderSettings
from hiremeornot.asking.backends.simulated import SimulatedSettings
from hiremeornot.asking.backends.transformers_backend import TransformersSettings
from hiremeornot.asking.backends.vllm_backend import VLLMSettings
from hiremeornot.asking.steps import free_tokens
from hiremeornot.asking.store import request_key
from hiremeornot.checks import check_config
from hiremeornot.config import (
    ROLES,
    load_config,
    model_keys,
    model_roles,
    model_settings,
    models_merged_in,
    schema,
    validate_config,
)
from hiremeornot.errors import InputError
from hiremeornot.plan import conda_env, step_settings
from tests.conftest import REPO, SHARED_DATA, needs_data

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
    assert filled["names"]["orders"] == ["a_first", "b_first"]
    assert filled["names"]["contrast"] == "gender"
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
        # answer words: blank, or with white space around them (" Yes " is not "Yes")
        ({"answers": {"yes": " Yes "}}, r"'answers.yes': ' Yes ' is blank or starts or ends"),
        ({"answers": {"neither": " "}}, r"'answers.neither': ' ' is blank"),
        ({"names": {"validity": {"male": "male "}}}, r"'names.validity.male': 'male ' is"),
        ({"control": {"labels": ["", "B"]}}, r"'control.labels.0': '' is blank"),
    ],
)
def test_bad_keys_and_values_are_named(change, message):
    with pytest.raises(InputError, match=message):
        validate_config(config(**change))


@needs_data
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
    with pytest.raises(InputError, match=r"names.orders: \['a_first', 'female_first'\] lists one"):
        check_config(config(names={**DEFAULT["names"], "orders": ["a_first", "female_first"]}))
    sources = copy.deepcopy(DEFAULT["sources"])
    sources["onet"]["release"] = "db_28_0_text"  # not in the local data: the old results stood
    with pytest.raises(InputError, match=r"sources.onet.release: 'db_28_0_text' is not in local"):
        check_config(config(local_data=str(SHARED_DATA), sources=sources))
    with pytest.raises(InputError, match=r"control.labels: 'mary' is the name 'Mary' of names"):
        control = {"neutral": True, "labels": ["Person A", "mary"]}
        check_config(config(local_data=str(SHARED_DATA), control=control))
    for labels, group in ((["female", "male"], "female"), (["Person A", "MALE"], "MALE")):
        with pytest.raises(InputError, match=rf"control.labels: '{group}' is the group"):
            check_config(config(control={"neutral": True, "labels": labels}))


def test_step_settings_hold_only_what_each_step_uses():
    loaded = load_config(REPO / "config.yaml")
    assert set(step_settings(loaded, "smollm2-135m", "step1")["prompts"]["paper"]) == {
        "context",
        "attribute_question",
    }
    assert "q1" not in step_settings(loaded, "smollm2-135m", "step3")["prompts"]["paper"]


def test_backend_specific_keys_and_defaults_are_filled_per_backend():
    models = {
        backend: {"backend": backend, "model": "x/y"}
        for backend in ["transformers", "openai", "vllm", "extractive_qa", "provider"]
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
    assert filled["provider"]["constraint"] == "json_schema" and "mode" not in filled["provider"]


@needs_data
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


# The schema: one source of every default, and of what each model setting does.

BACKENDS = list(backends.BACKENDS)
TYPED_SETTINGS = {
    "transformers": TransformersSettings,
    "openai": OpenAISettings,
    "vllm": VLLMSettings,
    "extractive_qa": ExtractiveQASettings,
    "simulated": SimulatedSettings,
    "provider": ProviderSettings,
}


def test_every_backend_is_registered_once_and_the_schema_lists_the_registry():
    backend = schema()["properties"]["models"]["additionalProperties"]["properties"]["backend"]
    assert backend["enum"] == BACKENDS
    assert set(TYPED_SETTINGS) == set(BACKENDS)
    for name in BACKENDS:
        assert (REPO / "envs" / f"{backends.environment(name)}.yaml").is_file(), name
    assert backends.environment("simulated") == "core"
    assert backends.environment("extractive_qa") == "transformers"


def test_the_schema_is_package_data_and_the_workflow_links_to_it():
    packaged = importlib.resources.files("hiremeornot").joinpath("config.schema.yaml")
    link = REPO / "workflow" / "schemas" / "config.schema.yaml"
    assert link.is_symlink() and not link.readlink().is_absolute()
    assert link.resolve() == REPO / "src" / "hiremeornot" / "config.schema.yaml"
    assert yaml.safe_load(packaged.read_text()) == yaml.safe_load(link.read_text()) == schema()


def test_every_model_key_is_marked_with_its_role_once():
    model = schema()["properties"]["models"]["additionalProperties"]
    for key, spec in model["properties"].items():
        assert spec.get("x-role") in ROLES, f"models.<name>.{key} needs an x-role in {ROLES}"
    text = (REPO / "src" / "hiremeornot" / "config.schema.yaml").read_text()
    assert text.count("x-role:") == len(model["properties"])  # nowhere else, never twice
    assert model_roles() == {key: spec["x-role"] for key, spec in model["properties"].items()}
    assert set().union(*(model_keys(role) for role in ROLES)) == set(model["properties"])


def test_job_resources_are_the_keys_marked_resource():
    assert model_keys("resource") == {"threads", "mem_mb", "runtime", "gpus", "gpu_model"}
    assert model_keys("report") == {"distribution_date"}
    assert model_keys("resource") | model_keys("report") == plan.NOT_READ_BY_MODEL_JOBS
    assert {"device", "batch_size", "shard_size", "mode", "max_cost_usd"} <= model_keys("runtime")
    assert {"model", "dtype", "system_prompt", "temperature", "top_logprobs"} <= model_keys(
        "answers"
    )
    with pytest.raises(ValueError, match="unknown role"):
        model_keys("speed")


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_store_key_holds_the_settings_marked_answers_and_only_them(backend):
    settings = model_settings({"backend": backend, "model": "org/model"})
    identity = model_identity(settings)
    answers = {k for k in settings if model_roles()[k] == "answers"}
    apart = ASKED_PER_REQUEST | READ_BY_ANOTHER_MODEL
    assert set(identity) == answers - apart
    for key in settings:
        changed = {**settings, key: "changed"}
        in_key = model_roles()[key] == "answers" and key not in apart
        assert (model_identity(changed) != identity) == in_key, key
    assert model_identity({**settings, "state_dir": "x"}) == identity  # no config key


def test_how_a_step_is_asked_is_in_its_requests_key_and_leaves_constrained_keys_alone():
    settings = model_settings({"backend": "simulated", "model": "sim"})
    identity = model_identity(settings)
    asked = Request("Is Mary qualified?", ("Yes", "No"))
    free = Request("Is Mary qualified?", ("Yes", "No"), free_tokens=64)
    assert request_key(identity, asked) != request_key(identity, free)
    assert request_key(identity, free) != request_key(identity, replace(free, free_tokens=32))
    # the key of a constrained question is the one it had before free questions existed
    before = json.dumps(
        {"model": identity, "prompt": asked.prompt, "choices": list(asked.choices)},
        sort_keys=True,
        ensure_ascii=False,
    )
    assert request_key(identity, asked) == hashlib.sha256(before.encode()).hexdigest()
    per_step = {**settings, "answers_mode": {"step3": "free"}, "free_max_tokens": 20}
    assert [free_tokens(per_step, step) for step in ("step1", "step2", "step3")] == [None, None, 20]
    assert free_tokens({**settings, "answers_mode": "free"}, "step1") == 64


@pytest.mark.parametrize("step", ["step1", "step2", "step3"])
def test_a_step_job_depends_on_every_setting_but_its_resources_and_report_keys(step):
    models = {b: {"backend": b, "model": "org/model"} for b in BACKENDS}
    loaded = validate_config(config(models=models))
    unread = model_keys("resource") | model_keys("report")
    for name, settings in loaded["models"].items():
        job = step_settings(loaded, name, step)["model"]
        assert not set(job) & unread
        answers = {k for k in settings if model_roles()[k] == "answers"}
        assert answers - {"free_classifier"} <= set(job)  # it reads no constrained step
        assert {k for k in settings if k not in unread} - set(job) <= {
            "shard_size",
            "step1_shards",
            "free_classifier",
        }  # how the other steps are split


@pytest.mark.parametrize("backend", BACKENDS)
def test_each_backend_reads_only_schema_keys_all_filled_for_it(backend):
    cls = TYPED_SETTINGS[backend]
    assert issubclass(cls, BackendSettings) and cls.__dataclass_params__.frozen
    fields = dataclasses.fields(cls)
    assert all(field.default is dataclasses.MISSING for field in fields)  # no defaults of its own
    assert {field.name for field in fields} <= set(model_roles())
    typed = cls.from_config(model_settings({"backend": backend, "model": "org/model"}))
    assert typed.model == "org/model"


def test_the_schemas_defaults_reach_the_backends():
    transformers = TransformersSettings.from_config(
        model_settings({"backend": "transformers", "model": "x/y"})
    )
    assert (transformers.batch_size, transformers.dtype, transformers.device) == (
        32,
        "float32",
        "cpu",
    )
    vllm = VLLMSettings.from_config(model_settings({"backend": "vllm", "model": "x/y"}))
    assert (vllm.batch_size, vllm.dtype, vllm.top_logprobs) == (512, "auto", 20)


def test_typed_settings_refuse_settings_the_schema_did_not_fill():
    with pytest.raises(TypeError, match=r"lack \['gguf_file', 'dtype'.*model_settings"):
        TransformersSettings.from_config({"backend": "transformers", "model": "x/y"})


def test_one_models_settings_are_validated_and_filled_without_a_config():
    partial = {"backend": "openai", "model": "gpt-x", "temperature": 0.5}
    filled = model_settings(partial)
    assert partial == {"backend": "openai", "model": "gpt-x", "temperature": 0.5}  # a copy
    assert (filled["temperature"], filled["constraint"], filled["gpus"]) == (0.5, "json_schema", 0)
    assert "dtype" not in filled  # not an openai key
    with pytest.raises(InputError, match=r"model settings: invalid value at 'temperature'"):
        model_settings({**partial, "temperature": -1})
    with pytest.raises(InputError, match=r"'model' is a required property"):
        model_settings({"backend": "vllm"})


def test_a_key_twice_in_a_config_file_is_refused_with_its_lines(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("names:\n  pairs: 3\nreport:\n  seed: 1\nnames:\n  pairs: 5\n")
    expected = rf"^{path}:5: the key 'names' is given twice \(lines 1 and 5\)"
    with pytest.raises(InputError, match=expected):
        load_config(path)
    with pytest.raises(InputError, match=expected):
        checks.check_config_files([path], [])
    path.write_text("models:\n  m: {backend: simulated, model: a, model: b}\n")  # nested too
    with pytest.raises(InputError, match=r":2: the key 'model' is given twice"):
        checks.check_config_files([path], [])


def test_repeated_config_flags_are_warned_about(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("names:\n  pairs: 3\n")
    assert checks.check_config_files([path], ["--config", "a=1", "b=2"]) == []
    (warning,) = checks.check_config_files([path], ["--config", "a=1", "-C", "b=2"])
    assert warning.startswith("--config is given 2 times: Snakemake keeps only the last")


@needs_data
def test_a_local_name_lists_faults_are_named_before_any_job(tmp_path):
    """With local_data the name files are at hand: a file that is not UTF-8, or a name that
    reads as an answer word, is named at the DAG, not inside the dataset job."""
    for source in ("onet", "fivethirtyeight"):
        (tmp_path / source).symlink_to(SHARED_DATA / source)
    folder = tmp_path / "mine" / "word_lists" / "nouns" / "subjects"
    folder.mkdir(parents=True)
    (folder / "male").write_text("[subj] male | John\n")
    (folder / "female").write_bytes("[subj] female | Ren\u00e9e\n".encode("latin-1"))
    sources = {"names": {"mine": {"format": "unqover", "folder": "mine", "url": "-"}}}
    local = {"local_data": str(tmp_path), "sources": sources, "names": {"list": "mine"}}
    with pytest.raises(InputError, match=rf"^{folder}/female:1: not UTF-8 \(byte 0xe9"):
        check_config(config(**local))
    (folder / "female").write_text("[subj] female | Mary\n[subj] female | Both\n")
    with pytest.raises(InputError, match=rf"^{folder}/female:2: the name 'Both' reads as answers"):
        check_config(config(**local))
    (folder / "female").write_text("[subj] female | Mary\n")
    check_config(config(**local))


def test_models_merged_in_from_the_workflows_config_are_named_in_one_warning(tmp_path):
    mine = tmp_path / "mine.yaml"
    mine.write_text("models:\n  gpt:\n    backend: simulated\n    model: planted\n")
    warning = models_merged_in({"gpt": {}, "smollm2-135m": {}}, [mine])
    assert warning.startswith(f"the run also audits smollm2-135m, which {mine} does not list")
    assert "--replace-workflow-config" in warning
    assert models_merged_in({"gpt": {}}, [mine]) is None
    no_models = tmp_path / "settings.yaml"
    no_models.write_text("names:\n  pairs: 4\n")  # a file that lists no models adds none
    assert models_merged_in({"smollm2-135m": {}}, [no_models]) is None
    assert models_merged_in({"smollm2-135m": {}}, []) is None


@pytest.mark.parametrize("backend", ["transformers", "openai", "vllm", "provider"])
def test_a_setting_only_a_constrained_question_reads_asks_no_free_question_again(backend):
    """Each of CONSTRAINED_ONLY changes a constrained question's key and leaves a free one's."""
    settings = model_settings({"backend": backend, "model": "org/model"})
    asked = Request("Is Mary qualified?", ("Yes", "No"))
    free = replace(asked, free_tokens=64)
    own = [key for key in CONSTRAINED_ONLY if key in settings]
    assert own  # every backend here has one
    for key in own:
        edited = model_identity({**settings, key: "changed"})
        assert request_key(edited, asked) != request_key(model_identity(settings), asked), key
        assert request_key(edited, free) == request_key(model_identity(settings), free), key
    assert model_keys("answers") >= CONSTRAINED_ONLY
