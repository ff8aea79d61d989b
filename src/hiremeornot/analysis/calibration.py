"""Known-answer calibration: many simulated audits of one design, every estimate against its truth.

Each audit draws fresh name effects and fresh answers from the respondent (respondent.py) for
every question of the design (Step 1 shared across occupations as the workflow shares it, Q1
given the attributes Step 1 granted, Q2 and Q3) as the step tables the workflow writes
(simulated_audit.AuditSimulator), and runs the published code on them:
metrics.instance_outcomes, stats.reading_statistics (every reading of the difference at once),
impact.impact_ratios, the Local Law 144 rates and ratios over all occupations
(ll144.ll144_rates), the pooled mixed-effects model (pooled.py; its verdict: "differs" where it
flags an effect) and, against a second respondent on the same names, paired.paired_changes and
rate_changes.paired_rate_changes. Its intervals and verdicts are then set against the planted
truth (truth.py), which never looks at the draws. No Snakemake run, no prompt text, no store; the
audits run in this process or on ``jobs`` worker processes, each from its own random stream.

``calibrate`` returns one row per audit, occupation and published interval (CHECK_COLUMNS) and
one per audit, occupation and reading with the verdict (VERDICT_COLUMNS); ``coverage`` and
``verdict_rates`` summarise them.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits
from tqdm import tqdm

from hiremeornot.analysis import impact, ll144, metrics, paired, pooled, rate_changes, stats
from hiremeornot.analysis.alignment import alignment_checks
from hiremeornot.analysis.simulated_audit import AuditSimulator
from hiremeornot.analysis.stats import ALL_OCCUPATIONS
from hiremeornot.analysis.truth import Design, alignment_truth, planted_truth
from hiremeornot.asking.respondent import Respondent

# the Local Law 144 measures with a planted truth (scoring above the median has none)
LL144_QUESTIONS = {"selection_q1": "q1", "head_to_head_q2": "q2", "head_to_head_q3": "q3"}
CHECK_COLUMNS = ["audit", "occupation", "quantity", "estimate", "low", "high", "truth"]
VERDICT_COLUMNS = ["audit", "occupation", "reading", "difference", "truth", "verdict"]
COVERAGE_COLUMNS = [
    "quantity",
    "checks",
    "coverage",
    "coverage_low",
    "coverage_high",
    "bias",
    "rmse",
    "mean_width",
    "undercovers",
]
# Coverage this far below nominal, beyond Monte-Carlo error, is a failure.
SHORTFALL = 0.02


def _interval_checks(intervals: pd.DataFrame, reading: str) -> pd.DataFrame:
    """The intervals of one reading's statistics as (occupation, quantity, estimate, low, high):
    the difference named by its reading; Confirmation and Consistency once (reading biased)."""
    named = intervals.assign(
        quantity=intervals["metric"].where(
            intervals["metric"] != "difference", f"difference_{reading}"
        )
    )
    if reading != metrics.READINGS[0]:
        named = named[named["metric"] == "difference"]
    return named[["occupation", "quantity", "estimate", "low", "high"]]


# kind -> the (estimate, low, high) columns of the impact table, and of the paired rate changes
IMPACT_INTERVALS = {
    "rate": ["rate", "rate_low", "rate_high"],
    "ratio": ["impact_ratio", "ratio_low", "ratio_high"],
    "lean": ["ratio_lean", None, None],  # how low a ratio reads at a tie: no interval, no truth
}
CHANGE_INTERVALS = {
    kind: [f"{kind}_change", f"{kind}_change_low", f"{kind}_change_high"]
    for kind in ("rate", "ratio")
}


def _impact_checks(
    table: pd.DataFrame,
    intervals: Mapping[str, list[str | None]] = IMPACT_INTERVALS,
    prefix: str = "",
) -> pd.DataFrame:
    """The rate and ratio intervals of an impact table (and the ratios' leans; or, with
    CHANGE_INTERVALS, the paired rate changes') as (occupation, quantity, estimate, low, high),
    the quantity ``<prefix><kind>_<q>_<group>``."""
    parts = []
    for kind, columns in intervals.items():
        part = pd.DataFrame(
            {
                "occupation": table["occupation"],
                "quantity": prefix + kind + "_" + table["question"] + "_" + table["group"],
                **{
                    name: table[column] if column else np.nan
                    for name, column in zip(("estimate", "low", "high"), columns, strict=True)
                },
            }
        )
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def _ll144_checks(selections: pd.DataFrame, groups: Mapping[str, str], report) -> pd.DataFrame:
    """The Local Law 144 rates and ratios over all occupations as checks of the pooled truth,
    ``ll144_<rate|ratio>_<q>_<side>``: the contrast's two sides stand as the one
    characteristic's categories (the sex column of the names table)."""
    names = pd.DataFrame({"name": list(groups), "gender": list(groups.values())})
    rates = ll144.ll144_rates(
        selections,
        names,
        n_resamples=report["bootstrap_resamples"],
        seed=report["seed"],
        confidence=report["confidence"],
        threshold=report["impact_threshold"],
    )
    rates = rates[rates["measure"].isin(LL144_QUESTIONS)]
    checks = _impact_checks(
        rates.assign(
            occupation=ALL_OCCUPATIONS,
            question=rates["measure"].map(LL144_QUESTIONS),
            group=rates["category"],
        )
    )
    return checks.assign(quantity="ll144_" + checks["quantity"])


def _change_checks(changes: pd.DataFrame, rates: pd.DataFrame, reading: str) -> pd.DataFrame:
    """The paired changes (paired.py) and impact's paired rate and ratio changes as (occupation,
    quantity, estimate, low, high): ``change_<metric>``, ``change_<rate|ratio>_<q>_<side>``,
    and ``pooled_`` before each of the pooled rows (covered apart)."""
    metric = changes["metric"].where(changes["metric"] != "difference", f"difference_{reading}")
    named = changes.assign(quantity="change_" + metric).rename(columns={"change": "estimate"})
    checks = pd.concat(
        [
            named[["occupation", "quantity", "estimate", "low", "high"]],
            _impact_checks(rates, CHANGE_INTERVALS, prefix="change_"),
        ],
        ignore_index=True,
    )
    pooled = checks["occupation"] == ALL_OCCUPATIONS
    checks.loc[pooled, "quantity"] = "pooled_" + checks.loc[pooled, "quantity"]
    return checks


def pooled_checks(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The pooled model's intervals and verdicts ("differs" where it flags the effect: BH
    q < alpha across occupations), its reading named ``log_odds_<q>`` like its truth."""
    named = table.assign(quantity="log_odds_" + table["question"])
    checks = named.rename(columns={"log_odds": "estimate"})
    verdicts = named.rename(columns={"log_odds": "difference", "quantity": "reading"}).assign(
        verdict=np.where(named["flagged"], "differs", "inconclusive")
    )
    return (
        checks[["occupation", "quantity", "estimate", "low", "high"]],
        verdicts[["occupation", "difference", "verdict", "reading"]],
    )


def one_audit(
    simulator: AuditSimulator,
    rng: np.random.Generator,
    report: Mapping,
    other: AuditSimulator | None = None,
    with_pooled: bool = True,
    shares: Mapping[str, float] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The published intervals (less truth) and verdicts (less truth) of one simulated audit.
    ``report`` is the config's report section. With ``other`` (a second respondent on the same
    design and the same names), also the paired changes from this one to the other;
    ``with_pooled``: also the pooled model's (about a second an audit); with ``shares`` (the
    occupations' shares of women), also the alignment with the workforce."""
    design = simulator.design
    effects = simulator.name_effects(rng)
    step2, step3 = simulator.audit(rng, effects)
    outcomes = metrics.instance_outcomes(step2, step3, design.instances, design.sides)
    checks, verdicts = [], []
    readings = stats.reading_statistics(outcomes, list(metrics.READINGS), report, design.sides)
    for reading, (intervals, tests) in readings.items():
        checks.append(_interval_checks(intervals, reading))
        verdicts.append(tests[["occupation", "difference", "verdict"]].assign(reading=reading))
    if shares:
        found = alignment_checks(
            outcomes, readings[report["difference"]][1], design.sides, report, shares
        )
        checks.append(found[0])
        verdicts.append(found[1])
    names = design.instances[list(design.sides.labels)]
    groups = {name: side for side in design.sides.labels for name in pd.unique(names[side])}
    selections = impact.contrast_selections(step2, step3, design.instances, groups, design.sides)
    counted = impact.tally(selections)  # summed once, for the ratios and the changes
    table = impact.impact_ratios(
        counted,
        threshold=report["impact_threshold"],
        confidence=report["confidence"],
    )
    checks.append(_impact_checks(table))
    checks.append(_ll144_checks(selections, groups, report))
    if with_pooled:
        model = pooled.pooled_effects(step2, step3, design.instances, design.sides, report)
        model_checks, model_verdicts = pooled_checks(model)
        checks.append(model_checks)
        verdicts.append(model_verdicts)
    if other is not None:
        step2_b, step3_b = other.audit(rng, effects)
        compared = metrics.instance_outcomes(step2_b, step3_b, design.instances, design.sides)
        values = paired.paired_outcomes(outcomes, compared, report["difference"], design.sides)
        changes = paired.paired_changes(values, report, design.sides)
        rates = rate_changes.paired_rate_changes(
            counted,
            impact.contrast_selections(step2_b, step3_b, design.instances, groups, design.sides),
            confidence=report["confidence"],
            alpha=report["alpha"],
            pooled_label=ALL_OCCUPATIONS,
        )
        checks.append(_change_checks(changes, rates, report["difference"]))
    return pd.concat(checks, ignore_index=True), pd.concat(verdicts, ignore_index=True)


def _truth(
    respondent: Respondent, design: Design, shares: Mapping[str, float] | None = None
) -> pd.Series:
    """The planted truth of a design, by (occupation, quantity); the Local Law 144 rates and
    ratios (``ll144_...``) are the pooled ones; with ``shares``, the alignment's slopes."""
    truth = planted_truth(respondent, design)
    if shares:
        truth = pd.concat([truth, alignment_truth(truth, shares, design.sides)])
    truth = truth.set_index(["occupation", "quantity"])["truth"]
    pooled = truth.loc[ALL_OCCUPATIONS]
    pooled = pooled[pooled.index.str.match(r"(rate|ratio)_")].rename(lambda q: f"ll144_{q}")
    return pd.concat([truth, pd.concat({ALL_OCCUPATIONS: pooled})])


def _change_truth(first: pd.Series, second: pd.Series, reading: str) -> pd.Series:
    """The truth of the paired changes from ``first`` to ``second`` (_change_checks' names)."""
    quantities = second.index.get_level_values("quantity")
    kept = quantities.isin(["confirmation", "consistency", f"difference_{reading}"])
    kept |= quantities.str.match(r"(rate|ratio)_q")
    change = (second - first)[kept]
    change = change.rename(index=lambda q: f"change_{q}", level="quantity")
    pooled = change.index.get_level_values(0) == ALL_OCCUPATIONS
    return pd.concat(
        [
            change[~pooled],
            change[pooled].rename(index=lambda q: f"pooled_{q}", level="quantity"),
        ]
    )


def calibrate(
    respondent: Respondent,
    design: Design,
    report: Mapping,
    *,
    audits: int,
    seed: int,
    progress: bool = True,
    other: Respondent | None = None,
    with_pooled: bool = True,
    jobs: int = 1,
    shares: Mapping[str, float] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, float]:
    """``audits`` independent simulated audits: every interval checked (CHECK_COLUMNS), every
    verdict (VERDICT_COLUMNS), and the seconds they took. With ``other``, compare's paired
    changes from ``respondent`` to ``other`` (the same names in both) are checked too;
    ``with_pooled``: the pooled model too; ``shares`` (occupations' shares of women): the
    alignment with the workforce too. Each audit draws from its own stream of ``seed``
    (numpy's SeedSequence spawned per audit), so ``jobs`` processes give the same tables as one."""
    truth = _truth(respondent, design, shares)
    simulators = (
        AuditSimulator(respondent, design),
        None if other is None else AuditSimulator(other, design),
    )
    if other is not None:
        changes = _change_truth(truth, _truth(other, design), report["difference"])
        truth = pd.concat([truth, changes])
    streams = np.random.SeedSequence(seed).spawn(audits)
    start = time.monotonic()
    results = list(
        tqdm(
            _audits(jobs, simulators, report, with_pooled, streams, shares),
            total=audits,
            desc="calibration audits",
            unit="audit",
            disable=not progress,
        )
    )
    seconds = time.monotonic() - start
    checks = pd.concat([checks for checks, _ in results], ignore_index=True)
    checks["truth"] = truth.reindex(
        pd.MultiIndex.from_frame(checks[["occupation", "quantity"]])
    ).to_numpy()
    verdicts = pd.concat([verdicts for _, verdicts in results], ignore_index=True)
    quantity = verdicts["reading"].where(
        verdicts["reading"].str.match(r"log_odds_|alignment_"), "difference_" + verdicts["reading"]
    )
    keys = pd.MultiIndex.from_arrays([verdicts["occupation"], quantity])
    verdicts["truth"] = truth.reindex(keys).to_numpy()
    return checks[CHECK_COLUMNS], verdicts[VERDICT_COLUMNS], seconds


# What every audit of one calibrate call shares (set once in each process that runs audits).
_SHARED: dict = {}


def _share(
    simulators: tuple,
    report: Mapping,
    with_pooled: bool,
    blas_threads: int | None,
    shares: Mapping[str, float] | None = None,
) -> None:
    _SHARED.update(simulators=simulators, report=report, with_pooled=with_pooled, shares=shares)
    if blas_threads:
        threadpool_limits(blas_threads)  # for the rest of this worker's life


def _audit(audit: int, stream: np.random.SeedSequence) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One audit of the shared simulators from its own stream, its rows marked ``audit``."""
    simulator, other = _SHARED["simulators"]
    rng = np.random.default_rng(stream)
    checks, verdicts = one_audit(
        simulator, rng, _SHARED["report"], other, _SHARED["with_pooled"], _SHARED["shares"]
    )
    return checks.assign(audit=audit), verdicts.assign(audit=audit)


def _audits(
    jobs: int,
    simulators: tuple,
    report: Mapping,
    with_pooled: bool,
    streams: list[np.random.SeedSequence],
    shares: Mapping[str, float] | None = None,
) -> Iterator[tuple[pd.DataFrame, pd.DataFrame]]:
    """Each audit's tables, in order, from ``jobs`` worker processes (one: this process)."""
    if jobs <= 1:
        _share(simulators, report, with_pooled, None, shares)
        yield from map(_audit, range(len(streams)), streams)
        return
    shared = (simulators, report, with_pooled, 1, shares)  # one BLAS thread a worker
    chunk = max(1, len(streams) // (8 * jobs))
    with ProcessPoolExecutor(jobs, initializer=_share, initargs=shared) as pool:
        yield from pool.map(_audit, range(len(streams)), streams, chunksize=chunk)


def coverage(checks: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Per quantity kind (the quantity less its side and occupation): the share of intervals
    covering their truth, with a Monte-Carlo interval over audits (audits are independent,
    occupations within one are not), bias and RMSE of the estimate, and the mean width."""
    kinds = checks.dropna(subset=["truth", "low", "high"]).assign(
        covered=lambda t: (t["low"] <= t["truth"] + 1e-12) & (t["truth"] - 1e-12 <= t["high"]),
        error=lambda t: t["estimate"] - t["truth"],
        width=lambda t: t["high"] - t["low"],
    )
    rows = []
    z = _z(confidence)
    for quantity, rows_of in kinds.groupby("quantity", sort=False):
        per_audit = rows_of.groupby("audit")["covered"].mean()
        share = per_audit.mean()
        half = z * per_audit.std(ddof=1) / np.sqrt(len(per_audit)) if len(per_audit) > 1 else np.nan
        rows.append(
            (
                quantity,
                len(rows_of),
                share,
                max(0.0, share - half),
                min(1.0, share + half),
                rows_of["error"].mean(),
                float(np.sqrt((rows_of["error"] ** 2).mean())),
                rows_of["width"].mean(),
            )
        )
    table = pd.DataFrame(rows, columns=COVERAGE_COLUMNS[:-1])
    # the whole Monte-Carlo interval more than SHORTFALL below nominal
    return table.assign(undercovers=table["coverage_high"] < confidence - SHORTFALL)


def _z(confidence: float) -> float:
    from scipy.stats import norm

    return float(norm.ppf((1 + confidence) / 2))


def verdict_rates(
    verdicts: pd.DataFrame, margin: float, *, null_tolerance: float = 1e-9
) -> pd.DataFrame:
    """Per reading and planted truth: how often each verdict was given. ``null`` rows (|truth|
    below ``null_tolerance``) give the false-positive rate; the FDR is the mean over audits of
    the share of false "differs" among an audit's "differs"."""
    table = verdicts.assign(
        null=verdicts["truth"].abs() < null_tolerance,
        differs=verdicts["verdict"] == "differs",
        equivalent=verdicts["verdict"] == "equivalent",
        beyond_margin=verdicts["truth"].abs() > margin,
    )
    rows = []
    rounded = table["truth"].round(4) + 0.0  # no "-0"
    for (reading, truth), group in table.groupby(["reading", rounded], sort=False):
        rows.append(
            {
                "reading": reading,
                "truth": truth,
                "null": bool(group["null"].all()),
                "checks": len(group),
                "differs": group["differs"].mean(),
                "equivalent": group["equivalent"].mean(),
                "inconclusive": (group["verdict"] == "inconclusive").mean(),
            }
        )
    rates = pd.DataFrame(rows)
    fdr = (
        table.groupby(["reading", "audit"])
        .apply(
            lambda g: (g["differs"] & g["null"]).sum() / max(1, g["differs"].sum()),
            include_groups=False,
        )
        .groupby("reading")
        .mean()
    )
    rates["fdr"] = rates["reading"].map(fdr)
    return rates


def worst_false_positive(rates: pd.DataFrame, alpha: float) -> dict | None:
    """The reading with the largest false-positive rate (verdict_rates' ``null`` rows), and
    whether that rate lies above ``alpha``; None where nothing was planted null."""
    null = rates[rates["null"]]
    if null.empty:
        return None
    worst = null.sort_values("differs").iloc[-1]
    rate = float(worst["differs"])
    return {"reading": worst["reading"], "rate": rate, "above_alpha": rate > alpha}


def position_residue(respondent: Respondent, design: Design) -> pd.DataFrame:
    """Per reading, pooled over occupations: the order-balanced truth with the planted position
    effect, with none, and what is left of position (their difference)."""
    quiet = Respondent({**respondent.params, "position": 0.0})
    truths = {}
    for label, which in (("with_position", respondent), ("without_position", quiet)):
        truth = planted_truth(which, design)
        pooled = truth[truth["occupation"] == stats.ALL_OCCUPATIONS].set_index("quantity")["truth"]
        truths[label] = pooled[[f"difference_{r}" for r in metrics.READINGS]]
    table = pd.DataFrame(truths)
    table["left_of_position"] = table["with_position"] - table["without_position"]
    return table.rename_axis("quantity").reset_index()
