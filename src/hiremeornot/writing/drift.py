"""The drift report in words: the verdict, what it rests on, and the changed answers."""

from __future__ import annotations

from typing import Any

import pandas as pd

from hiremeornot.provenance.drift import Drift, findings
from hiremeornot.writing.markdown import markdown_table


def drift_markdown(drift: Drift, examples: int = 10) -> str:
    """The drift report: the verdict (drift.findings) and what it rests on, in words, then the
    tables."""
    f = findings(drift)
    other = drift.stored - drift.current
    lines = [
        f"# Drift check: {drift.model}",
        "",
        _verdict(f, drift.settings.get("temperature")),
        "",
        f"{f['n']} of the {drift.current} answers stored for `{drift.model}` under the config's "
        f"current settings (seed {drift.seed}"
        + (f"; {other} stored under other settings left out" if other else "")
        + f") were asked again of the `{drift.backend}` backend, bypassing the store: nothing "
        f"was written to it. **{f['agree']} of {f['n']} answers agree ({f['rate']:.1%}; 95% "
        f"interval {f['low']:.1%} to {f['high']:.1%}).**",
        "",
        *_probability_lines(f),
        *_served_lines(f, drift),
        _limits(f, drift.settings.get("temperature")),
        "",
    ]
    questions = drift.questions
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


def _verdict(f: dict[str, Any], temperature: float | None) -> str:
    """The verdict's sentence, with what showed drift."""
    shown_by = {
        "sampling": f"{f['agree']} of {f['n']} answers agree where sampling at temperature "
        f"{temperature} alone would give {f['expected_agree']:.1f} (P(as few) = "
        f"{f['sampling_p']:.3g})"
        if f["sampling_p"] is not None
        else "",
        "answers": f"{f['n'] - f['agree']} of {f['n']} answers changed",
        "model id": f"the served model id changed in {f['model_changed']} questions",
        "fingerprint": f"the system fingerprint changed in {f['fingerprint_changed']} questions",
    }
    if f["verdict"] == "drift detected":
        return f"**Drift detected**: {'; '.join(shown_by[r] for r in f['drifted_by'])}."
    if f["verdict"] == "not tested":
        return (
            f"**Drift not tested**: {f['n'] - f['agree']} of {f['n']} answers changed, which "
            f"sampling at temperature {temperature} alone can do; without every choice's stored "
            "log-probability, how many it would change is not known."
        )
    if f["sampling_p"] is not None and f["agree"] < f["n"]:
        agreement = (
            f"{f['agree']} of {f['n']} answers agree, as sampling at temperature {temperature} "
            f"alone gives (expected {f['expected_agree']:.1f}; P(as few) = "
            f"{f['sampling_p']:.3g})"
        )
    else:
        agreement = "every answer agrees with the store"
    return f"**No drift detected** in {f['n']} questions: {agreement}" + (
        " and the server reports the same model." if f["reported"] else "."
    )


def _probability_lines(f: dict[str, Any]) -> list[str]:
    """How far each choice's probability moved."""
    if not f["known"]:
        return ["No question has a log-probability for every choice: no probability change.", ""]
    largest = f["largest"]
    return [
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


def _served_lines(f: dict[str, Any], drift: Drift) -> list[str]:
    """What served the answers then and now, where the server says."""
    if not f["reported"]:
        return [
            f"The `{drift.backend}` backend reports no model id or fingerprint: only the answers "
            "and probabilities are compared (for a local model, a change points to other "
            "weights, libraries, precision or hardware).",
            "",
        ]
    questions = drift.questions
    served = questions.assign(
        stored=[
            _identity(m, p)
            for m, p in zip(
                questions["stored_served_model"], questions["stored_fingerprint"], strict=True
            )
        ],
        now=[
            _identity(m, p)
            for m, p in zip(questions["served_model"], questions["system_fingerprint"], strict=True)
        ],
    )
    return [
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
            served.groupby(["stored", "now"], sort=True).size().reset_index(name="questions")
        ),
    ]


def _limits(f: dict[str, Any], temperature: float | None) -> str:
    """What the check can and cannot tell."""
    return (
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
        "prove unchanged weights."
    )


def _identity(served_model: Any, fingerprint: Any) -> str:
    model = "not reported" if served_model is None or pd.isna(served_model) else served_model
    if fingerprint is None or pd.isna(fingerprint):
        return f"`{model}`" if model != "not reported" else model
    return f"`{model}` (fingerprint `{fingerprint}`)"
