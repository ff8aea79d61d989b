"""Who holds each job: the share table, the crosswalk, and their faults named before any job."""

from __future__ import annotations

import pandas as pd
import pytest

from hiremeornot.checks import check_config
from hiremeornot.config import validate_config
from hiremeornot.design.contrasts import contrasts, control_contrast
from hiremeornot.errors import InputError
from hiremeornot.inputs.occupations import read_occupations
from hiremeornot.inputs.workforce import (
    MATCHES,
    NOT_IN_CROSSWALK,
    occupation_shares,
    read_crosswalk,
    read_shares,
)
from hiremeornot.plan import WORKFORCE_FILE, aligned
from tests.conftest import OCCUPATIONS_TABLE, REPO, SHARED_DATA, needs_data

CROSSWALK = REPO / "resources" / "workforce_crosswalk.tsv"
SHARES = SHARED_DATA / WORKFORCE_FILE
HEADER = "Job Category\tPercentage Male\n"


def write(tmp_path, text: str, name: str = "shares.tsv"):
    path = tmp_path / name
    path.write_text(text)
    return path


@needs_data
def test_the_default_share_table_reads_as_shares_of_women():
    shares = read_shares(SHARES, "men").set_index("category")["share_women"]
    assert len(shares) == 320
    assert shares["Secretaries"] == pytest.approx(1 - 0.047)
    assert shares.between(0, 1).all()


def test_percentages_of_women_are_read_as_given(tmp_path):
    path = write(tmp_path, "job\twomen %\nNurses\t90\nPilots\t4.5\n")
    shares = read_shares(path, "women").set_index("category")["share_women"]
    assert shares.to_dict() == pytest.approx({"Nurses": 0.9, "Pilots": 0.045})


@pytest.mark.parametrize(
    "text, message",
    [
        (HEADER.replace("\n", "\tExtra\n") + "Nurses\t10\t1\n", "3 column(s)"),
        ("Job Category,Percentage Male\nNurses,10\n", "1 column(s)"),
        (HEADER, "no rows under the header"),
        (HEADER + "Nurses\tten\n", "'Nurses' has percentage 'ten'"),
        (HEADER + "Nurses\t101\n", "a number from 0 to 100"),
        (HEADER + "Nurses\t-1\n", "a number from 0 to 100"),
        (HEADER + "\t50\n", "needs a category"),
        (HEADER + "Nurses\t10\nnurses \t12\n", "shares.tsv:3"),
    ],
)
def test_a_bad_share_table_is_refused_naming_file_and_row(tmp_path, text, message):
    with pytest.raises(InputError, match="shares.tsv") as error:
        read_shares(write(tmp_path, text), "men")
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_the_crosswalk_gives_every_title_of_the_occupation_table_once_with_a_reason():
    crosswalk = read_crosswalk(CROSSWALK)
    assert crosswalk["title"].tolist() == read_occupations(OCCUPATIONS_TABLE)["title"].tolist()
    assert set(crosswalk["match"]) <= set(MATCHES)
    assert (crosswalk["reason"].str.len() > 20).all()


@needs_data
def test_every_category_of_the_crosswalk_is_in_the_share_table():
    crosswalk = read_crosswalk(CROSSWALK)
    shares = read_shares(SHARES, "men")
    table = occupation_shares(crosswalk, shares, crosswalk["title"].tolist(), str(CROSSWALK))
    assert table.loc[table["match"] != "none", "share_women"].notna().all()
    assert table.loc[table["match"] == "none", "share_women"].isna().all()
    nurse = table.set_index("occupation").loc["nurse"]
    assert nurse["match"] == "exact" and nurse["share_women"] > 0.85


CROSSWALK_HEADER = "title\tcategory\tmatch\treason\n"


@pytest.mark.parametrize(
    "row, message",
    [
        ("nurse\tNurses\tperfect\tsame job\n", "match 'perfect' of 'nurse' is not one of"),
        ("nurse\tNurses\tnone\tsame job\n", "'nurse' is none but names a category"),
        ("nurse\t\tclose\tsame job\n", "'nurse' is 'close' but has no category"),
        ("nurse\tNurses\texact\t \n", "no reason given for 'nurse'"),
        ("nurse\tNurses\texact\tsame\nNurse\tNurses\texact\tsame\n", "the title 'Nurse'"),
    ],
)
def test_a_bad_crosswalk_is_refused_naming_its_row(tmp_path, row, message):
    path = write(tmp_path, CROSSWALK_HEADER + row, "crosswalk.tsv")
    with pytest.raises(InputError, match="crosswalk.tsv:") as error:
        read_crosswalk(path)
    assert message in str(error.value)


def test_a_category_the_share_table_lacks_is_refused_and_a_title_it_lacks_is_unmatched(tmp_path):
    shares = pd.DataFrame({"category": ["Nurses"], "share_women": [0.9]})
    path = write(tmp_path, CROSSWALK_HEADER + "pilot\tPilots\texact\tsame job\n", "cw.tsv")
    with pytest.raises(InputError, match=r"cw.tsv:2: category 'Pilots' of 'pilot' is not in"):
        occupation_shares(read_crosswalk(path), shares, ["pilot"], str(path))
    path = write(tmp_path, CROSSWALK_HEADER + "nurse\tNurses\texact\tsame job\n", "cw.tsv")
    table = occupation_shares(read_crosswalk(path), shares, ["nurse", "pilot"], str(path))
    pilot = table.set_index("occupation").loc["pilot"]
    assert pilot["match"] == "none" and pilot["reason"].startswith(NOT_IN_CROSSWALK)


def config(**workforce):
    return validate_config(
        {
            "local_data": str(SHARED_DATA),
            "occupations": {"table": str(OCCUPATIONS_TABLE)},
            "workforce": {"crosswalk": str(CROSSWALK), **workforce},
            "models": {"b": {"backend": "simulated", "model": "b"}},
        }
    )


@needs_data
def test_faults_of_the_workforce_block_are_named_before_any_job(tmp_path):
    check_config(config())
    bad = write(tmp_path, HEADER + "Registered nurses\t9\n")
    with pytest.raises(InputError, match="is not in the share table"):
        check_config(config(shares=str(bad)))
    with pytest.raises(InputError, match="workforce.shares"):
        check_config(config(shares=str(tmp_path / "gone.tsv")))
    crosswalk = write(tmp_path, CROSSWALK_HEADER + "nurse\tNurses\tgood\tx\n", "cw.tsv")
    with pytest.raises(InputError, match="match 'good'"):
        check_config(config(crosswalk=str(crosswalk)))
    check_config(config(crosswalk=None))  # no alignment: nothing to read


def test_only_contrasts_of_women_against_men_are_set_against_the_workforce():
    config = {"workforce": {"crosswalk": str(CROSSWALK)}}
    races = ["White", "Black", "Hispanic"]
    # female minus male within each race: each gets its own alignment
    assert [aligned(config, c) for c in contrasts("gender", races)] == [True] * 3
    assert not any(aligned(config, c) for c in contrasts("race", races))
    both = contrasts(
        [{"a": {"race": "Black", "gender": "female"}, "b": {"race": "White", "gender": "male"}}],
        races,
    )
    assert not aligned(config, both[0])  # race and gender differ: no share of one group
    assert not aligned(config, control_contrast(["Person A", "Person B"]))
    assert not aligned({"workforce": {"crosswalk": None}}, contrasts("gender", [])[0])
