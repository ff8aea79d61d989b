"""The built-in name lists with their groups, the errors that name file and line, and pairs."""

import json

import pytest

from hiremeornot.design.contrasts import GENDER_CONTRAST, contrast_pairs
from hiremeornot.errors import InputError
from hiremeornot.inputs.names import read_name_list, render_upper_case
from tests.conftest import NAME_SOURCES, SHARED_DATA, name_table, needs_data

UNQOVER = {"format": "unqover", "folder": "mine", "url": "-"}


@needs_data
def test_reads_the_gender_only_lists():
    small = name_table("ethical-interventions")
    assert list(small.groupby("gender").size()) == [10, 10]
    assert small["name"].iloc[0] == "Mary" and (small["race"] == "").all()
    assert small.loc[small["gender"] == "male", "name"].iloc[0] == "James"
    assert (
        small["source"].iloc[0].endswith("ethical-interventions/word_lists/nouns/subjects/female:1")
    )
    large = name_table("unqover")
    assert len(large) == 140
    assert list(large["name"][:10]) == list(small["name"][:10])


@needs_data
def test_reads_bloomberg_with_race_and_gender_in_title_case():
    table = name_table("bloomberg")
    assert len(table) == 800
    assert table.groupby(["race", "gender"]).size().eq(100).all()
    assert set(table["race"]) == {"White", "Black", "Asian", "Hispanic"}
    first = table.iloc[0]
    assert (first["name"], first["gender"], first["race"]) == ("Abby Schmidt", "female", "White")
    assert first["source"].endswith("top_womens_names.json ['W'][0]")
    assert "Allyson O'Connell" in set(table["name"])


def test_upper_case_names_are_rendered_as_people_write_them():
    assert render_upper_case("ALLYSON OCONNELL") == "Allyson O'Connell"
    assert render_upper_case("DEASIA BRANCH") == "Deasia Branch"


@needs_data
def test_reads_bbq_first_names_by_gender_and_ethnicity_with_amy_excluded():
    table = name_table("bbq")
    assert table.groupby(["race", "gender"]).size().to_dict() == {
        (race, gender): 10 - (race in ("White", "Asian") and gender == "female")
        for race in ("Arab", "Asian", "Black", "Latino", "White")
        for gender in ("female", "male")
    }
    assert "Amy" not in set(table["name"])
    source = {**NAME_SOURCES["bbq"], "exclude": []}
    with pytest.raises(
        InputError, match=r"vocabulary_proper_names.csv:\d+: 'Amy' repeats .*csv:\d+"
    ):
        read_name_list(SHARED_DATA, source, "bbq")


def write(root, female, male):
    folder = root / "mine" / "word_lists" / "nouns" / "subjects"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "female").write_text(female)
    (folder / "male").write_text(male)
    return folder


def test_empty_gender(tmp_path):
    write(tmp_path, "", "[subj] male | John")
    with pytest.raises(InputError, match="sources.names.mine: no female names"):
        read_name_list(tmp_path, UNQOVER, "mine")


def test_a_repeated_name_is_named_with_both_lines(tmp_path):
    folder = write(tmp_path, "[subj] female | Mary\n[subj] female | Alex", "[subj] male | alex")
    with pytest.raises(InputError) as error:
        read_name_list(tmp_path, UNQOVER, "mine")
    assert str(error.value).startswith(f"{folder}/male:1: 'alex' repeats {folder}/female:2;")


def test_exclude_leaves_a_name_out_and_must_name_one_in_the_list(tmp_path):
    write(
        tmp_path,
        "[subj] female | Mary\n[subj] female | Alex",
        "[subj] male | Alex\n[subj] male | Jo",
    )
    table = read_name_list(tmp_path, {**UNQOVER, "exclude": ["Alex"]}, "mine")
    assert list(table["name"]) == ["Mary", "Jo"]
    with pytest.raises(InputError, match=r"sources.names.mine.exclude: not in the list: \['Bo'\]"):
        read_name_list(tmp_path, {**UNQOVER, "exclude": ["Bo"]}, "mine")


def test_malformed_and_mistagged_lines(tmp_path):
    folder = write(tmp_path, "Mary\n", "[subj] male | John")
    with pytest.raises(InputError, match=r"female:1: expected"):
        read_name_list(tmp_path, UNQOVER, "mine")
    write(tmp_path, "[subj] female | Mary\n[subj] male | John\n", "")
    with pytest.raises(InputError, match=rf"{folder}/female:2: the name is tagged 'male'"):
        read_name_list(tmp_path, UNQOVER, "mine")


def test_a_name_that_starts_or_ends_with_a_hyphen_is_refused(tmp_path):
    folder = write(tmp_path, "[subj] female | Mary-\n", "[subj] male | John")
    with pytest.raises(InputError, match=rf"{folder}/female:1: 'Mary-' is not a name"):
        read_name_list(tmp_path, UNQOVER, "mine")


def test_a_name_file_that_is_not_utf8_is_named_with_its_line(tmp_path):
    folder = write(tmp_path, "", "[subj] male | John")
    (folder / "female").write_bytes(
        "[subj] female | Mary\n[subj] female | Ren\u00e9e".encode("latin-1")
    )
    with pytest.raises(InputError, match=rf"^{folder}/female:2: not UTF-8 \(byte 0xe9"):
        read_name_list(tmp_path, UNQOVER, "mine")


def test_a_name_without_a_declared_group_is_an_error(tmp_path):
    bloomberg = {"format": "bloomberg", "folder": "b", "url": "-", "races": ["White", "Black"]}
    inputs = tmp_path / "b" / "data" / "input"
    inputs.mkdir(parents=True)
    (inputs / "top_mens_names.json").write_text(json.dumps({"W": ["JOHN DOE"]}))
    (inputs / "top_womens_names.json").write_text(json.dumps({"B": ["ANN LEE"], "A": ["MEI LI"]}))
    with pytest.raises(InputError, match=r"top_womens_names.json \['A'\]\[0\]: 'Mei Li' has race"):
        read_name_list(tmp_path, bloomberg, "b")
    (inputs / "top_womens_names.json").write_text(json.dumps({"X": ["ANN LEE"]}))
    with pytest.raises(InputError, match=r"top_womens_names.json \['X'\]: unknown race code"):
        read_name_list(tmp_path, bloomberg, "b")
    (inputs / "top_womens_names.json").write_text(json.dumps({"B": 3}))  # a number, not names
    with pytest.raises(InputError, match=r"top_womens_names.json \['B'\]: expected a list of"):
        read_name_list(tmp_path, bloomberg, "b")
    bbq = {"format": "bbq", "folder": "q", "url": "-", "races": ["White"]}
    (tmp_path / "q" / "templates").mkdir(parents=True)
    rows = (
        "Name,First_last,gender,ethnicity,source,info\nAnn,first,F,White,x,\nBo,first,X,White,x,\n"
    )
    (tmp_path / "q" / "templates" / "vocabulary_proper_names.csv").write_text(rows)
    with pytest.raises(InputError, match=r"vocabulary_proper_names.csv:3: 'Bo' has gender 'X'"):
        read_name_list(tmp_path, bbq, "q")


@needs_data
def test_all_pairs_and_seeded_sample():
    names = name_table("ethical-interventions")
    every = contrast_pairs(names, GENDER_CONTRAST, "all", 0)
    assert len(every) == 100 and every["pair_id"].is_unique
    assert list(every.columns) == ["pair_id", "female", "male"]
    sample = contrast_pairs(names, GENDER_CONTRAST, 7, seed=3)
    assert len(sample) == 7
    assert sample.equals(contrast_pairs(names, GENDER_CONTRAST, 7, seed=3))
    assert not sample.equals(contrast_pairs(names, GENDER_CONTRAST, 7, seed=4))
    assert set(sample["pair_id"]) <= set(every["pair_id"])
    with pytest.raises(InputError, match="101 pairs"):
        contrast_pairs(names, GENDER_CONTRAST, 101, 0)
