import shutil

import pandas as pd
import pytest

from hiremeornot.errors import InputError
from hiremeornot.onet import extract_attributes, read_descriptions, read_ratings


def test_top_five_per_type_with_descriptions(onet_dir):
    table = extract_attributes(onet_dir, ["29-1141.00"], 5)
    assert len(table) == 15
    assert table.groupby("attribute_type").size().to_dict() == {
        "ability": 5,
        "knowledge": 5,
        "skill": 5,
    }
    math = extract_attributes(onet_dir, ["15-2041.00"], 5)  # Statisticians
    assert set(math[math["attribute"] == "Mathematics"]["attribute_type"]) == {"skill", "knowledge"}
    row = math[math["element_id"] == "2.C.4.a"].iloc[0]
    assert row["attribute_type"] == "knowledge"
    assert row["description"].startswith("Knowledge of arithmetic, algebra, geometry")


def test_tie_at_the_cut_off_is_broken_by_level_then_element_id(onet_dir):
    # Registered Nurses: after Social Perceptiveness (4.12), five skills tie at Importance 4.00
    # for the four remaining places.
    ratings = read_ratings(onet_dir, "skill", ["29-1141.00"]).set_index("attribute")
    tied = ratings[ratings["importance"] == 4.00]
    assert len(tied) == 5
    skills = extract_attributes(onet_dir, ["29-1141.00"], 5)
    skills = skills[skills["attribute_type"] == "skill"]
    assert list(skills["attribute"]) == [
        "Social Perceptiveness",
        "Active Listening",
        "Speaking",
        "Critical Thinking",
        "Coordination",
    ]
    # Level orders the tied ones: Active Listening and Speaking (4.25) before Critical Thinking.
    assert tied.loc["Active Listening", "level"] == tied.loc["Speaking", "level"] == 4.25
    assert tied.loc["Critical Thinking", "level"] == 4.12
    # Coordination and Service Orientation tie on Level too: Element ID decides the cut.
    assert tied.loc["Coordination", "level"] == tied.loc["Service Orientation", "level"] == 4.00
    assert tied.loc["Coordination", "element_id"] < tied.loc["Service Orientation", "element_id"]


def test_ranking_is_deterministic(onet_dir):
    codes = ["29-1141.00", "23-1011.00", "53-2011.00"]
    first = extract_attributes(onet_dir, codes, 5)
    pd.testing.assert_frame_equal(first, extract_attributes(onet_dir, codes, 5))


def test_unknown_code_is_named(onet_dir):
    with pytest.raises(InputError, match="99-9999.00"):
        extract_attributes(onet_dir, ["99-9999.00"], 5)


def test_code_without_ratings_is_an_error_not_a_skip(onet_dir):
    with pytest.raises(InputError, match=r"11-1031\.00.*0 skill"):
        extract_attributes(onet_dir, ["11-1031.00"], 5)  # Legislators: no ratings in 29.3


def _copy_release(onet_dir, tmp_path):
    target = tmp_path / "onet"
    shutil.copytree(onet_dir, target)
    return target


def test_missing_column_names_file_and_column(onet_dir, tmp_path):
    release = _copy_release(onet_dir, tmp_path)
    skills = pd.read_csv(release / "Skills.txt", sep="\t", dtype=str)
    skills.drop(columns=["Data Value"]).to_csv(release / "Skills.txt", sep="\t", index=False)
    with pytest.raises(InputError, match=r"Skills\.txt: missing column\(s\) Data Value"):
        extract_attributes(release, ["29-1141.00"], 5)


def test_wrong_delimiter_is_explained(onet_dir, tmp_path):
    release = _copy_release(onet_dir, tmp_path)
    knowledge = pd.read_csv(release / "Knowledge.txt", sep="\t", dtype=str)
    knowledge.to_csv(release / "Knowledge.txt", sep=",", index=False)
    with pytest.raises(InputError, match=r"Knowledge\.txt.*tab-separated"):
        extract_attributes(release, ["29-1141.00"], 5)


def test_every_description_is_found(onet_dir):
    descriptions = read_descriptions(onet_dir)
    assert descriptions["2.A.2.a"].startswith("Using logic and reasoning")
