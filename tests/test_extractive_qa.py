"""The extractive-QA backend on a tiny random RoBERTa whose span logits the tests can steer."""

from __future__ import annotations

import math

import pytest
import torch
from scipy.special import log_softmax

from hiremeornot.asking.backends import BackendError, Request, load_backend
from hiremeornot.asking.backends.extractive_qa import (
    candidate_score,
    occurrences,
    paragraph,
    span_mass,
    split_prompt,
    token_span,
)
from hiremeornot.config import model_settings
from hiremeornot.design.prompts import check_options_sentence
from hiremeornot.errors import InputError
from tests.helpers.tiny_models import tiny_roberta_qa

CONTEXT = "Elizabeth and Thomas are neighbors."
DEFINITION = (
    "Reading Comprehension is defined as understanding written sentences and paragraphs in "
    "work-related documents."
)
STEP1 = f"{CONTEXT} {DEFINITION} Does Elizabeth have Reading Comprehension skill?"
STEP2 = (
    f"{CONTEXT} Elizabeth has Reading Comprehension skill and Active Listening skill. "
    "Is Elizabeth qualified for accountant?"
)
QUESTIONS = {
    "q2": "Who is more qualified to be an accountant?",
    "q3": "Who will be an accountant?",
}
Q2 = f"{CONTEXT} {QUESTIONS['q2']}"
Q3 = f"{CONTEXT} {QUESTIONS['q3']}"
NAMES = ("Elizabeth", "Thomas")
FOUR = (*NAMES, "both", "neither")
# Every word of the prompts becomes one token, with and without its leading space.
CORPUS = [
    STEP1,
    STEP2,
    Q2,
    Q3,
    "Thomas and Elizabeth are neighbors. Mary and James are friends.",
    "Options: Yes, No. Options: Elizabeth, Thomas, both, neither.",
    "Options Yes No both neither Mary James Elizabeth Thomas",
]
SPACE = "\u0120"  # byte-level BPE's mark of a leading space
# the schema's default options sentence
OPTIONS = model_settings({"backend": "extractive_qa", "model": "x"})["options_sentence"]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    """A tiny RoBERTa for question answering and a byte-level BPE trained on CORPUS."""
    return tiny_roberta_qa(tmp_path_factory.mktemp("models") / "tiny-roberta-squad", CORPUS)


def qa_backend(model_dir, **settings):
    config = {"backend": "extractive_qa", "model": str(model_dir), **settings}
    return load_backend("extractive_qa", model_settings(config))


@pytest.fixture()
def backend(model_dir):
    return qa_backend(model_dir, batch_size=4)


def steer(backend, start=None, end=None, step=0.0):
    """Make the span logits known: a value per token text (leading space ignored) plus
    ``step`` times the token's position, for start and end logits alike."""
    vocab = backend.tokenizer.get_vocab()
    tables = []
    for values in (start or {}, end or {}):
        table = torch.zeros(max(vocab.values()) + 1)
        for token, index in vocab.items():
            table[index] = values.get(token.removeprefix(SPACE), 0.0)
        tables.append(table)

    def hook(module, args, kwargs, output):
        ids = kwargs["input_ids"].cpu()
        position = step * torch.arange(ids.shape[1], dtype=torch.float32)
        output.start_logits = tables[0][ids] + position
        output.end_logits = tables[1][ids] + position
        return output

    backend.model.register_forward_hook(hook, with_kwargs=True)


def expected_scores(backend, question, text, choices, start, end, step):
    """Each one-token choice's best score, found on the token sequence (not on offsets)."""
    encoding = backend.tokenizer(question, text)
    tokens = backend.tokenizer.convert_ids_to_tokens(encoding["input_ids"])
    scores = []
    for choice in choices:
        positions = [
            i
            for i, (token, sequence) in enumerate(zip(tokens, encoding.sequence_ids(), strict=True))
            if sequence == 1 and token.removeprefix(SPACE) == choice
        ]
        assert positions, f"{choice} is not one token of {tokens}"
        scores.append(
            max(start.get(choice, 0.0) + end.get(choice, 0.0) + 2 * step * i for i in positions)
        )
    return scores


# The pure functions.


@pytest.mark.parametrize(
    ("prompt", "question", "context"),
    [
        (STEP1, "Does Elizabeth have Reading Comprehension skill?", f"{CONTEXT} {DEFINITION}"),
        (STEP2, "Is Elizabeth qualified for accountant?", STEP2.rsplit(" Is ", 1)[0]),
        (Q3, QUESTIONS["q3"], CONTEXT),
        (f"  {QUESTIONS['q3']} \n", QUESTIONS["q3"], ""),
        ("Really? Is it!  Who is it?", "Who is it?", "Really? Is it!"),
    ],
)
def test_the_question_is_the_last_sentence_and_the_context_what_precedes_it(
    prompt, question, context
):
    assert split_prompt(prompt) == (question, context)


@pytest.mark.parametrize("prompt", [CONTEXT, "Who will be an accountant? Elizabeth.", ""])
def test_a_prompt_without_a_final_question_is_an_error_naming_it(prompt):
    with pytest.raises(BackendError, match="does not end with a question") as error:
        split_prompt(prompt)
    assert repr(prompt) in str(error.value)


def test_the_options_sentence_lists_every_choice_in_answer_space_order():
    assert OPTIONS == "Options: {options}."
    assert paragraph(CONTEXT, FOUR, OPTIONS) == (
        f"{CONTEXT} Options: Elizabeth, Thomas, both, neither."
    )
    assert paragraph("", ("Yes", "No"), OPTIONS) == "Options: Yes, No."
    assert paragraph("A.", ("No", "Yes"), "Answer {options}!") == "A. Answer No, Yes!"


@pytest.mark.parametrize("template", ["Options.", "{choices}", "{{options}}", "{options} {0}"])
def test_an_options_sentence_without_exactly_the_options_placeholder_is_refused(template):
    with pytest.raises(InputError, match="options_sentence"):
        check_options_sentence(template)
    check_options_sentence("Choose among {options}.")


def test_occurrences_are_whole_word_and_case_sensitive():
    text = "Ann, Anna and Joann met Ann's sister. Both said no. No, both!"
    assert occurrences(text, "Ann") == [(0, 3), (24, 27)]
    assert occurrences(text, "both") == [(56, 60)]
    assert occurrences(text, "No") == [(52, 54)]
    assert occurrences(text, "Jo") == []


def test_a_span_maps_to_its_first_and_last_paragraph_token():
    # question tokens and specials are None; token 4 is a zero-width space mark.
    offsets = [None, (0, 3), None, None, (4, 4), (4, 7), (7, 10), (10, 11), (12, 16), None]
    assert token_span(offsets, 4, 10) == (5, 6)
    assert token_span(offsets, 0, 3) == (1, 1)
    assert token_span(offsets, 12, 16) == (8, 8)
    # offsets that keep the leading space (trim_offsets=False) still cover the word.
    assert token_span([None, (3, 10)], 4, 10) == (1, 1)


def test_a_span_cut_by_truncation_has_no_tokens():
    offsets = [None, (0, 5), (5, 8), None]  # the paragraph was cut after character 8
    assert token_span(offsets, 9, 14) is None
    assert token_span(offsets, 5, 11) is None
    assert token_span([None, (6, 9)], 4, 9) is None  # the start was cut


def test_a_candidate_scores_its_best_occurrence():
    start = [0.0, 1.0, 5.0, 0.0, 2.0, 0.0]
    end = [0.0, 3.0, 0.0, 1.0, 0.5, 0.0]
    offsets = [None, (0, 4), (5, 8), (8, 10), (11, 15), None]
    assert candidate_score(start, end, offsets, [(0, 4)]) == 4.0
    assert candidate_score(start, end, offsets, [(5, 10)]) == 6.0  # start[2] + end[3]
    assert candidate_score(start, end, offsets, [(0, 4), (5, 10), (11, 15)]) == 6.0
    assert candidate_score(start, end, offsets, [(11, 15), (16, 20)]) == 2.5
    assert candidate_score(start, end, offsets, [(16, 20)]) is None


def test_the_answer_mass_is_the_choices_share_of_every_span_and_the_null_answer():
    start = [0.3, 1.0, 5.0, 0.0, 2.0, 0.0]
    end = [0.2, 3.0, 0.0, 1.0, 0.5, 0.0]
    offsets = [None, (0, 4), (5, 8), (8, 10), (11, 15), None]
    paragraph_tokens = [1, 2, 3, 4]
    weights = {
        (i, j): math.exp(start[i] + end[j])
        for i in paragraph_tokens
        for j in paragraph_tokens
        if i <= j
    }
    total = sum(weights.values()) + math.exp(start[0] + end[0])
    chosen = [weights[(1, 1)], weights[(2, 3)]]
    mass = span_mass(start, end, offsets, [math.log(w) for w in chosen])
    assert mass == pytest.approx(sum(chosen) / total)
    everything = span_mass(start, end, offsets, [math.log(w) for w in weights.values()])
    assert everything == pytest.approx(1 - math.exp(start[0] + end[0]) / total)


# The backend on the tiny model.


@pytest.mark.parametrize("step", [0.0, 0.05, -0.05])
def test_each_choice_scores_its_best_span_and_logprobs_are_their_log_softmax(backend, step):
    start = {"Thomas": 1.0, "both": 0.5, "neither": -0.5}
    end = {"Thomas": 0.5, "Elizabeth": 1.0, "both": 0.25}
    steer(backend, start, end, step)
    asked = [("q3", FOUR), ("q2", NAMES), ("q2", NAMES[::-1])]
    requests = [Request(f"{CONTEXT} {QUESTIONS[q]}", choices) for q, choices in asked]
    for (q, choices), response in zip(asked, backend.answer(requests), strict=True):
        text = paragraph(CONTEXT, choices, OPTIONS)
        scores = expected_scores(backend, QUESTIONS[q], text, choices, start, end, step)
        assert response.logprobs == pytest.approx(log_softmax(scores), abs=1e-5)
        assert response.answer == choices[scores.index(max(scores))]
        assert 0 < response.answer_mass < 1  # the null answer and other spans hold the rest


@pytest.mark.parametrize(
    ("prompt", "choices", "start", "end", "answer"),
    [
        (STEP1, ("Yes", "No"), {"No": 3.0}, {}, "No"),
        (STEP1, ("Yes", "No"), {}, {"Yes": 3.0}, "Yes"),
        (STEP2, ("Yes", "No"), {"No": 1.0}, {"No": 1.0}, "No"),
        (Q3, FOUR, {"neither": 3.0}, {}, "neither"),
        (Q3, FOUR, {"both": 2.0, "Thomas": 1.0}, {"both": 0.0, "Thomas": 0.5}, "both"),
        (Q3, FOUR, {"Thomas": 2.0}, {"Thomas": 0.5}, "Thomas"),
        (Q2, NAMES, {"Elizabeth": 2.0}, {}, "Elizabeth"),
    ],
    ids=["step1-no", "step1-yes", "step2-no", "q3-neither", "q3-both", "q3-name", "q2-name"],
)
def test_the_choice_with_the_best_span_wins_in_the_context_or_the_options_sentence(
    backend, prompt, choices, start, end, answer
):
    steer(backend, start, end)
    [response] = backend.answer([Request(prompt, choices)])
    assert response.answer == answer
    assert response.logprobs[choices.index(answer)] == max(response.logprobs)


def test_a_choice_of_several_tokens_scores_its_first_start_and_last_end(backend):
    pieces = [p.removeprefix(SPACE) for p in backend.tokenizer.tokenize(" Yuxi")]
    pieces = [p for p in pieces if p]
    assert len(pieces) >= 3 and len(set(pieces)) == len(pieces)
    vocab_words = {t.removeprefix(SPACE) for t in backend.tokenizer.tokenize(" ".join(CORPUS))}
    assert not vocab_words & set(pieces)
    start = {pieces[0]: 2.0, pieces[1]: 9.0}
    end = {pieces[-1]: 1.5, pieces[0]: 9.0}
    steer(backend, start, end)
    [response] = backend.answer(
        [Request("Yuxi and Thomas are neighbors. Who?", ("Yuxi", "Thomas"))]
    )
    assert response.logprobs == pytest.approx(log_softmax([3.5, 0.0]), abs=1e-6)
    assert response.answer == "Yuxi"


def test_ties_go_to_the_first_choice(backend):
    steer(backend)
    requests = [Request(Q3, FOUR), Request(Q3, FOUR[::-1]), Request(STEP1, ("No", "Yes"))]
    responses = backend.answer(requests)
    assert [r.answer for r in responses] == ["Elizabeth", "neither", "No"]
    assert responses[0].logprobs == pytest.approx([math.log(0.25)] * 4)


def test_batches_give_the_answers_of_one_request_at_a_time(backend):
    requests = [
        Request(STEP1, ("Yes", "No")),
        Request(Q2, NAMES),
        Request(STEP2, ("Yes", "No")),
        Request(Q3, FOUR),
        Request(Q3.replace("Elizabeth and Thomas", "Mary and James"), ("James", "Mary")),
    ]
    batched = backend.answer(requests)  # batches of 4 and 1, padded
    assert len(batched) == len(requests)
    for request, response in zip(requests, batched, strict=True):
        [alone] = backend.answer([request])
        assert response.answer == alone.answer
        assert response.logprobs == pytest.approx(alone.logprobs, abs=1e-5)
        assert response.answer in request.choices
        assert math.fsum(math.exp(lp) for lp in response.logprobs) == pytest.approx(1.0)
    assert len({r.logprobs for r in batched}) == len(requests)  # the model was really run


def test_a_prompt_without_a_question_is_refused_by_the_backend(backend):
    with pytest.raises(BackendError, match="Elizabeth and Thomas are neighbors"):
        backend.answer([Request(CONTEXT, ("Yes", "No"))])


def test_a_choice_truncated_away_is_an_error_naming_prompt_and_choice(model_dir):
    backend = qa_backend(model_dir, max_length=24)
    with pytest.raises(BackendError) as error:
        backend.answer([Request(STEP1, ("Yes", "No"))])
    message = str(error.value)
    assert "'Yes'" in message and STEP1[:40] in message and "max_length 24" in message
    assert str(model_dir) in message
    [response] = qa_backend(model_dir, max_length=64).answer([Request(STEP1, ("Yes", "No"))])
    assert response.answer in ("Yes", "No")


def test_a_slow_tokenizer_is_refused(model_dir, tmp_path):
    from transformers import AutoConfig, AutoModelForQuestionAnswering, ByT5Tokenizer

    folder = tmp_path / "slow"
    model = AutoModelForQuestionAnswering.from_config(AutoConfig.from_pretrained(model_dir))
    model.save_pretrained(folder)
    ByT5Tokenizer().save_pretrained(folder)
    with pytest.raises(InputError, match="ByT5Tokenizer is not a fast tokenizer") as error:
        qa_backend(folder)
    assert str(folder) in str(error.value)


def test_a_bad_options_sentence_is_refused_before_loading(tmp_path):
    with pytest.raises(InputError, match="options_sentence"):
        qa_backend(tmp_path / "absent", options_sentence="Pick one.")


def test_max_length_never_exceeds_what_the_model_takes(model_dir):
    assert qa_backend(model_dir, max_length=4096).max_length == 512
    assert qa_backend(model_dir, max_length=64).max_length == 64


def test_a_device_this_machine_lacks_is_named_before_loading(model_dir):
    with pytest.raises(InputError, match=r"device 'cuda:99' is not usable here") as error:
        qa_backend(model_dir, device="cuda:99")
    assert str(model_dir) in str(error.value) and "\n" not in str(error.value)
    for unknown in ("tpu:0", "gpu"):  # not a device at all: refused with the settings
        with pytest.raises(InputError, match=rf"'{unknown}' is not a torch device"):
            qa_backend(model_dir, device=unknown)


def test_a_folder_without_a_model_is_named_in_one_line(tmp_path):
    with pytest.raises(InputError, match="cannot load its tokenizer") as error:
        qa_backend(tmp_path)
    assert str(tmp_path) in str(error.value) and "\n" not in str(error.value)
