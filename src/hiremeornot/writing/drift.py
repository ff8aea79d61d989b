"""The drift report in words: the verdict, what it rests on, and the changed answers."""

from __future__ import annotations

from typing import Any

import pandas as pd

from hiremeornot.provenance.drift import ALPHA, Drift, findings
from hiremeornot.writing.markdown import markdown_table


def drift_markdown(drift: Drift, examples: int = 10) -> str:
    """The drift report: the verdict and what it rests on, in words, then the tables."""
    f = findings(drift)
    questions = drift.questions
    drifted = []
    temperature = drift.settings.get("temperature")
    if f["agree"] < f["n"] and f["sampling_p"] is not None:
        # at temperature > 0: drift only where fewer agree than sampling alone would give
        if f["sampling_p"] < ALPHA:
            drifted.append(
                f"{f['agree']} of {f['n']} answers agree where sampling at temperature "
                f"{temperature} alone would give {f['expected_agree']:.1f} (P(as few) = "
                f"{f['sampling_p']:.3g})"
            )
    elif f["agree"] < f["n"] and not temperature:
        drifted.append(f"{f['n'] - f['agree']} of {f['n']} answers changed")
    if f["model_changed"]:
        drifted.append(f"the served model id changed in {f['model_changed']} questions")
    if f["fingerprint_changed"]:
        drifted.append(f"the system fingerprint changed in {f['fingerprint_changed']} questions")
    if f["sampling_p"] is not None and f["agree"] < f["n"]:
        agreement = (
            f"{f['agree']} of {f['n']} answers agree, as sampling at temperature {temperature} "
            f"alone gives (expected {f['expected_agree']:.1f}; P(as few) = "
            f"{f['sampling_p']:.3g})"
        )
    else:
        agreement = "every answer agrees with the store"
    if drifted:
        verdict = f"**Drift detected**: {'; '.join(drifted)}."
    elif f["agree"] < f["n"] and f["sampling_p"] is None:
        verdict = (
            f"**Drift not tested**: {f['n'] - f['agree']} of {f['n']} answers changed, which "
            f"sampling at temperature {temperature} alone can do; without every choice's stored "
            "log-probability, how many it would change is not known."
        )
    else:
        verdict = f"**No drift detected** in {f['n']} questions: {agreement}" + (
            " and the server reports the same model." if f["reported"] else "."
        )
    other = drift.stored - drift.current
    lines = [
        f"# Drift check: {drift.model}",
        "",
        verdict,
        "",
        f"{f['n']} of the {drift.current} answers stored for `{drift.model}` under the config's "
        f"current settings (seed {drift.seed}"
        + (f"; {other} stored under other settings left out" if other else "")
        + f") were asked again of the `{drift.backend}` backend, bypassing the store: nothing "
        f"was written to it. **{f['agree']} of {f['n']} answers agree ({f['rate']:.1%}; 95% "
        f"interval {f['low']:.1%} to {f['high']:.1%}).**",
        "",
    ]
    if f["known"]:
        largest = f["largest"]
        lines += [
            f"Each choice's probability, normalised over its answer space, moved by "
            f"{f['mean_change']:.4f} on average and by at most {f['max_change']:.4f} (choice "
            f"{largest['choice']!r} of {largest['prompt'][:80]!r}...), over the {f['known']} "
            "questions whose every choice has a log-probability then and now."
            + (
                f" {f['n'] - f['known']} questions lack one (the backend reports only some "
                "choices' log-probabilities)."
                if f["known"] < f["n"]
                else ""
            ),
            "",
        ]
    else:
        lines += ["No question has a log-probability for every choice: no probability change.", ""]
    if f["reported"]:
        lines += [
            f"The server reported a model id for {f['reported']} of {f['n']} answers. "
            + (
                f"{f['unrecorded']} stored answers predate its recording (no change can be "
                "seen for them). "
                if f["unrecorded"]
                else ""
            )
            + "What served the answers then and now:",
            "",
            markdown_table(
                questions.assign(
                    stored=[
                        _identity(m, p)
                        for m, p in zip(
                            questions["stored_served_model"],
                            questions["stored_fingerprint"],
                            strict=True,
                        )
                    ],
                    now=[
                        _identity(m, p)
                        for m, p in zip(
                            questions["served_model"], questions["system_fingerprint"], strict=True
                        )
                    ],
                )
                .groupby(["stored", "now"], sort=True)
                .size()
                .reset_index(name="questions")
            ),
        ]
    else:
        lines += [
            f"The `{drift.backend}` backend reports no model id or fingerprint: only the answers "
            "and probabilities are compared (for a local model, a change points to other "
            "weights, libraries, precision or hardware).",
            "",
        ]
    lines += [
        "**What this can and cannot tell.** "
        + (
            f"The model is asked at temperature {temperature}: answers are samples, and "
            "disagreement is expected without any drift; it is tested against what sampling "
            "from the stored probabilities would give, which assumes the API samples from "
            "them (sharpened by the temperature). "
            if temperature
            else "At temperature 0 an unchanged model should answer alike, although APIs are "
            "not bit-for-bit deterministic: near ties can flip and probabilities move slightly. "
            if temperature is not None
            else ""
        )
        + (
            f"The sample is {f['n']} questions: agreement in all of them still leaves up to "
            f"{1 - f['low']:.1%} of the store's answers possibly changed (95%). "
            if f["agree"] == f["n"]
            else f"The sample is {f['n']} questions: the interval above says how precisely it "
            "measures the share of the store's answers that would change. "
        )
        + "A model id or fingerprint is what the server claims; an unchanged one does not "
        "prove unchanged weights.",
        "",
    ]
    disagreeing = questions[~questions["agree"]].head(examples)
    if len(disagreeing):
        lines += [
            f"## Changed answers ({len(disagreeing)} of {f['n'] - f['agree']})",
            "",
            markdown_table(
                disagreeing.assign(prompt=[p[:100] for p in disagreeing["prompt"]])[
                    ["prompt", "stored_answer", "answer"]
                ]
            ),
        ]
    return "\n".join(lines)


def _identity(served_model: Any, fingerprint: Any) -> str:
    model = "not reported" if served_model is None or pd.isna(served_model) else served_model
    if fingerprint is None or pd.isna(fingerprint):
        return f"`{model}`" if model != "not reported" else model
    return f"`{model}` (fingerprint `{fingerprint}`)"
