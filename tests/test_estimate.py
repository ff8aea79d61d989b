"""The pre-run estimate: exact Step-1 counts net of the store, bracketed Steps 2 and 3."""

from __future__ import annotations

import pytest

from hiremeornot.asking.backends import Response, model_identity
from hiremeornot.asking.backends.openai.cost import cost_estimate
from hiremeornot.asking.estimate import estimate, step_requests
from hiremeornot.asking.store import ResponseStore, request_key
from hiremeornot.config import model_settings
from hiremeornot.design.contrasts import GENDER
from hiremeornot.plan import step_settings
from hiremeornot.writing.estimate import estimate_markdown
from tests.conftest import needs_data
from tests.test_steps import CONFIG, inputs  # noqa: F401 (the fixture)

pytestmark = needs_data

PRICES = {"input": 0.5, "output": 1.5}
GPT = {"backend": "openai", "model": "gpt-x", "shard_size": 2, "price_per_million_tokens": PRICES}


def by_step(model):
    config = {**CONFIG, "models": {"gpt": model_settings(model)}}
    return {s: step_settings(config, "gpt", s) for s in ["step1", "step2", "step3"]}


def gpt_estimate(inputs, store_dir):  # noqa: F811
    """The estimate of the priced API model GPT on the fixture's design."""
    return estimate(
        {"gpt": by_step(GPT)},
        inputs["instances"],
        inputs["attributes"],
        store_dir,
        ["paper"],
        sides=GENDER,
    )


def test_counts_tokens_and_costs_bracket_steps_2_and_3(inputs, tmp_path):  # noqa: F811
    table = gpt_estimate(inputs, tmp_path)
    rows = table.set_index("step")
    instances = inputs["instances"]
    # Step 1 asks each subject of a pair about each of its occupation's attributes; the
    # prompt names no occupation, so a pair's question about an attribute two occupations
    # share is asked once
    asked = instances.merge(inputs["attributes"][["soc_code", "element_id"]], on="soc_code")
    step1 = 2 * len(asked[["name1", "name2", "element_id"]].drop_duplicates())
    assert step1 < 2 * len(asked)  # the occupations share attributes: the dedup is tested
    assert list(rows["questions"]) == [
        step1,
        2 * len(instances),  # Q1 of each subject
        2 * len(instances),  # Q2 and Q3
    ]
    # the cost is the configured prices per million tokens
    cost = (rows["input_tokens_low"] * 0.5 + rows["output_tokens"] * 1.5) / 1e6
    assert rows["usd_low"].to_numpy() == pytest.approx(cost.to_numpy())
    assert rows.loc["step1", "in_store"] == 0
    assert (rows["input_tokens_low"] <= rows["input_tokens_high"]).all()
    assert (
        rows.loc[["step2", "step3"], "input_tokens_low"]
        < rows.loc[["step2", "step3"], "input_tokens_high"]
    ).all()
    step2 = step_requests("step2", by_step(GPT)["step2"], inputs, "yes", ["paper"], sides=GENDER)
    assert rows.loc["step2", "usd_high"] == pytest.approx(cost_estimate(step2, GPT).usd)
    assert all(" has " in r.prompt for r in step2)  # every attribute granted
    assert "- gpt: about $" in estimate_markdown(table)


def test_step1_questions_already_stored_are_not_counted_again(inputs, tmp_path):  # noqa: F811
    settings = by_step(GPT)["step1"]
    requests = step_requests("step1", settings, inputs, "no", ["paper"], sides=GENDER)
    store = ResponseStore.open(tmp_path, "gpt")
    identity = model_identity(settings["model"])
    store.put((request_key(identity, r), r, Response("No", (-1.0, -0.5))) for r in requests[:5])
    store.close()
    table = gpt_estimate(inputs, tmp_path)
    step1 = table.set_index("step").loc["step1"]
    assert step1["in_store"] == 5
    missing = cost_estimate(requests[5:], settings["model"])
    assert step1["input_tokens_low"] == missing.input_tokens and step1["usd_low"] == pytest.approx(
        missing.usd
    )


def test_tokens_for_an_api_without_prices_and_counts_only_for_a_local_model(inputs, tmp_path):  # noqa: F811
    api = {"backend": "openai", "model": "gpt-x", "shard_size": 0}
    local = {"backend": "transformers", "model": "x/y", "shard_size": 0}
    settings = {"api": by_step(api), "local": by_step(local)}
    table = estimate(
        settings, inputs["instances"], inputs["attributes"], tmp_path, ["paper"], sides=GENDER
    )
    api_rows, local_rows = (table[table["model"] == m] for m in ["api", "local"])
    assert api_rows["usd_high"].isna().all() and (api_rows["input_tokens_high"] > 0).all()
    assert local_rows["input_tokens_high"].isna().all()
    assert list(local_rows["questions"]) == list(api_rows["questions"])
    text = estimate_markdown(table)
    assert "- api: no prices configured" in text and "- local" not in text


def test_a_step_asked_free_is_priced_at_its_budget_and_its_own_store_keys(inputs, tmp_path):  # noqa: F811
    free = {**GPT, "answers_mode": {"step1": "free", "step3": "free"}, "free_max_tokens": 100}
    settings = by_step(free)
    requests = step_requests("step1", settings["step1"], inputs, "no", ["paper"], sides=GENDER)
    store = ResponseStore.open(tmp_path, "gpt")
    identity = model_identity(settings["step1"]["model"])
    held = [request_key(identity, r) for r in requests[:5]]  # stored constrained only
    store.put(
        (key, r, Response("No", (-1.0, -0.5))) for key, r in zip(held, requests, strict=False)
    )
    store.close()
    table = estimate(
        {"gpt": settings},
        inputs["instances"],
        inputs["attributes"],
        tmp_path,
        ["paper"],
        sides=GENDER,
    ).set_index("step")
    constrained = gpt_estimate(inputs, tmp_path).set_index("step")
    assert table.loc["step1", "in_store"] == 0  # a free question is not its constrained twin
    assert table.loc["step1", "output_tokens"] == 100 * len(requests)
    assert table.loc["step3", "output_tokens"] == 100 * table.loc["step3", "questions"]
    assert table.loc["step2", "output_tokens"] == constrained.loc["step2", "output_tokens"]


def test_a_free_classifier_is_priced_at_a_question_per_free_reply(inputs, tmp_path):  # noqa: F811
    reader = {"backend": "openai", "model": "gpt-reader", "price_per_million_tokens": PRICES}
    free = {**GPT, "answers_mode": {"step3": "free"}, "free_classifier": reader}
    table = estimate(
        {"gpt": by_step(free)},
        inputs["instances"],
        inputs["attributes"],
        tmp_path,
        ["paper"],
        sides=GENDER,
    )
    read = table[table["model"] == "gpt+classifier"].set_index("step")
    audited = table[table["model"] == "gpt"].set_index("step")
    assert list(read.index) == ["step3"]  # the only step asked free
    assert read.loc["step3", "questions"] == audited.loc["step3", "questions"]
    # each question quotes the question and a reply at the whole budget (64 tokens)
    assert read.loc["step3", "input_tokens_low"] > audited.loc["step3", "input_tokens_low"] + (
        64 * read.loc["step3", "questions"]
    )
    assert read.loc["step3", "usd_high"] > 0
    text = estimate_markdown(table)
    assert "- gpt+classifier: about $" in text and "`<model>+classifier` row" in text
