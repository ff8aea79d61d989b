"""The simulated respondent and its backend: deterministic draws from the declared model."""

import copy

import numpy as np
import pytest
import yaml
from scipy.special import expit, logit

from hiremeornot.asking.backends import Request, load_backend
from hiremeornot.asking.respondent import Respondent, check_design, matches
from hiremeornot.checks import check_config
from hiremeornot.config import model_settings, validate_config
from hiremeornot.errors import InputError
from tests.conftest import REPO, needs_data

DEFAULT = yaml.safe_load((REPO / "config.yaml").read_text())


def settings(**respondent) -> dict:
    return model_settings({"backend": "simulated", "model": "planted", "respondent": respondent})


def respondent(**params) -> Respondent:
    return Respondent(settings(**params)["respondent"])


FEMALE, MALE = {"gender": "female"}, {"gender": "male"}


def q2(first="Mary", second="John", occupation="nurse", question="q2"):
    return {
        "question": question,
        "wording": "paper",
        "occupation": occupation,
        "people": [{"name": first, "group": FEMALE}, {"name": second, "group": MALE}],
    }


def test_answers_are_fixed_by_seed_and_question_and_logprobs_are_the_drawn_probabilities():
    backend = load_backend("simulated", settings(name_sd=0.0, position=0.0))
    requests = [Request(f"question {i}?", ("Mary", "John"), q2()) for i in range(400)]
    first = backend.answer(requests)
    assert first == backend.answer(requests)  # the same question, the same answer
    other = load_backend("simulated", settings(name_sd=0.0, seed=1)).answer(requests)
    assert [r.answer for r in other] != [r.answer for r in first]
    for response in first:
        assert np.allclose(np.exp(response.logprobs), [0.5, 0.5])
    share = np.mean([r.answer == "Mary" for r in first])
    assert 0.44 < share < 0.56  # 400 fair draws (fixed by the seed)


def test_planted_effects_shift_the_log_odds_as_declared():
    planted = respondent(
        name_sd=0.0,
        position=0.5,
        effects={"q2": {"female": 1.0}, "q3": {"female": 1.0}},
        occupations={"pilot": {"q2": {"male": 2.0}}},
        q3={"both": 0.3, "neither": 0.1},
    )
    nurse = planted.probabilities(q2())
    assert nurse[0] == pytest.approx(expit(1.0 + 0.5))  # group and position effects
    pilot = planted.probabilities(q2(occupation="pilot"))
    assert pilot[1] == pytest.approx(expit(2.0 - 0.5))  # the occupation's own effects
    q3 = planted.probabilities(q2(question="q3"))
    assert q3[2:] == pytest.approx([0.3, 0.1])
    assert q3[0] == pytest.approx(0.6 * expit(1.5))
    q1 = {
        "question": "q1",
        "wording": "paper",
        "occupation": "nurse",
        "subject": "Mary",
        "group": FEMALE,
        "granted": 3,
    }
    assert planted.probabilities(q1)[0] == pytest.approx(expit(logit(0.2) + 3 * 0.2))


def test_name_effects_are_drawn_once_per_name_from_the_seed():
    planted = respondent(name_sd=2.0)
    names = [f"N{i}" for i in range(4000)]
    effects = planted.name_effect(names)
    assert np.array_equal(effects[:3], planted.name_effect(names[:3]))  # whatever the design
    assert abs(effects.mean()) < 0.1 and effects.std() == pytest.approx(2.0, rel=0.05)


def test_heavy_tailed_name_effects_keep_their_sd_and_put_more_names_far_out():
    names = [f"N{i}" for i in range(20000)]
    normal = respondent(name_sd=1.0).name_effect(names)
    heavy = respondent(name_sd=1.0, name_df=3).name_effect(names)
    # a t with 3 degrees of freedom scaled to SD 1: median |u| 0.442 (normal 0.674), and
    # 1.4% of names beyond 3 SD (normal 0.27%)
    assert np.median(np.abs(heavy)) == pytest.approx(0.442, abs=0.02)
    assert np.median(np.abs(normal)) == pytest.approx(0.674, abs=0.02)
    assert np.mean(np.abs(heavy) > 3) == pytest.approx(0.0138, abs=0.003)
    assert np.mean(np.abs(normal) > 3) < 0.005


def test_a_name_has_its_own_effect_in_each_occupation_in_q1_to_q3_only():
    names = [f"N{i}" for i in range(4000)]
    plain = respondent(name_sd=1.0)
    assert np.array_equal(plain.name_effect(names, "nurse"), plain.name_effect(names))
    crossed = respondent(name_sd=1.0, interaction_sd=0.5)
    assert np.array_equal(crossed.name_effect(names), plain.name_effect(names))  # Step 1
    nurse, pilot = crossed.name_effect(names, "nurse"), crossed.name_effect(names, "pilot")
    assert np.array_equal(nurse, crossed.name_effect(names, "nurse"))  # drawn once
    assert (nurse - pilot).std() == pytest.approx(0.5 * np.sqrt(2), rel=0.05)
    assert np.corrcoef(nurse, pilot)[0, 1] == pytest.approx(1 / 1.25, abs=0.03)


def test_an_arm_draws_its_answers_apart_from_the_baseline():
    """An arm that changes nothing (scale 1) has the baseline's probabilities but its own
    draws: it differs from the baseline by the answers' noise alone, as in the calibration."""
    params = settings(name_sd=0.0, interventions={"same": {"scale": 1.0}})["respondent"]
    baseline, arm = Respondent(params), Respondent(params, "same")
    prompts = [f"question {i}?" for i in range(1000)]
    assert np.array_equal(baseline.probabilities(q2()), arm.probabilities(q2()))
    picks = {
        who: [planted.pick(p, ("Mary", "John"), np.array([0.5, 0.5])) for p in prompts]
        for who, planted in (("baseline", baseline), ("arm", arm))
    }
    again = [arm.pick(p, ("Mary", "John"), np.array([0.5, 0.5])) for p in prompts]
    assert again == picks["arm"]  # fixed by the seed, the arm and the question
    flipped = np.mean(np.array(picks["baseline"]) != np.array(picks["arm"]))
    assert flipped == pytest.approx(0.5, abs=0.05)  # two independent fair draws


def test_groups_match_by_value_or_values_joined():
    group = {"race": "Black", "gender": "female"}
    assert matches("female", group) and matches("Black female", group)
    assert not matches("White female", group) and not matches("male", group)
    assert matches("Person A", {"label": "Person A"})


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"occupations": {"wizard": {"q2": {"female": 1.0}}}}, r"respondent.occupations.wizard"),
        ({"effects": {"q2": {"Martian": 1.0}}}, r"respondent.effects.q2.Martian: 'Martian'"),
        ({"wordings": {"formal": {"female": 1.0}}}, r"respondent.wordings.formal"),
        ({"q3": {"both": 0.8, "neither": 0.3}}, r"respondent.q3: both \+ neither is 1.1"),
        ({"name_df": 1.5}, r"respondent.name_df: 1.5 gives the name effects no variance"),
        (
            {"free": {"refused": {"q3": 0.6}, "other": {"q3": 0.4}}},
            r"respondent.free: refused \+ other \+ unparsed of q3 is 1, which leaves no answer",
        ),
        (
            {"free": {"refusal_effects": {"Martian": 1.0}}},
            r"respondent.free.refusal_effects.Martian",
        ),
    ],
)
def test_a_plant_the_design_lacks_is_named(params, message):
    with pytest.raises(InputError, match=message):
        check_design(
            settings(**params)["respondent"],
            ["nurse"],
            {"female": "gender", "male": "gender"},
            {"female minus male": {"gender"}},
            ["paper"],
            "respondent",
        )


def test_the_config_check_stops_a_bad_plant_before_any_job():
    config = copy.deepcopy(DEFAULT)
    config["models"] = {
        "planted": {
            "backend": "simulated",
            "model": "planted",
            "respondent": {"effects": {"q1": {"Black": 0.5}}},
        }
    }
    with pytest.raises(InputError, match=r"models.planted.respondent.effects.q1.Black"):
        check_config(config)


@needs_data
def test_a_plant_on_what_a_contrast_leaves_out_of_its_groups_is_refused():
    """Black minus White matched on gender names no gender in its groups: a plant on female
    would not reach its answers, and the questions it shares with Black women minus White
    women would be answered as whichever contrast asked first (found: a re-run changed them)."""
    from tests.test_contrast_workflow import RACES

    config = copy.deepcopy(RACES)
    config["models"]["planted"]["respondent"] = {"effects": {"q2": {"female": 0.8}}}
    with pytest.raises(InputError, match=r"effects.q2.female: plants on gender, which the cont"):
        check_config(validate_config(config))
    config["models"]["planted"]["respondent"] = {"effects": {"q2": {"Black": 0.8}}}
    check_config(validate_config(config))
    config["models"]["planted"]["respondent"] = {"q1": {"none": 1.5}}
    with pytest.raises(InputError, match=r"'models.planted.respondent.q1.none'"):
        check_config(config)


def test_a_question_that_does_not_say_what_it_asks_is_refused():
    from hiremeornot.asking.backends import BackendError

    with pytest.raises(BackendError, match="Request.about"):
        load_backend("simulated", settings()).answer([Request("Who?", ("A", "B"))])


def test_validity_answers_the_label_with_the_planted_accuracy():
    planted = respondent(validity={"accuracy": 0.9})
    about = {"question": "gender", "name": "Mary", "group": FEMALE, "roles": ("female", "male")}
    assert planted.probabilities(about) == pytest.approx([0.9, 0.1])


def step1(name="Mary", group=FEMALE):
    return {
        "question": "step1",
        "wording": "paper",
        "subject": name,
        "group": group,
        "attribute_type": "skill",
        "roles": ("yes", "no"),
    }


def asked_both_ways(plant: dict):
    """Per question kind (a Step-1 yes/no, a Q3), 600 questions asked free of the respondent
    with ``plant`` as its free model, and the same asked constrained: (free, constrained)."""
    backend = load_backend("simulated", settings(free=plant))
    cases = [
        (("Yes", "No"), step1()),
        (
            ("Mary", "John", "both", "neither"),
            {**q2(question="q3"), "roles": ("female", "male", "both", "neither")},
        ),
    ]
    for choices, about in cases:
        asked = [Request(f"question {i}?", choices, about) for i in range(600)]
        free = backend.answer([Request(r.prompt, choices, about, free_tokens=64) for r in asked])
        yield free, backend.answer(asked)


def test_a_free_reply_reads_back_as_the_answer_it_would_give_constrained_or_as_planted():
    """Every phrasing, refusal and hedge the respondent writes is read by the parser as meant,
    and the answered replies are the constrained answers (the same draw)."""
    plant = {"refused": {"step1": 0.2, "q3": 0.2}, "other": {"step1": 0.1, "q3": 0.1}}
    for free, constrained in asked_both_ways(plant):
        kinds = {"refused": 0, "other": 0}
        for f, c in zip(free, constrained, strict=True):
            assert np.isnan(f.logprobs).all() and f.reply
            if f.answer in kinds:
                kinds[f.answer] += 1
            else:
                assert f.answer == c.answer, f.reply
        assert 0.15 < kinds["refused"] / 600 < 0.25 and 0.06 < kinds["other"] / 600 < 0.14
        phrasings = {f.reply.replace(f.answer, "{answer}") for f in free}
        assert {"{answer}", "{answer}.", "Answer: {answer}", "**{answer}**"} <= phrasings


def test_an_unparsed_reply_gives_the_constrained_answer_in_words_the_parser_cannot_read():
    """Planted ``unparsed`` replies read as unparsed, and each says the answer the constrained
    question gets (a person by place), for a classifier to read."""
    places = {"The first one.": "Mary", "The second one.": "John", "Each of them.": "both"}
    said = {**places, "Not one of them.": "neither"}
    said |= {"I'd lean towards yes.": "Yes", "I'd lean towards no.": "No"}
    for free, constrained in asked_both_ways({"unparsed": {"step1": 0.3, "q3": 0.3}}):
        unread = [(f, c) for f, c in zip(free, constrained, strict=True) if f.answer == "unparsed"]
        assert 0.24 < len(unread) / 600 < 0.36
        for f, c in unread:
            assert said[f.reply] == c.answer
        assert all(
            f.answer == c.answer
            for f, c in zip(free, constrained, strict=True)
            if f.reply not in said
        )


def test_refusals_planted_for_a_group_shift_its_log_odds():
    planted = respondent(
        free={"refused": {"step1": 0.1, "q2": 0.1}, "refusal_effects": {"female": 1.0}}
    )
    assert planted.non_answer_probabilities(step1())[0] == pytest.approx(expit(logit(0.1) + 1))
    assert planted.non_answer_probabilities(step1("John", MALE))[0] == pytest.approx(0.1)
    assert planted.non_answer_probabilities(q2())[0] == pytest.approx(expit(logit(0.1) + 0.5))
    assert respondent().non_answer_probabilities(step1()) == (0.0, 0.0)
