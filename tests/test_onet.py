import json
import os
import shutil
import subprocess
import sys

import pandas as pd
import pytest

from hiremeornot.cli import main
from hiremeornot.config import validate_config
from hiremeornot.errors import InputError
from hiremeornot.inputs.occupations import select_occupations
from hiremeornot.inputs.onet import (
    ATTRIBUTE_FILES,
    extract_attributes,
    read_descriptions,
    read_occupation_titles,
    read_ratings,
)
from hiremeornot.tables_io import read_tsv
from tests.conftest import OCCUPATIONS_TABLE, needs_data

pytestmark = needs_data


def test_top_five_per_type_with_descriptions(onet_dir):
    table = extract_attributes(onet_dir, ["29-1141.00"], 5, suppressed="keep")
    assert len(table) == 15
    assert table.groupby("attribute_type").size().to_dict() == {
        "ability": 5,
        "knowledge": 5,
        "skill": 5,
    }
    # Statisticians
    math = extract_attributes(onet_dir, ["15-2041.00"], 5, suppressed="keep")
    assert set(math[math["attribute"] == "Mathematics"]["attribute_type"]) == {"skill", "knowledge"}
    row = math[math["element_id"] == "2.C.4.a"].iloc[0]
    assert row["attribute_type"] == "knowledge"
    assert row["description"].startswith("Knowledge of arithmetic, algebra, geometry")


def test_tie_at_the_cut_off_is_broken_by_level_then_element_id(onet_dir):
    # Registered Nurses: after Social Perceptiveness (4.12), five skills tie at Importance 4.00
    # for the four remaining places.
    ratings = read_ratings(onet_dir, "skill", ["29-1141.00"], suppressed="keep")
    ratings = ratings.set_index("attribute")
    tied = ratings[ratings["importance"] == 4.00]
    assert len(tied) == 5
    skills = extract_attributes(onet_dir, ["29-1141.00"], 5, suppressed="keep")
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


RANKING_SCRIPT = """
import sys
from hiremeornot.inputs.onet import extract_attributes
codes = sys.argv[2].split(",")
table = extract_attributes(sys.argv[1], codes, 5, suppressed="keep")
print(table.sort_values(["soc_code", "attribute_type", "rank"]).to_csv(sep="\\t", index=False))
"""


def test_ranking_is_deterministic_across_processes(onet_dir):
    """The same table from fresh interpreters with different hash seeds and the codes in
    another order: nothing rests on set or dict order within one process."""
    codes = ["29-1141.00", "23-1011.00", "53-2011.00"]
    outputs = [
        subprocess.run(
            [sys.executable, "-c", RANKING_SCRIPT, str(onet_dir), ",".join(order)],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed, order in (("1", codes), ("2", codes[::-1]))
    ]
    assert outputs[0] == outputs[1] and outputs[0].count("\n") > 3 * 2 * 5


def test_unknown_code_is_named(onet_dir):
    with pytest.raises(InputError, match="99-9999.00"):
        extract_attributes(onet_dir, ["99-9999.00"], 5, suppressed="keep")


def test_code_without_ratings_is_an_error_not_a_skip(onet_dir):
    with pytest.raises(InputError, match=r"11-1031\.00.*0 skill"):
        # Legislators: no ratings in 29.3
        extract_attributes(onet_dir, ["11-1031.00"], 5, suppressed="keep")


def _copy_release(onet_dir, tmp_path):
    target = tmp_path / "onet"
    shutil.copytree(onet_dir, target)
    return target


def test_missing_column_names_file_and_column(onet_dir, tmp_path):
    release = _copy_release(onet_dir, tmp_path)
    skills = pd.read_csv(release / "Skills.txt", sep="\t", dtype=str)
    skills.drop(columns=["Data Value"]).to_csv(release / "Skills.txt", sep="\t", index=False)
    with pytest.raises(InputError, match=r"Skills\.txt: missing column\(s\) Data Value"):
        extract_attributes(release, ["29-1141.00"], 5, suppressed="keep")


def test_wrong_delimiter_is_explained(onet_dir, tmp_path):
    release = _copy_release(onet_dir, tmp_path)
    knowledge = pd.read_csv(release / "Knowledge.txt", sep="\t", dtype=str)
    knowledge.to_csv(release / "Knowledge.txt", sep=",", index=False)
    with pytest.raises(InputError, match=r"Knowledge\.txt.*tab-separated"):
        extract_attributes(release, ["29-1141.00"], 5, suppressed="keep")


def test_every_description_is_found(onet_dir):
    descriptions = read_descriptions(onet_dir)
    assert descriptions["2.A.2.a"].startswith("Using logic and reasoning")


def test_trunk_strength_reads_as_onet_means_it(onet_dir):
    # The file holds "The ability ... without ""giving out"" or fatiguing." (CSV quoting).
    assert read_descriptions(onet_dir)["1.A.3.a.4"] == (
        "The ability to use your abdominal and lower back muscles to support part of the body "
        'repeatedly or continuously over time without "giving out" or fatiguing.'
    )


def _no_stray_quotes(text: str) -> bool:
    return '""' not in text and not text.startswith('"') and not text.endswith('"')


def test_no_stray_quotes_in_any_text_of_the_retained_occupations(onet_dir):
    chosen = select_occupations(OCCUPATIONS_TABLE, "all")
    table = extract_attributes(onet_dir, sorted(set(chosen["soc_code"])), 5, suppressed="keep")
    titles = read_occupation_titles(onet_dir)
    texts = [*table["description"], *table["attribute"], *map(titles.get, chosen["soc_code"])]
    stray = [text for text in texts if not _no_stray_quotes(text) or text.count('"') % 2]
    assert stray == []
    assert "Trunk Strength" in set(table["attribute"])  # a quoted description is among them


@pytest.mark.parametrize(
    "file_name", ["Occupation Data.txt", "Content Model Reference.txt", *ATTRIBUTE_FILES.values()]
)
def test_every_onet_file_read_has_one_row_per_line(onet_dir, file_name):
    path = onet_dir / file_name
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert len(read_tsv(path, [], quoted=True)) == len(read_tsv(path, [])) == lines - 1


def _writer_code() -> str:
    chosen = select_occupations(OCCUPATIONS_TABLE, ["writer"])
    return chosen["soc_code"].iloc[0]


def _knowledge(table: pd.DataFrame) -> list[str]:
    return list(table[table["attribute_type"] == "knowledge"]["attribute"])


def test_suppressed_ratings_are_kept_by_default_and_dropped_on_request(onet_dir):
    # Writers and Authors: English Language has Importance 5.00, flagged Recommend Suppress = Y.
    code = _writer_code()
    kept = extract_attributes(onet_dir, [code], 5, suppressed="keep")
    assert _knowledge(kept)[0] == "English Language"
    assert kept.set_index("attribute").loc["English Language", "importance"] == 5.00
    dropped = _knowledge(extract_attributes(onet_dir, [code], 5, suppressed="drop"))
    assert "English Language" not in dropped and "Mathematics" in dropped


def test_keep_and_drop_change_only_the_lists_docs_onet_md_names(onet_dir):
    codes = sorted(set(select_occupations(OCCUPATIONS_TABLE, "all")["soc_code"]))
    kept, dropped = (
        extract_attributes(onet_dir, codes, 5, suppressed=option).set_index(
            ["soc_code", "attribute_type", "rank"]
        )["attribute"]
        for option in ("keep", "drop")
    )
    changed = kept[kept != dropped].index.droplevel("rank").unique().tolist()
    assert changed == [(_writer_code(), "knowledge")]


def test_cli_passes_the_suppressed_option(onet_dir, tmp_path):
    out = tmp_path / "writer.tsv"
    settings = json.dumps({"per_type": 5, "suppressed": "drop"})
    argv = ["attributes", "--settings", settings, "--onet-dir", str(onet_dir)]
    assert main([*argv, "--soc-code", _writer_code(), "--out", str(out)]) == 0
    assert "English Language" not in _knowledge(pd.read_csv(out, sep="\t"))


def test_suppressed_defaults_to_keep_in_the_schema():
    filled = validate_config({"models": {"m": {"backend": "transformers", "model": "x/y"}}})
    assert filled["onet"] == {"suppressed": "keep"}
    with pytest.raises(InputError, match=r"'onet.suppressed'.*'ignore'"):
        validate_config({"models": filled["models"], "onet": {"suppressed": "ignore"}})
