import pytest

from hiremeornot.errors import InputError
from hiremeornot.inputs.occupations import read_occupations, select_occupations, shard_titles
from hiremeornot.inputs.onet import extract_attributes, read_occupation_titles, read_ratings
from tests.conftest import OCCUPATIONS_TABLE, SHARED_DATA, needs_data


def unqover_titles():
    lines = (SHARED_DATA / "unqover/word_lists/activities/occupation_rev1").read_text().splitlines()
    return [
        line.split(" was ", 1)[1].split(" ", 1)[1] for line in lines if line.startswith("[p_act] ")
    ]


@needs_data
def test_mapping_covers_every_unqover_title_once():
    table = read_occupations(OCCUPATIONS_TABLE)
    assert list(table["title"]) == unqover_titles()
    assert set(table["match"]) <= {"title", "alternate_title", "judgement", "excluded"}
    excluded = table[table["soc_code"] == ""]
    assert (excluded["match"] == "excluded").all()
    assert (table["reason"].str.len() > 20).all()


@needs_data
def test_every_retained_code_exists_and_has_ratings(onet_dir):
    chosen = select_occupations(OCCUPATIONS_TABLE, "all")
    assert len(chosen) >= 62
    titles = read_occupation_titles(onet_dir)
    for row in chosen.itertuples():
        assert titles[row.soc_code] == row.onet_title, row.title
    codes = sorted(set(chosen["soc_code"]))
    for attribute_type in ("skill", "knowledge", "ability"):
        ratings = read_ratings(onet_dir, attribute_type, codes, suppressed="keep")
        rated = ratings.groupby("soc_code").size()
        assert (rated.reindex(codes, fill_value=0) >= 5).all(), attribute_type
    table = extract_attributes(onet_dir, codes, 5, suppressed="keep")
    assert len(table) == 15 * len(codes)


def test_quotes_in_the_hand_edited_table_are_literal(tmp_path):
    table = read_occupations(OCCUPATIONS_TABLE).set_index("title")
    assert table.loc["accountant", "reason"].endswith('reported title "Accountant".')
    quoted = tmp_path / "occupations.tsv"
    quoted.write_text(
        "\t".join(["title", "soc_code", "onet_title", "match", "reason"])
        + '\nnurse\t29-1141.00\tRegistered Nurses\ttitle\t"Nurse" is an exact alternate.\n'
    )
    assert read_occupations(quoted)["reason"].iloc[0] == '"Nurse" is an exact alternate.'


def test_excluded_title_without_ratings_is_reported():
    table = read_occupations(OCCUPATIONS_TABLE)
    senator = table[table["title"] == "senator"].iloc[0]
    assert senator["soc_code"] == "" and "no" in senator["reason"].lower()
    with pytest.raises(InputError, match="senator"):
        select_occupations(OCCUPATIONS_TABLE, ["nurse", "senator"])


def test_unknown_occupation_is_named():
    with pytest.raises(InputError, match="astrologer"):
        select_occupations(OCCUPATIONS_TABLE, ["nurse", "astrologer"])


def test_selection_keeps_table_order():
    chosen = select_occupations(OCCUPATIONS_TABLE, ["pilot", "nurse"])
    assert list(chosen["title"]) == ["nurse", "pilot"]


def test_shards():
    assert shard_titles(list("abcde"), 2) == [["a", "b"], ["c", "d"], ["e"]]
    assert shard_titles(list("abc"), 0) == [["a", "b", "c"]]
