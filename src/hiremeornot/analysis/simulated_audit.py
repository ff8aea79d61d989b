"""Simulated audits of a design: whole audits drawn from a simulated respondent as the step
tables the workflow writes (AuditSimulator), and a synthetic design to draw them on
(synthetic_design). The calibration (calibration.py) runs the published code on them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from hiremeornot.analysis.truth import Design
from hiremeornot.asking.respondent import QUESTIONS, Respondent
from hiremeornot.design.contrasts import NEUTRAL_ROLES
from hiremeornot.design.questions import STEP1_KEY, step1_rows

NameEffects = tuple[np.ndarray, np.ndarray | None]  # per name; per name x occupation, or none


class AuditSimulator:
    """Draws whole audits of a design from a respondent, as step tables (vectorised)."""

    def __init__(self, respondent: Respondent, design: Design):
        self.respondent, self.design = respondent, design
        sides, instances = design.sides, design.instances
        self.names = pd.Index(pd.unique(instances[list(sides.labels)].to_numpy().ravel()))
        rows = step1_rows(instances, design.attributes, sides)
        distinct = rows.drop_duplicates(STEP1_KEY).reset_index(drop=True)
        self.step1_type = distinct["attribute_type"].to_numpy()
        self.step1_name = self.names.get_indexer(distinct["subject"])
        self.step1_shift = np.array(
            [
                respondent.shift("step1", None, "", design.groups[s])
                for s in distinct[sides.attribute]
            ]
        )
        # each (instance, subject, attribute) row's Step-1 question, and its (instance, person)
        position = np.where(rows["subject"] == rows["name1"], 0, 1)
        instance = pd.Index(instances["instance_id"]).get_indexer(rows["instance_id"])
        self.row_question = pd.MultiIndex.from_frame(distinct[STEP1_KEY]).get_indexer(
            pd.MultiIndex.from_frame(rows[STEP1_KEY])
        )
        self.row_person = 2 * instance + position
        self.people = len(instances) * 2
        self.person_name = self.names.get_indexer(
            np.column_stack([instances["name1"], instances["name2"]]).ravel()
        )
        self.person_side = np.column_stack(
            [instances[f"{sides.attribute}1"], instances[f"{sides.attribute}2"]]
        ).ravel()
        occupation = np.repeat(instances["occupation"].to_numpy(), 2)
        self.occupations = pd.Index(pd.unique(occupation))
        self.person_occupation = self.occupations.get_indexer(occupation)
        self.shifts = {
            (question, wording): np.array(
                [
                    respondent.shift(question, o, wording, design.groups[s])
                    for o, s in zip(occupation, self.person_side, strict=True)
                ]
            )
            for question in QUESTIONS
            for wording in design.wordings
        }

    def name_effects(self, rng: np.random.Generator) -> NameEffects:
        """Fresh effects of the design's names (in ``names`` order), and of each name in each
        occupation (names x ``occupations``; None where the respondent plants none)."""
        params, count = self.respondent.params, len(self.names)
        if params["name_df"] == 0:
            u = rng.normal(0.0, params["name_sd"], count)
        else:
            u = self.respondent.name_quantile(rng.random(count))
        if params["interaction_sd"] == 0:
            return u, None
        return u, rng.normal(0.0, params["interaction_sd"], (count, len(self.occupations)))

    def audit(
        self, rng: np.random.Generator, effects: NameEffects | None = None
    ) -> tuple[pd.DataFrame, pd.DataFrame]:
        """One audit's Step-2 and Step-3 tables (the columns the metrics read), with the name
        ``effects`` (fresh ones by default)."""
        u, own = self.name_effects(rng) if effects is None else effects
        person = u[self.person_name]  # in Q1-Q3, plus the name's own effect in the occupation
        if own is not None:
            person = person + own[self.person_name, self.person_occupation]
        step2, step3 = [], []
        p_grant = self.respondent.step1_yes(self.step1_type, self.step1_shift, u[self.step1_name])
        for wording in self.design.wordings:  # each wording asks Step 1 anew
            granted_question = rng.random(len(p_grant)) < p_grant
            granted = np.bincount(
                self.row_person,
                weights=granted_question[self.row_question],
                minlength=self.people,
            )
            step2.append(self._q1(wording, granted, person, rng))
            step3 += [self._choice(q, wording, person, rng) for q in ("q2", "q3")]
        return pd.concat(step2, ignore_index=True), pd.concat(step3, ignore_index=True)

    def _q1(self, wording: str, granted, u, rng) -> pd.DataFrame:
        p = self.respondent.q1_yes(granted, self.shifts[("q1", wording)], u)
        instances = self.design.instances
        with np.errstate(divide="ignore"):
            return pd.DataFrame(
                {
                    "wording": wording,
                    "instance_id": np.repeat(instances["instance_id"].to_numpy(), 2),
                    "occupation": np.repeat(instances["occupation"].to_numpy(), 2),
                    "subject": np.column_stack([instances["name1"], instances["name2"]]).ravel(),
                    self.design.sides.attribute: self.person_side,
                    "granted": granted.astype(int),
                    "choice": np.where(rng.random(len(p)) < p, "yes", "no"),
                    "logprob_yes": np.log(p),
                    "logprob_no": np.log1p(-p),
                }
            )

    def _choice(self, question: str, wording: str, u, rng) -> pd.DataFrame:
        utility = (self.shifts[(question, wording)] + u).reshape(-1, 2)
        p = self.respondent.choice_probabilities(question, utility[:, 0], utility[:, 1])
        picked = (rng.random((len(p), 1)) > np.cumsum(p, axis=1)[:, :-1]).sum(axis=1)
        sides = self.person_side.reshape(-1, 2)
        roles = np.column_stack([sides, np.tile(NEUTRAL_ROLES, (len(p), 1))])
        instances = self.design.instances
        table = pd.DataFrame(
            {
                "wording": wording,
                "instance_id": instances["instance_id"].to_numpy(),
                "occupation": instances["occupation"].to_numpy(),
                "question": question,
                "choice": roles[np.arange(len(p)), picked],
            }
        )
        with np.errstate(divide="ignore"):
            logp = np.log(p)
        for side in self.design.sides.labels:
            table[f"logprob_{side}"] = np.where(sides[:, 0] == side, logp[:, 0], logp[:, 1])
        for i, role in enumerate(NEUTRAL_ROLES, start=2):
            table[f"logprob_{role}"] = logp[:, i] if question == "q3" else np.nan
        return table


def synthetic_design(
    occupations: Sequence[str],
    names: int,
    *,
    per_type: int = 5,
    both_orders: bool = True,
    wordings: Sequence[str] = ("paper",),
) -> Design:
    """A gender design of ``names`` female and ``names`` male names (F01.., M01..), every pair,
    in both listing orders (or female first only), each occupation with ``per_type`` attributes
    of each type, asked in ``wordings``: what the calibration needs of a design, without the
    data."""
    from hiremeornot.design.contrasts import GENDER
    from hiremeornot.design.dataset import build_instances
    from hiremeornot.inputs.onet import ATTRIBUTE_FILES

    codes = [f"00-{i:04d}.00" for i in range(len(occupations))]
    table = pd.DataFrame({"title": list(occupations), "soc_code": codes})
    pairs = pd.DataFrame(
        [
            (f"F{i:02d}-M{j:02d}", f"F{i:02d}", f"M{j:02d}")
            for i in range(1, names + 1)
            for j in range(1, names + 1)
        ],
        columns=["pair_id", "female", "male"],
    )
    orders = list(GENDER.orders) if both_orders else [GENDER.orders[0]]
    attributes = pd.DataFrame(
        [
            (code, kind, f"{kind[0]}{k}.{code}", f"{kind} {k}")
            for code in codes
            for kind in ATTRIBUTE_FILES
            for k in range(per_type)
        ],
        columns=["soc_code", "attribute_type", "element_id", "attribute"],
    ).assign(description="")
    groups = {"female": {"gender": "female"}, "male": {"gender": "male"}}
    instances = build_instances(table, pairs, orders, GENDER)
    return Design(instances, attributes, GENDER, groups, list(wordings))
