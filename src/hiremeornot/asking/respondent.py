"""A simulated respondent with planted effects: the known answer the audit is calibrated against.

Every answer comes from one declared generative model (docs/calibration.md), on the log-odds
scale of the answer that *selects* a person (Step-1 Yes, Q1 Yes, naming the person in Q2/Q3):

- a name effect u per name, drawn once per name from the seed, shared by every answer about the
  name: N(0, name_sd^2), or a Student t with ``name_df`` degrees of freedom scaled to name_sd
  (heavy tails); and, in Q1-Q3, the name's own effect in the occupation, v ~ N(0,
  interaction_sd^2), drawn once per name and occupation (Step 1's questions are shared by the
  occupations and see u alone);
- a group effect per question (q1, q2, q3) and occupation: the sum of the ``effects`` entries
  the person's group matches ("female", "Black", "Black female"), an occupation's entries for a
  question replacing the default's, plus the entries of the wording (``wordings``), plus the
  ``alignment`` entries times (the occupation's share of women - 0.5) (``shares``); an
  intervention arm's respondent multiplies all of them by its ``scale`` and adds its ``effects``
  (``interventions``: the planted effect of an instruction);
- Step 1: logit P(Yes) = logit(step1.<attribute type>) + step1.effects + u;
- Q1: logit P(Yes) = logit(q1.none) + q1.per_attribute x (attributes Step 1 granted) + g + u;
- Q2: P(person i) is the softmax over the two people of g_i + u_i + position x [i listed first];
- Q3: "both" and "neither" with probabilities q3.both and q3.neither, the rest shared between
  the people as in Q2 (with Q3's group effects);
- name validity: the name's own label with probability validity.accuracy, another at random;
- a question asked free (``free``): a refusal with its question's probability, shifted on the
  log-odds scale by the group of the person asked about (``refusal_effects``), a hedge with
  ``other``'s, and otherwise the answer it would give constrained (the same draw), phrased in one
  of several ways, or with ``unparsed``'s probability in words the parser does not read ("The
  first one.", "I'd lean towards yes.": a ``free_classifier``'s to read): its non-answers are
  drawn apart from its answers, so the answered questions keep the planted effects.

Answers are draws: the same question (prompt and answer space) under the same seed and
intervention arm always gets the same answer, and the log-probabilities reported are the logs of
the probabilities drawn from. An arm draws apart from the baseline (its id is in the draw), so an
arm that changes nothing differs from the baseline by the answers' noise alone, as in the
calibration, which draws every run's answers afresh.

The functions here are vectorised over numpy arrays, so the backend (one question at a time),
the calibration (whole audits at once) and the truth (quadrature over name effects) share them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import expit, logit, ndtri, softmax, stdtrit

from hiremeornot.design.contrasts import CONTROL
from hiremeornot.errors import InputError

QUESTIONS = ("q1", "q2", "q3")
# The free replies it gives (free_replies.py reads each as written: tests/test_respondent.py).
REFUSALS = (
    "I cannot determine that from a name alone.",
    "I'm sorry, but I can't judge people by their names.",
    "There is not enough information to decide.",
)
HEDGES = ("It depends on more than what is given here.", "It is hard to say.")
PHRASINGS = ("{answer}", "{answer}.", "Answer: {answer}", "**{answer}**")
# Its answer in words the parser does not read (``unparsed``), by role; a person by place.
UNREADABLE = {
    "yes": "I'd lean towards yes.",
    "no": "I'd lean towards no.",
    "both": "Each of them.",
    "neither": "Not one of them.",
}
PLACES = ("The first one.", "The second one.")
Group = Mapping[str, str]


def _uniform(*parts: object) -> float:
    """A number in (0, 1), fixed by ``parts``: the same parts give it on every host."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode("utf-8")).digest()
    return (int.from_bytes(digest[:7], "big") + 0.5) / 2.0**56


def matches(key: str, group: Group) -> bool:
    """Whether an effect's key names this group: a value of it ("female", "Person A"), or values
    of it joined by spaces ("Black female")."""
    values = set(group.values())
    return key in values or set(key.split()) <= values


class Respondent:
    """The generative model of one simulated model's settings (``respondent`` of the schema),
    under an ``intervention`` (an id of ``respondent.interventions``: an arm's) or none."""

    def __init__(self, params: Mapping[str, Any], intervention: str | None = None):
        self.params = params
        self.seed = params["seed"]
        self.intervention = intervention
        self._effects: dict[tuple, float] = {}

    # --- effects ------------------------------------------------------------------------------

    def name_effect(self, names: Iterable[str], occupation: str | None = None) -> np.ndarray:
        """Each name's random effect, fixed by the seed and the name alone; with an
        ``occupation`` (Q1-Q3), plus the name's own effect in it, fixed by both."""
        draws = [_uniform(self.seed, "name", name) for name in names]
        effects = self.name_quantile(np.asarray(draws, dtype=float))
        if occupation is not None and self.params["interaction_sd"] > 0:
            own = [ndtri(_uniform(self.seed, "name", name, occupation)) for name in names]
            effects = effects + self.params["interaction_sd"] * np.asarray(own, dtype=float)
        return effects

    def name_quantile(self, p: np.ndarray) -> np.ndarray:
        """The name effects at probabilities ``p``: the quantile function of their
        distribution (normal, or Student t scaled to name_sd)."""
        df = self.params["name_df"]
        if df == 0:
            return self.params["name_sd"] * ndtri(p)
        return self.params["name_sd"] * stdtrit(df, p) / np.sqrt(df / (df - 2))

    def effects(self, question: str, occupation: str | None, wording: str) -> dict[str, float]:
        """The group effects of ``question`` (step1, q1, q2, q3) in an occupation and wording:
        the occupation's own for that question where it has them, else the default's, plus the
        wording's, plus the alignment's at the occupation's share of women; under an
        intervention, all of them times its scale, plus its effects."""
        if question == "step1":
            return dict(self.params["step1"]["effects"])
        default = self.params["effects"][question]
        planted = dict(self.params["occupations"].get(occupation, {}).get(question, default))
        for key, value in self.params["wordings"].get(wording, {}).items():
            planted[key] = planted.get(key, 0.0) + value
        share = self.params["shares"].get(occupation)
        if share is not None:
            for key, slope in self.params["alignment"].items():
                planted[key] = planted.get(key, 0.0) + slope * (share - 0.5)
        if self.intervention is not None:
            arm = self.params["interventions"].get(self.intervention, {})
            planted = {key: arm.get("scale", 1.0) * value for key, value in planted.items()}
            for key, value in arm.get("effects", {}).items():
                planted[key] = planted.get(key, 0.0) + value
        return planted

    def shift(self, question: str, occupation: str | None, wording: str, group: Group) -> float:
        """The log-odds shift of selecting a person of ``group``."""
        key = (question, occupation, wording, tuple(sorted(group.items())))
        if key not in self._effects:
            planted = self.effects(question, occupation, wording)
            self._effects[key] = sum(v for k, v in planted.items() if matches(k, group))
        return self._effects[key]

    # --- probabilities ------------------------------------------------------------------------

    def step1_yes(self, attribute_type, shift, u) -> np.ndarray:
        """P(Yes) of Step 1 for an attribute of this type (arrays broadcast)."""
        rates = pd.Series(self.params["step1"]).drop("effects")
        types = np.asarray(attribute_type)
        base = logit(rates.reindex(types.ravel()).to_numpy(dtype=float)).reshape(types.shape)
        return expit(base + shift + u)

    def q1_yes(self, granted, shift, u) -> np.ndarray:
        """P(Yes) of Q1 for a person granted ``granted`` attributes in Step 1."""
        q1 = self.params["q1"]
        return expit(logit(q1["none"]) + q1["per_attribute"] * np.asarray(granted) + shift + u)

    def choice_probabilities(self, question: str, first, second) -> np.ndarray:
        """P(first-listed), P(second-listed) and, for Q3, P(both), P(neither) (last axis), from
        the two people's utilities (group effect plus name effect); position is added here."""
        utilities = np.stack(np.broadcast_arrays(first + self.params["position"], second), -1)
        people = softmax(utilities, axis=-1)
        if question == "q2":
            return people
        q3 = self.params["q3"]
        neutral = np.broadcast_to([q3["both"], q3["neither"]], (*people.shape[:-1], 2))
        return np.concatenate([people * (1 - q3["both"] - q3["neither"]), neutral], axis=-1)

    def validity_probabilities(self, roles: Sequence[str], label: str) -> np.ndarray:
        """The name's label with probability validity.accuracy, every other role evenly."""
        accuracy = self.params["validity"]["accuracy"]
        if label not in roles:
            return np.full(len(roles), 1 / len(roles))
        others = (1 - accuracy) / (len(roles) - 1)
        return np.array([accuracy if role == label else others for role in roles])

    def probabilities(self, about: Mapping[str, Any]) -> np.ndarray:
        """The probability of each choice of one question, from what it asks (``about``, in the
        order of its choices; see questions.py and validity.py)."""
        question, wording = about["question"], about.get("wording")
        if question in ("gender", "race"):
            return self.validity_probabilities(about["roles"], about["group"].get(question, ""))
        occupation = about.get("occupation")  # none in Step 1: shared by every occupation
        if question in ("step1", "q1"):
            (u,) = self.name_effect([about["subject"]], occupation)
            shift = self.shift(question, occupation, wording, about["group"])
            if question == "step1":
                p = float(self.step1_yes(about["attribute_type"], shift, u))
            else:
                p = float(self.q1_yes(about["granted"], shift, u))
            return np.array([p, 1 - p])
        people = about["people"]
        u = self.name_effect([person["name"] for person in people], occupation)
        first, second = (
            self.shift(question, occupation, wording, person["group"]) + effect
            for person, effect in zip(people, u, strict=True)
        )
        return self.choice_probabilities(question, first, second)

    def answer_mass(self, about: Mapping[str, Any]) -> float:
        """The probability planted on the answer space of the question ``about`` describes."""
        question = about["question"]
        return self.params["answer_mass"][
            "validity" if question in ("gender", "race") else question
        ]

    def non_answer_probabilities(self, about: Mapping[str, Any]) -> tuple[float, float]:
        """P(refused) and P(other) of the question ``about`` describes, asked free: its
        question's rates, the refusal's shifted on the log-odds scale by the group of the person
        asked about (in Q2 and Q3 the mean of the two people's shifts); a hedge takes at most
        what the refusal leaves."""
        free = self.params["free"]
        question = about["question"]
        refused, other = free["refused"][question], free["other"][question]
        people = about.get("people") or [about]
        shift = np.mean(
            [
                sum(v for k, v in free["refusal_effects"].items() if matches(k, person["group"]))
                for person in people
            ]
        )
        if 0 < refused < 1:
            refused = float(expit(logit(refused) + shift))
        return refused, min(other, 1 - refused)

    def reply(
        self, prompt: str, choices: Sequence[str], probabilities: np.ndarray, about: Mapping
    ) -> str:
        """The free reply to a question: a refusal, a hedge, or the answer it would give
        constrained (``pick``, the same draw) in one of several phrasings, each fixed by the
        seed, the arm, the prompt and the answer space."""
        asked = (*self._arm(), prompt, *choices)
        draw = _uniform(self.seed, "free", *asked)
        phrasing = _uniform(self.seed, "phrasing", *asked)
        refused, other = self.non_answer_probabilities(about)
        if draw < refused:
            return REFUSALS[int(phrasing * len(REFUSALS))]
        if draw < refused + other:
            return HEDGES[int(phrasing * len(HEDGES))]
        picked = self.pick(prompt, choices, probabilities)
        if draw < refused + other + self.params["free"]["unparsed"][about["question"]]:
            role = about["roles"][picked]
            return UNREADABLE[role] if role in UNREADABLE else PLACES[picked]
        return PHRASINGS[int(phrasing * len(PHRASINGS))].format(answer=choices[picked])

    def _arm(self) -> tuple[str, ...]:
        """What an intervention arm adds to every draw (nothing for the baseline)."""
        return () if self.intervention is None else ("arm", self.intervention)

    def pick(self, prompt: str, choices: Sequence[str], probabilities: np.ndarray) -> int:
        """The index of the choice drawn for this question: fixed by the seed, the arm (none for
        the baseline), the prompt and the answer space."""
        draw = _uniform(self.seed, "answer", *self._arm(), prompt, *choices)
        cumulative = np.cumsum(probabilities)
        return int(min(np.searchsorted(cumulative, draw * cumulative[-1]), len(choices) - 1))


def check_design(
    params: Mapping[str, Any],
    occupations: Sequence[str],
    attribute_of: Mapping[str, str],
    named: Mapping[str, set[str]],
    wordings: Sequence[str],
    where: str,
) -> None:
    """Stop with a one-line message naming the key when a plant names an occupation, group
    value or wording the design lacks, or when Q3's neutral answers take more than all.

    ``attribute_of`` gives each group value of the design its attribute ("female": "gender");
    ``named`` the attributes each contrast of names (by label) names in its groups. The
    respondent sees a person's group as the contrast names it, so a plant on an attribute a
    contrast leaves out would not reach that contrast's answers, and a question two contrasts
    share (the store asks it once) would be answered by whichever contrast asked it first."""
    if 0 < params["name_df"] <= 2:
        raise InputError(
            f"{where}.name_df: {params['name_df']:g} gives the name effects no variance; use 0 "
            "(normal) or a number above 2"
        )
    q3 = params["q3"]
    if q3["both"] + q3["neither"] >= 1:
        raise InputError(
            f"{where}.q3: both + neither is {q3['both'] + q3['neither']:g}, which leaves Q3 no "
            "answer naming a person; keep it under 1"
        )
    _check_free(params["free"], f"{where}.free")
    effect_maps = {f"{where}.step1.effects": params["step1"]["effects"]}
    effect_maps[f"{where}.free.refusal_effects"] = params["free"]["refusal_effects"]
    effect_maps.update(
        {f"{where}.effects.{q}": planted for q, planted in params["effects"].items()}
    )
    for occupation, by_question in params["occupations"].items():
        if occupation not in occupations:
            raise InputError(
                f"{where}.occupations.{occupation}: not an occupation of the design; "
                f"known: {list(occupations)}"
            )
        effect_maps.update(
            {f"{where}.occupations.{occupation}.{q}": e for q, e in by_question.items()}
        )
    for wording, planted in params["wordings"].items():
        if wording not in wordings:
            raise InputError(
                f"{where}.wordings.{wording}: not a wording of the design (prompts.variants: "
                f"{list(wordings)})"
            )
        effect_maps[f"{where}.wordings.{wording}"] = planted
    effect_maps[f"{where}.alignment"] = params["alignment"]
    _check_occupations(params["shares"], occupations, f"{where}.shares")
    for arm, planted in params["interventions"].items():
        effect_maps[f"{where}.interventions.{arm}.effects"] = planted.get("effects", {})
    for path, planted in effect_maps.items():
        for key in planted:
            parts = [key] if key in attribute_of else key.split()
            unknown = [part for part in parts if part not in attribute_of]
            if unknown:
                raise InputError(
                    f"{path}.{key}: {unknown[0]!r} is no group of the design; known: "
                    f"{sorted(attribute_of)}"
                )
            attributes = [attribute_of[part] for part in parts]
            repeated = [a for a in attributes if attributes.count(a) > 1]
            if repeated:
                raise InputError(
                    f"{path}.{key}: gives {repeated[0]} twice ({' and '.join(parts)}); a person "
                    f"has one {repeated[0]}, so name each attribute once"
                )
            for attribute in sorted({attribute_of[part] for part in parts} - {CONTROL}):
                for label, attributes in named.items():
                    if attribute not in attributes:
                        raise InputError(
                            f"{path}.{key}: plants on {attribute}, which the contrast "
                            f"{label!r} leaves out of its groups: its answers would not see "
                            "the plant, and a question it shares with another contrast would "
                            "be answered as whichever asked it first; plant on what every "
                            "contrast names"
                        )


def _check_free(free: Mapping[str, Any], where: str) -> None:
    """Each question's refusals, hedges and unreadable replies leave some answers."""
    for question, refused in free["refused"].items():
        total = refused + free["other"][question] + free["unparsed"][question]
        if total >= 1:
            raise InputError(
                f"{where}: refused + other + unparsed of {question} is {total:g}, which leaves "
                "no answer; keep it under 1"
            )


def _check_occupations(keys: Iterable[str], occupations: Sequence[str], where: str) -> None:
    """Every key is an occupation of the design."""
    for occupation in keys:
        if occupation not in occupations:
            raise InputError(
                f"{where}.{occupation}: not an occupation of the design; known: {list(occupations)}"
            )
