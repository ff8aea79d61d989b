"""The figures by the values they draw: Fig. 5's points and labels, the attribute gaps drawn,
and the caveats a figure of several models carries."""

from __future__ import annotations

import pandas as pd

from hiremeornot.analysis.stats import ALL_OCCUPATIONS
from hiremeornot.design.contrasts import GENDER_CONTRAST
from hiremeornot.writing.change_figures import by_change
from hiremeornot.writing.figures import MOST_ATTRIBUTES, gap_rows, scatter_points
from hiremeornot.writing.headlines import figure_caveats
from hiremeornot.writing.impact_figure import LOWEST_NAMED, ROWS_PER_OCCUPATION, impact_layout
from tests.helpers.report_tables import REPORT, found, tables


def test_fig5_shares_a_point_between_alike_occupations_and_names_it_by_the_first():
    rows = pd.DataFrame(
        {
            "occupation": ["pilot", "nurse", "judge", "cook"],
            "consistency": [0.5, 0.5, 0.9, 0.1],
            "confirmation": [0.5, 0.5, 0.9, 0.1],
        }
    )
    points = scatter_points(rows).set_index("label")
    assert points["n"].to_dict() == {"cook": 1, "judge": 1, "nurse +1": 2}
    assert points["named"].all()


def test_fig5_names_the_farthest_points_first_and_none_over_another():
    rows = pd.DataFrame(
        {
            "occupation": ["a", "b", "c", "d", "e"],
            # a sits just beside b, which lies farther out (a's label would cover b's); d is
            # the median itself, e beside it
            "consistency": [0.9, 0.92, 0.1, 0.5, 0.45],
            "confirmation": [0.9, 0.9, 0.2, 0.5, 0.5],
        }
    )
    points = scatter_points(rows, named=3).set_index("label")
    assert points["named"].to_dict() == {"a": False, "b": True, "c": True, "d": False, "e": True}


def test_the_attribute_gaps_drawn_leave_out_exact_zeros_and_keep_the_largest():
    count = MOST_ATTRIBUTES + 10
    gaps = pd.DataFrame(
        {
            "occupation": ALL_OCCUPATIONS,
            "attribute": [f"attribute {i}" for i in range(count)],
            "attribute_type": "skill",
            "p_yes_female": [0.5] * count,
            "p_yes_male": [0.5 - 0.01 * i for i in range(count)],
            "gap": [0.01 * i for i in range(count)],
            "low": -1.0,
            "high": 1.0,
        }
    )
    drawn = gap_rows(pd.concat([gaps, gaps.assign(occupation="nurse", gap=0.9)]))
    assert len(drawn) == MOST_ATTRIBUTES
    assert 0 not in drawn["gap"].to_list()  # attribute 0's gap is exactly 0
    assert drawn["gap"].is_monotonic_increasing and drawn["gap"].max() == 0.01 * (count - 1)
    assert drawn["label"].iloc[-1] == f"attribute {count - 1} (skill): 50% vs 16%"


def test_a_figure_of_several_models_says_which_caveat_is_whose():
    one = found(*tables("female_first", 10, "confounded with position"))
    both = found(*tables("female_first+male_first", 10, "differs"))
    lines = figure_caveats({"gpt": one, "claude": both}, GENDER_CONTRAST, REPORT)
    assert "gpt: One listing order (female_first): position and gender are confounded." in lines
    assert "One wording of each question: a difference may not survive rewording." in lines
    assert not any(line.startswith("claude: One listing") for line in lines)


def impact_table(occupations: int) -> pd.DataFrame:
    """Two groups' impact ratios in one question, occupation i at ratio i / occupations."""
    names = [f"job {i:02d}" for i in range(occupations)]
    return pd.DataFrame(
        {
            "question": "q2",
            "group": ["female"] * occupations + ["male"] * occupations,
            "occupation": names * 2,
            "impact_ratio": [i / occupations for i in range(occupations)] * 2,
        }
    )


def test_the_impact_figure_names_every_row_of_a_small_design():
    table = impact_table(3)
    y, ticks, named = impact_layout(table)
    assert list(ticks.values()) == [
        f"{g} · job {i:02d}" for g in ("female", "male") for i in range(3)
    ]
    assert ticks[y[4]] == "male · job 01" and not named.any()


def test_the_impact_figure_draws_each_groups_lowest_ratio_first():
    table = impact_table(3)
    table["impact_ratio"] = [0.9, 0.5, 0.7, 1.0, None, 0.2]  # male's job 01 has no ratio
    y, ticks, _ = impact_layout(table)
    assert list(ticks.values()) == [
        "female · job 01",
        "female · job 02",
        "female · job 00",
        "male · job 02",
        "male · job 00",
        "male · job 01",
    ]
    assert ticks[y[0]] == "female · job 00"


def test_the_impact_figure_names_each_groups_lowest_ratios_at_paper_size():
    table = impact_table(ROWS_PER_OCCUPATION + 50)
    y, ticks, named = impact_layout(table)
    assert ticks == {0.0: "female", 1.0: "male"}
    assert y.between(-0.5, 1.5).all()
    lowest = table[named]
    assert len(lowest) == 2 * LOWEST_NAMED
    assert set(lowest["occupation"]) == {f"job {i:02d}" for i in range(LOWEST_NAMED)}


def test_changes_are_drawn_from_the_largest_change_of_the_difference_the_pooled_row_last():
    changes = pd.DataFrame(
        {
            "occupation": ["nurse", "pilot", "cook", ALL_OCCUPATIONS] * 2,
            "metric": ["difference"] * 4 + ["confirmation"] * 4,
            "change": [0.1, 0.5, -0.3, 0.9, 0.9, -0.9, 0.0, 0.0],
        }
    )
    assert by_change(changes) == ["pilot", "nurse", "cook", ALL_OCCUPATIONS]
    confirmation = changes[changes["metric"] == "confirmation"]
    assert by_change(confirmation) == ["nurse", "cook", "pilot", ALL_OCCUPATIONS]
    assert by_change(changes.iloc[:0]) == []
