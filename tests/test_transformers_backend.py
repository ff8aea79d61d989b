"""The transformers backend and its choice engine on the embedded model (about 40 s)."""

import math

import pytest
import torch
import yaml

from hiremeornot.asking.backends import Request, choice_engine, gguf_cache, load_backend
from hiremeornot.asking.backends.choice_engine import ChoiceEngine, level_width
from hiremeornot.asking.backends.location import locate_model
from hiremeornot.asking.backends.transformers_backend import OutlinesChoice
from hiremeornot.config import model_settings
from hiremeornot.design.prompts import PromptRenderer
from hiremeornot.inputs.onet import extract_attributes
from tests.conftest import ONET_DIR, REPO, needs_data

pytestmark = [pytest.mark.slow, needs_data]
TEMPLATES = yaml.safe_load((REPO / "config.yaml").read_text())["prompts"]
PAIRS = [("Mary", "James"), ("Shirley", "Andrew"), ("Dorothy", "Thomas"), ("Jennifer", "Charles")]


def fixed_prompt_set() -> list[Request]:
    """Step-1, Q1, Q2 and Q3 questions of the real templates, in both name orders."""
    renderer = PromptRenderer(TEMPLATES)
    codes = ["29-1141.00", "53-2011.00"]
    attributes = extract_attributes(ONET_DIR, codes, 2, suppressed="keep")
    requests = []
    for female, male in PAIRS:
        for first, second in ((female, male), (male, female)):
            for attr in attributes.head(3).itertuples():
                prompt = renderer.attribute_question(
                    first, second, second, attr.attribute, attr.attribute_type, attr.description
                )
                requests.append(Request(prompt, ("Yes", "No")))
            statements = (renderer.statement(first, ["Speaking skill"]), "")
            requests.append(
                Request(renderer.q1(first, second, first, statements[0], "nurse"), ("Yes", "No"))
            )
            requests.append(
                Request(
                    renderer.choice_question("q2", first, second, statements, "pilot"),
                    (first, second),
                )
            )
            requests.append(
                Request(
                    renderer.choice_question("q3", first, second, statements, "pilot"),
                    (first, second, "both", "neither"),
                )
            )
    return requests


@pytest.fixture(scope="module")
def backend():
    settings = {
        "backend": "transformers",
        "model": "embedded:smollm2-135m-instruct",
        "batch_size": 8,
    }
    return load_backend("transformers", model_settings(settings))


def naive_logprob(backend, prompt, choice):
    prompt_ids = backend.prompt_ids(prompt)
    choice_ids = backend.tokenizer(choice, add_special_tokens=False)["input_ids"]
    with torch.inference_mode():
        logits = backend.model(input_ids=torch.tensor([prompt_ids + choice_ids])).logits[0]
    logprobs = torch.log_softmax(logits.float(), dim=-1)
    return sum(float(logprobs[len(prompt_ids) - 1 + j, t]) for j, t in enumerate(choice_ids))


def test_answers_stay_in_the_answer_space_with_exact_per_choice_logprobs(backend):
    prompt = "Mary and James are neighbors. Who will be a pilot?"
    requests = [
        Request(prompt, ("Mary", "James", "both", "neither")),
        Request(prompt, ("Shirley", "Andrew")),  # "Shirley" is three tokens
        Request("Is Paris in France?", ("Yes", "No")),
    ]
    for request, response in zip(requests, backend.answer(requests), strict=True):
        assert response.answer in request.choices
        expected = [naive_logprob(backend, request.prompt, c) for c in request.choices]
        assert response.logprobs == pytest.approx(expected, abs=1e-3)


def test_batched_answers_equal_one_at_a_time(backend):
    requests = fixed_prompt_set()[:10]
    batched = backend.answer(requests)
    for request, response in zip(requests, batched, strict=True):
        single = backend.answer([request])[0]
        assert single.answer == response.answer
        assert single.logprobs == pytest.approx(response.logprobs, abs=1e-3)


def test_engine_greedy_answers_equal_outlines_on_the_fixed_prompt_set(backend):
    """Half the set (two name pairs in both orders, every question kind): outlines builds its
    constraint afresh for each batch, 2 s a question on CPUs."""
    requests = fixed_prompt_set()[:24]
    named_last = {name for pair in PAIRS[:2] for name in pair}  # Q2 in both name orders
    assert {r.choices[-1] for r in requests} == {"No", "neither"} | named_last
    outlines_choice = OutlinesChoice(backend.model, backend.tokenizer)
    expected = []
    for start in range(0, len(requests), 8):
        batch = requests[start : start + 8]
        expected += outlines_choice.answer([backend.messages(r.prompt) for r in batch], batch)
    answers = []
    for start in range(0, len(requests), 8):
        answers += [r.answer for r in backend.answer(requests[start : start + 8])]
    assert answers == expected


def test_likelihood_mode_answers_the_most_likely_choice(backend):
    engine = ChoiceEngine(backend.model, backend.tokenizer, mode="likelihood")
    requests = fixed_prompt_set()[8:16]
    results = engine.answer(
        [backend.prompt_ids(r.prompt) for r in requests], [r.choices for r in requests]
    )
    for request, (answer, logprobs) in zip(requests, results, strict=True):
        assert answer == request.choices[max(range(len(logprobs)), key=logprobs.__getitem__)]


def test_the_answer_mass_is_the_probability_of_spelling_a_choice_before_the_constraint(backend):
    """Yes/No: the sum of the two choices' probabilities under the model's own distribution;
    a choice whose tokens extend another's (a name and its longer twin) is not counted twice."""
    requests = fixed_prompt_set()[:6]
    for response in backend.answer(requests):
        expected = sum(math.exp(value) for value in response.logprobs)
        assert response.answer_mass == pytest.approx(min(1.0, expected), rel=1e-6)
        assert 0 < response.answer_mass <= 1
    engine = backend.engine
    stem = engine._tokens("Ann")
    longer = next(
        "Ann" + end
        for end in (" Lee", "abel", "ette")
        if engine._tokens("Ann" + end)[: len(stem)] == stem
    )
    assert engine.answer_mass(("Ann", longer), (math.log(0.25), math.log(0.125))) == 0.25


def test_prefix_tree_handles_duplicates_and_prompts_that_prefix_others(backend):
    first = backend.prompt_ids("Mary and James are neighbors. Who will be a pilot?")
    second = backend.prompt_ids("Mary and James are neighbors. Who will be a nurse?")
    prompts = [first, first, second, first[:-4], second[:9]]
    choices = [
        ("Yes", "No"),
        ("Yes", "No"),
        ("Mary", "James", "both", "neither"),
        ("Yes", "No"),
        ("Shirley", "Andrew"),
    ]
    together = backend.engine.answer(prompts, choices)
    for prompt, space, (answer, logprobs) in zip(prompts, choices, together, strict=True):
        alone_answer, alone_logprobs = backend.engine.answer([prompt], [space])[0]
        assert answer == alone_answer
        assert logprobs == pytest.approx(alone_logprobs, abs=1e-3)


def test_a_batch_whose_long_run_is_cut_answers_as_one_at_a_time(backend, monkeypatch):
    """Eight short questions beside a long one after a shared start: the pass cuts the long
    run (padding eight rows to it costs more than a pass), and nothing changes."""
    people = [name for pair in PAIRS for name in pair]
    prompts = [backend.prompt_ids(f"Mary and James are neighbors. Is {p} a pilot?") for p in people]
    prompts.append(
        backend.prompt_ids(
            "Mary and James are neighbors. Is Peter, who has flown small planes every summer "
            "since he was a boy and has kept a logbook of every flight, a pilot?"
        )
    )
    choices = [("Yes", "No")] * len(prompts)
    widths = []

    def recorded(lengths):
        widths.append((max(lengths), level_width(lengths)))
        return widths[-1][1]

    monkeypatch.setattr(choice_engine, "level_width", recorded)
    together = backend.engine.answer(prompts, choices)
    monkeypatch.undo()
    assert any(width < longest for longest, width in widths), widths
    for prompt, space, (answer, logprobs) in zip(prompts, choices, together, strict=True):
        alone_answer, alone_logprobs = backend.engine.answer([prompt], [space])[0]
        assert answer == alone_answer
        assert logprobs == pytest.approx(alone_logprobs, abs=1e-3)


def test_the_converted_gguf_gives_the_same_tokens_and_logits(tmp_path, monkeypatch):
    """The cache of converted GGUF weights changes load time, not a single logit: the model and
    tokenizer the conversion read from the GGUF file (kept as it loads them: a second reading
    would take as long again) against those loaded from the folder it wrote."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    read = {}

    def kept(kind):
        load = kind.from_pretrained
        return lambda *args, **kwargs: read.setdefault(kind, load(*args, **kwargs))

    monkeypatch.setenv(gguf_cache.CACHE_ENV, str(tmp_path))
    folder, name = locate_model("embedded:smollm2-135m-instruct", None)
    with pytest.MonkeyPatch.context() as reading:
        for kind in (AutoModelForCausalLM, AutoTokenizer):
            reading.setattr(kind, "from_pretrained", kept(kind))
        target = gguf_cache.converted(folder, name)
    assert target.parent == tmp_path / "gguf" and (target / "model.safetensors").is_file()
    assert gguf_cache.converted(folder, name) == target  # the second load finds it
    assert [p.name for p in (tmp_path / "gguf").iterdir()] == [target.name]  # no partial left
    chat = [{"role": "user", "content": fixed_prompt_set()[0].prompt}]
    from_gguf = (read[AutoTokenizer], read[AutoModelForCausalLM])
    from_folder = (
        AutoTokenizer.from_pretrained(target),
        AutoModelForCausalLM.from_pretrained(target, dtype=torch.float32),
    )
    logits = []
    for tokenizer, model in (from_gguf, from_folder):
        ids = tokenizer.apply_chat_template(chat, add_generation_prompt=True, return_dict=False)
        with torch.inference_mode():
            logits.append((ids, model(torch.tensor([ids])).logits))
    assert logits[0][0] == logits[1][0]
    assert torch.equal(logits[0][1], logits[1][1])


def test_a_pass_cuts_a_run_far_longer_than_the_others_instead_of_padding_to_it():
    """Fifteen one-token runs beside a forty-token run: padding every row to 40 costs 640
    tokens; cutting at 1 costs 16 now and 39 in one more pass."""
    lengths = (1,) * 15 + (40,)
    assert level_width(lengths) == 1
    assert level_width((12, 12, 13)) == 13  # a pass costs more than a token of padding
    assert level_width((7,)) == 7


def test_a_free_question_gets_the_models_own_greedy_reply_read_by_the_parser(backend):
    """Free replies are the model's unconstrained greedy text (the same batched as one at a
    time, cut at the budget), read into an answer or a non-answer; constrained questions in the
    same batch are answered as before."""
    held = fixed_prompt_set()[::5]
    free = [Request(r.prompt, r.choices, None, free_tokens=24) for r in held]
    mixed = backend.answer([*free, *held])
    replies, constrained = mixed[: len(free)], mixed[len(free) :]
    assert [r.answer for r in constrained] == [r.answer for r in backend.answer(held)]
    for request, response in zip(free, replies, strict=True):
        assert response.reply and math.isnan(response.logprobs[0])
        assert response.answer in (*request.choices, "refused", "other", "unparsed")
        ids = backend.tokenizer(response.reply, add_special_tokens=False)["input_ids"]
        assert len(ids) <= 25  # the budget, give or take a token merged at the cut
    # one at a time, for one question of each kind (held's first four: Step 1, Q3, Q2, Q1)
    for request, response in zip(free[:4], replies[:4], strict=True):
        assert response.reply == backend.answer([request])[0].reply
        prompt_ids = backend.prompt_ids(request.prompt)
        with torch.inference_mode():
            alone = backend.model.generate(
                input_ids=torch.tensor([prompt_ids]), max_new_tokens=24, do_sample=False
            )
        text = backend.tokenizer.decode(alone[0, len(prompt_ids) :], skip_special_tokens=True)
        assert response.reply == text.rstrip("\ufffd").strip()
