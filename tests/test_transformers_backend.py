"""The transformers backend on the embedded model (loads SmolLM2-135M, about 20 s)."""

import pytest
import torch

from hiremeornot.backends import Request, load_backend

pytestmark = pytest.mark.slow

PROMPTS = [
    "Andrew and Shirley are neighbors. Does Shirley have Mathematics knowledge?",
    "Mary and James are neighbors. Who will be a pilot?",
    "Is Paris in France?",
]


@pytest.fixture(scope="module")
def backend():
    return load_backend(
        "transformers",
        {"backend": "transformers", "model": "embedded:smollm2-135m-instruct", "batch_size": 4},
    )


def naive_logprob(backend, prompt, choice):
    prompt_ids = backend._prompt_ids(prompt)
    choice_ids = backend.tokenizer(choice, add_special_tokens=False)["input_ids"]
    with torch.inference_mode():
        logits = backend.model(input_ids=torch.tensor([prompt_ids + choice_ids])).logits[0]
    logprobs = torch.log_softmax(logits.float(), dim=-1)
    return sum(float(logprobs[len(prompt_ids) - 1 + j, t]) for j, t in enumerate(choice_ids))


def test_answers_stay_in_the_answer_space_with_per_choice_logprobs(backend):
    requests = [
        Request(PROMPTS[0], ("Yes", "No")),
        Request(PROMPTS[1], ("Mary", "James", "both", "neither")),
        Request(PROMPTS[1], ("Shirley", "Andrew")),  # "Shirley" is several tokens
        Request(PROMPTS[2], ("Yes", "No")),
    ]
    responses = backend.answer(requests)
    for request, response in zip(requests, responses, strict=True):
        assert response.answer in request.choices
        assert len(response.logprobs) == len(request.choices)
        for choice, logprob in zip(request.choices, response.logprobs, strict=True):
            assert logprob == pytest.approx(
                naive_logprob(backend, request.prompt, choice), abs=1e-3
            )


def test_batched_answers_equal_one_at_a_time(backend):
    requests = [Request(p, ("Yes", "No")) for p in PROMPTS]
    batched = backend.answer(requests)
    single = [backend.answer([r])[0] for r in requests]
    assert [r.answer for r in batched] == [r.answer for r in single]
    for b, s in zip(batched, single, strict=True):
        assert b.logprobs == pytest.approx(s.logprobs, abs=1e-3)


def test_answer_is_outlines_greedy_choice(backend):
    import outlines
    from outlines.inputs import Chat
    from outlines.types import Choice

    generator = outlines.Generator(
        backend._outlines_model, Choice(["Mary", "James", "both", "neither"])
    )
    chat = Chat([{"role": "user", "content": PROMPTS[1]}])
    expected = generator(chat, max_new_tokens=10)
    assert (
        backend.answer([Request(PROMPTS[1], ("Mary", "James", "both", "neither"))])[0].answer
        == expected
    )
