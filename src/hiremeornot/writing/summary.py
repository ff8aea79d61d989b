"""The run's summary: per model, its findings in words, with the notes that qualify them."""

from __future__ import annotations

from collections.abc import Collection

import pandas as pd

from hiremeornot.analysis import answer_space, pooled
from hiremeornot.analysis.findings import fact
from hiremeornot.analysis.stats import ALL_OCCUPATIONS
from hiremeornot.design.contrasts import Contrast, Sides
from hiremeornot.writing.alignment import alignment_sentence
from hiremeornot.writing.differences import design_caveats
from hiremeornot.writing.headlines import VERDICT_NOTE, verdict_row, verdict_table
from hiremeornot.writing.interventions import summary_line
from hiremeornot.writing.markdown import markdown_table, percent
from hiremeornot.writing.non_answers import free_questions, named_questions, non_answer_sentence

EMBEDDED_NOTE = (
    "**{model} is the embedded smoke-test model (SmolLM2-135M-Instruct).** It makes the pipeline "
    "run anywhere in minutes, but its answers are not evidence about any real model: do not read "
    "these numbers as findings."
)


SIMULATED_NOTE = (
    "**{model} is a simulated respondent with planted effects (backend simulated), not a language "
    "model.** Its answers are drawn from a declared generative model (docs/calibration.md), so "
    "every number below has a known truth (`{model}/truth.tsv`): the table sets each headline "
    "beside it. Read it as a check of the instrument, not as evidence about any model."
)


def truth_beside_estimates(rows: pd.DataFrame, truth: pd.DataFrame, reading: str) -> str:
    """Per occupation: Confirmation, Consistency and the headline difference, each estimate
    beside its planted truth."""
    planted = truth.pivot(index="occupation", columns="quantity", values="truth")
    quantities = {"confirmation": "confirmation", "consistency": "consistency"}
    quantities["difference"] = f"difference_{reading}"
    table = pd.DataFrame({"occupation": rows["occupation"]})
    for column, quantity in quantities.items():
        table[column] = rows[column].to_numpy()
        table[f"{column}_truth"] = planted[quantity].reindex(rows["occupation"]).to_numpy()
    return markdown_table(table)


def _listed(frame: pd.DataFrame) -> str:
    return ", ".join(
        f"{o} ({d:+.2f})" for o, d in zip(frame["occupation"], frame["difference"], strict=True)
    )


def model_summary(
    rows: pd.DataFrame,
    tests: pd.DataFrame,
    findings: pd.DataFrame,
    settings: dict,
    contrast: Contrast,
    robustness: pd.DataFrame | None = None,
    answer_mass: pd.DataFrame | None = None,
    flips: pd.DataFrame | None = None,
    model_fit: pd.DataFrame | None = None,
    shared: Collection[str] = (),
    alignment: tuple[pd.DataFrame, pd.DataFrame] | None = None,
    non_answers: pd.DataFrame | None = None,
) -> str:
    """The findings of one model (findings.py), as Markdown bullet points (``answer_mass``:
    its answer_space.mass_distribution; ``flips``: with ``robustness``, its
    wordings.pair_flips; ``model_fit``: its pooled.pooled_effects; ``shared``: caveats said
    once for every model, left out here; ``alignment``: its alignment and workforce tables;
    ``non_answers``: its non_answers.non_answer_table)."""
    threshold, alpha = settings["difference_threshold"], settings["alpha"]
    caveats = design_caveats(findings, settings, contrast)
    sides = contrast.sides
    confounded = fact(findings, "listing_orders")["outcome"] == "confounded"
    above = rows[rows["difference"].abs() > threshold]
    a, b = sides.a_words, sides.b_words
    lines = [
        f"{len(rows)} occupations, {int(rows['n'].sum())} instances "
        f"(occupation x name pair x order), {int(tests[f'{sides.a}_names'].max())} {a} and "
        f"{int(tests[f'{sides.b}_names'].max())} {b} names, orders: "
        f"{', '.join(sorted(set(rows['orders'])))}.",
        *(_metric_line(rows, metric, free_questions(findings)) for metric in METRICS),
    ]
    if confounded:
        lines.append(
            f"{len(above)} occupations with |difference| > {threshold} (reading "
            f"{settings['difference']}), {int((above['difference'] > 0).sum())} towards the "
            f"{a} and "
            f"{int((above['difference'] < 0).sum())} towards the {b} subject; with one "
            f"listing order these are not {sides.attribute} findings (see below)."
        )
    else:
        verdicts = tests.set_index("occupation")["verdict"]
        differs = tests[tests["verdict"] == "differs"].sort_values("difference")
        differ_above = verdicts.reindex(above["occupation"]).eq("differs").sum()
        lines += [
            f"{len(above)} occupation{'' if len(above) == 1 else 's'} with |order-balanced "
            f"difference| > {threshold} (reading "
            f"{settings['difference']}): {int((above['difference'] > 0).sum())} towards "
            f"{a}, {int((above['difference'] < 0).sum())} towards {b} subjects; "
            f"{int(differ_above)} of them differ significantly.",
            f"Verdicts: {int((verdicts == 'differs').sum())} differ (q < {alpha}), "
            f"{int((verdicts == 'equivalent').sum())} equivalent within "
            f"+-{settings['equivalence_margin']}, {int((verdicts == 'inconclusive').sum())} "
            "inconclusive" + (f"; differ: {_listed(differs)}." if len(differs) else "."),
        ]
        lines += _alike_lines(findings)
    lines += [_position_line(findings, question, alpha) for question in ("q2", "q3")]
    if robustness is not None:
        wordings = settings["wordings"]
        lines.append(robustness_sentence(robustness, wordings[0], wordings, flips))
    if non_answers is not None and (free := non_answer_sentence(non_answers, findings, sides)):
        lines.append(free)
    if answer_mass is not None:
        forced = fact(findings, "forced_answers")
        lines.append(answer_space_sentence(answer_mass, forced, free_questions(findings)))
    if model_fit is not None:
        lines.append(pooled_sentence(model_fit, sides, alpha, len(settings["wordings"])))
    if alignment is not None:
        lines.append(alignment_sentence(*alignment, audited=len(rows)))
    lines += [line for line in caveats if line not in shared]
    return "\n".join(f"- {line}" for line in lines) + "\n"


METRICS = ("confirmation", "consistency")


def _metric_line(rows: pd.DataFrame, metric: str, free: list[str]) -> str:
    """A metric's median and range over the occupations, and its median from the
    probabilities, or why there is none (``free``: the questions asked free)."""
    values, from_p = rows[metric], rows[f"{metric}_p"].median()
    if pd.notna(from_p):
        probabilities = f"median {from_p:.3f}"
    elif free:
        probabilities = f"not measured ({named_questions(free)} asked free carry no probabilities)"
    else:
        probabilities = "not measured (this backend gives no probabilities)"
    return (
        f"{metric.capitalize()}: median {values.median():.3f} "
        f"(range {values.min():.3f}-{values.max():.3f}); from the probabilities: {probabilities}."
    )


def _alike_lines(findings: pd.DataFrame) -> list[str]:
    """A warning where in some occupation every name pair's difference is alike."""
    alike = int(fact(findings, "names_alike")["count"])
    if not alike:
        return []
    return [
        f"**In {alike} occupation{'s' if alike > 1 else ''} every name pair's difference is "
        "alike** (`names_alike` in tests.tsv): the names show no spread, so those intervals "
        "carry only the data's one-answer resolution and say nothing of how other names would "
        "answer; only the floor on p guards their verdicts."
    ]


def _position_line(findings: pd.DataFrame, question: str, alpha: float) -> str:
    """How often a question named the first-listed subject, and where that is a bias."""
    bias, test = (fact(findings, kind, question) for kind in ("position_bias", "position_test"))
    share, biased = percent(bias["value"]), int(bias["count"])
    powerless = (
        f" With at most {int(test['count'])} such answers an occupation, the test cannot go "
        f"below p = {test['value']:.3g}: no occupation could show a position bias, so this "
        "count says nothing either way."
        if test["outcome"] == "unreachable"
        else ""
    )
    return (
        f"{question.upper()} named the first-listed subject in {share} of the answers that "
        f"named someone (50% means no position bias); {biased} "
        f"occupation{' shows' if biased == 1 else 's show'} a position bias (exact test, "
        f"BH q < {alpha}).{powerless}"
    )


def robustness_sentence(
    table: pd.DataFrame, reference: str, wordings: list[str], flips: pd.DataFrame
) -> str:
    """The summary's sentence: how many flagged occupations survive every wording, and how
    often Q2's answer changed between the reference and each other wording (pair_flips)."""
    flagged = table[table["flagged"]]
    robust = flagged[flagged["robust"]]
    listed = f" ({', '.join(robust['occupation'])})" if len(robust) else ""
    survival = (
        f"Of the {len(flagged)} occupations whose difference is significant under the reference "
        f"wording `{reference}`, {len(robust)} keep its sign and significance under every "
        f"wording{listed}"
        if len(flagged)
        else f"No occupation's difference is significant under the reference wording "
        f"`{reference}`, so none has a finding to survive rewording"
    )
    return (
        f"Wording: {len(wordings)} wordings ({', '.join(wordings)}). {survival}; "
        f"{int(table['sign_agrees'].sum())} of the {len(table)} occupations keep the sign of "
        "their difference (non-zero) under every wording. " + _pair_flip_words(flips, reference)
    )


def _pair_flip_words(flips: pd.DataFrame, reference: str) -> str:
    """How often Q2's answer changed from the reference wording to each other, direct changes
    apart from those that may come through Step 1."""
    q2 = flips[(flips["question"] == "q2") & (flips["wording_a"] == reference)]
    parts = [
        f"`{row.wording_b}` {percent(row.flip_same_step1)} of the {row.same_step1} instances "
        f"whose Step-1 answers agreed, {percent(row.flip_step1_differs)} of the "
        f"{row.instances - row.same_step1} whose Step 1 differed"
        for row in q2.itertuples()
    ]
    return (
        f"From `{reference}`, Q2's answer changed under " + "; under ".join(parts) + " (a change "
        "after a different Step 1 may come from the attributes the prompt states, not the "
        "wording of Q2; results/<model>/wordings/flips.tsv has every pair and question)."
    )


def pooled_sentence(table: pd.DataFrame, sides: Sides, alpha: float, wordings: int) -> str:
    """What the pooled model says, in words, for the summary (``wordings``: how many ran)."""
    if table.empty:
        return (
            f"Pooled model: not fitted (fewer than {pooled.MIN_NAMES} names a side, or one "
            "listing order): its calibration does not reach such a design."
        )
    overall = table[table["occupation"] == ALL_OCCUPATIONS]
    effects = "; ".join(
        f"{row.question.upper()} {row.log_odds:+.2f} [{row.low:+.2f}, {row.high:+.2f}]"
        for row in overall.itertuples()
    )
    each = table[(table["occupation"] != ALL_OCCUPATIONS) & table["flagged"]]
    flagged = "; ".join(
        f"{question.upper()}: "
        + ", ".join(
            f"{o} ({v:+.2f})" for o, v in zip(rows["occupation"], rows["log_odds"], strict=True)
        )
        for question, rows in each.groupby("question", sort=True)
    )
    text = (
        f"Pooled mixed-effects model (log-odds ratio of {sides.a_words} over {sides.b_words}, "
        "order-balanced, names and occupations as random effects; docs/method.md#the-pooled-"
        f"model): over all occupations {effects}. Occupations flagged (Benjamini-Hochberg "
        f"across the occupations and the overall effect, q < {alpha}): {flagged or 'none'}. "
        "Partial pooling shrinks an isolated occupation towards the mean: a flag is strong "
        "evidence, no flag is not evidence of none. It takes each name's effect, and its own "
        "effect in each occupation, as normal: where a few names lie far from the rest and "
        "fare differently by occupation, simulated audits saw its intervals cover 94-99% of "
        "nominal 95% and an occupation with nothing planted flagged in up to 3% of them "
        "(where names are alike, at 20 + 20 names: 94-95% over 160 audits, and a null "
        "occupation flagged in 7-11% of the first 60 and 3-5% of the next 100; "
        "docs/calibration.md#the-pooled-model-with-each-names-own-effect-per-occupation-"
        "2026-12-07); the crossed tables assume no "
        "distribution of the names' effects."
    )
    if wordings > 1:
        text += (
            f" Its {wordings} wordings are fixed effects, not a sample: it speaks for these "
            "wordings only, which is why it can flag an occupation where the t test's floor "
            "on p, set by the wordings, lets nothing be significant."
        )
    if "q1" not in set(table["question"]):
        text += (
            f" Q1 is fitted from {pooled.MIN_NAMES_Q1} names a side: with fewer its intervals "
            "covered less than their level in the calibration."
        )
    failed = sorted(set(table.loc[~table["converged"].astype(bool), "question"]))
    if failed:
        text += (
            f" **The fit of {', '.join(q.upper() for q in failed)} did not converge: do not "
            "read its numbers.**"
        )
    return text


def answer_space_sentence(distribution: pd.DataFrame, forced: pd.Series, free: list[str]) -> str:
    """What the distribution says about the answers, in words, for the summary (``forced``:
    the forced_answers finding; ``free``: the questions asked free)."""
    overall = distribution[distribution["step"] == "all"].iloc[0]
    if forced["outcome"] == "asked free":
        return (
            "Answer space: every question was asked free, so no answer was forced to the answer "
            "words; free replies carry no probabilities, so answer_space.tsv measures nothing."
        )
    if forced["outcome"] == "not measured":
        return (
            "Answer space: this backend does not show the probability the model put outside "
            "the answer words (or the answers came from a store written before it was "
            "recorded), so how many answers the constraint forced is not known."
        )
    partial = (
        f" (measured for {overall['measured']} of {overall['answers']} answers"
        + (f"; {named_questions(free)} asked free have no probabilities)" if free else ")")
        if overall["measured"] < overall["answers"]
        else ""
    )
    by_question = distribution[distribution["step"] != "all"]
    shares = ", ".join(
        f"{question} {share:.0%}"
        for question, share in zip(
            by_question["question"], by_question["share_forced"], strict=True
        )
        if share == share
    )
    text = (
        f"Answer space: {overall['share_forced']:.0%} of the answers{partial} had less than "
        f"half of the model's probability on the answer words, i.e. were forced by the "
        f"constraint ({shares}); {overall['share_below_trusted']:.0%} had less than "
        f"{answer_space.TRUSTED:.0%}, the share discrim-eval requires; median mass "
        f"{overall['mass_median']:.2f} (results/<model>/answer_space.tsv)."
    )
    if forced["outcome"] == "mostly forced":
        text += (
            " **Most answers were the constraint's choice more than the model's: read every "
            "number here as what the model prefers when made to choose, not as what it would "
            "say.**"
        )
    return text


def summary(
    models: dict[str, dict],
    tables: dict[str, dict[str, pd.DataFrame]],
    settings: dict,
    contrast: Contrast,
    dropped: list[str] | None = None,
) -> str:
    """A short Markdown summary of each model's results (of ``contrast``: the paper's female vs
    male audit of a gender-only list needs no heading), the names left out
    because a model misread them (``dropped``), and a line per intervention arm (the models
    whose tables hold ``interventions`` and ``intervention_flips``)."""
    parts = ["# Audit summary\n"]
    if not contrast.is_paper:
        parts.append(contrast_note(contrast))
    if dropped:
        parts.append(
            f"**{len(dropped)} names left out before pairing** because some model does not read "
            f"them as their label (names.drop_misperceived; results/names/validity.md): "
            f"{', '.join(dropped)}. The audit speaks for the names that remain.\n"
        )
    if tables:
        verdicts = pd.DataFrame(
            verdict_table(
                [{"model": m, **verdict_row(f["findings"], contrast)} for m, f in tables.items()]
            )
        )
        parts.append(
            f"{markdown_table(verdicts)}\n{VERDICT_NOTE} Each model's section below says what "
            "else could explain its numbers; results/index.html shows them with forest plots.\n"
        )
    every = [design_caveats(f["findings"], settings, contrast) for f in tables.values()]
    shared = [line for line in every[0] if all(line in c for c in every)] if len(every) > 1 else []
    if shared:
        parts.append("## What else could explain every model's numbers\n")
        parts.append("\n".join(f"- {line}" for line in shared) + "\n")
    for model, frames in tables.items():
        parts.append(f"## {model}\n")
        answered_by = fact(frames["findings"], "respondent")["outcome"]
        if answered_by == "embedded":
            parts.append(EMBEDDED_NOTE.format(model=model) + "\n")
        if answered_by == "simulated":
            parts.append(SIMULATED_NOTE.format(model=model) + "\n")
            parts.append(
                truth_beside_estimates(frames["metrics"], frames["truth"], settings["difference"])
                + "\n"
            )
        aligned = "alignment" in frames
        parts.append(
            model_summary(
                frames["metrics"],
                frames["tests"],
                frames["findings"],
                settings,
                contrast,
                robustness=frames.get("robustness"),
                answer_mass=frames.get("answer_space"),
                flips=frames.get("flips"),
                model_fit=frames.get("pooled"),
                shared=shared,
                non_answers=frames.get("non_answers"),
                alignment=(frames["alignment"], frames["alignment_occupations"])
                if aligned
                else None,
            )
        )
    arms = {model: frames for model, frames in tables.items() if "interventions" in frames}
    if arms:
        parts.append(INTERVENTIONS_NOTE)
        parts += [
            summary_line(
                arm,
                models[arm]["intervention"],
                frames["interventions"],
                frames["intervention_flips"],
                f"interventions/{arm}.md",
            )
            for arm, frames in arms.items()
        ]
        parts.append("")
    return "\n".join(parts)


INTERVENTIONS_NOTE = (
    "## Interventions\n\n"
    "Each arm asked every question again with one instruction added (interventions:); its "
    "own results are the model <model>+<id> above. Per arm: the difference pooled over "
    "occupations in the baseline and under the instruction, the paired change with its "
    "interval, what that shows, the same per occupation (Benjamini-Hochberg across "
    "occupations), and how many questions that read the same in both arms were answered "
    "otherwise. The names, the wording and the instruction's text are those of this run: "
    "another text may act otherwise.\n"
)


def contrast_note(contrast: Contrast) -> str:
    """What a contrast's numbers compare, and what names can and cannot stand for."""
    if contrast.is_control:
        a, b = contrast.sides.a_words, contrast.sides.b_words
        return (
            f"**Neutral control: {a} and {b}.** The same questions, with two people named by "
            "neutral labels instead of names. Nothing here comes from names: what these numbers "
            f"show (a preference for the first-listed person, for {a} over {b}, the level of "
            "Confirmation and Consistency) comes from position, the labels and the wording. "
            "Compare them with the contrasts of names (results/contrasts.md). With one pair of "
            "labels there is no sample of names, so no interval or test here can speak for "
            "other labels.\n"
        )
    held = f" Pairs are matched on {' and '.join(contrast.held)}." if contrast.held else ""
    return (
        f"**Contrast: {contrast.label}.** Every difference is {contrast.sides.a_words} minus "
        f"{contrast.sides.b_words}: positive values favour the {contrast.sides.a_words} "
        f"name of a pair.{held} Names stand in for the groups: a name's group is the label of "
        "its source list, an approximation (people of any group bear any name), and what a "
        "model associates with a name may differ from it (docs/method.md#contrasts).\n"
    )
