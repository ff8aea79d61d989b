"""Every check of the config that can run before any job: the values, the files and folders it
names, and what they must agree on (Snakemake runs ``check_config`` when it builds the DAG)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from hiremeornot.arms import BASELINE, check_interventions
from hiremeornot.asking.backends import model_identity
from hiremeornot.asking.respondent import check_design
from hiremeornot.config import read_yaml, schema, validate_config
from hiremeornot.design.contrasts import CONTROL, NEUTRAL_ROLES, contrast_pairs, control_contrast
from hiremeornot.design.prompts import (
    PAPER,
    check_wordings,
    template_fields,
    wordings,
)
from hiremeornot.errors import InputError
from hiremeornot.inputs.names import (
    GENDERS,
    answer_read_as,
    check_answer_words,
    read_name_list,
)
from hiremeornot.inputs.onet import elements_per_type, read_occupation_titles
from hiremeornot.inputs.workforce import occupation_shares, read_crosswalk, read_shares
from hiremeornot.model_checks import check_model
from hiremeornot.placement import check_paths, check_store_place
from hiremeornot.plan import (
    WORKFORCE_FILE,
    listing_orders,
    name_list_files,
    name_source,
    named_contrasts,
    onet_dir,
    run_contrasts,
    selected_occupations,
    workforce_shares,
)
from hiremeornot.sameness import (
    SET_ASIDE_BUT_CASE,
    content_reading,
    first_twin,
    reading,
    refuse_twins,
    same_text,
)


def check_config_files(paths: Sequence[str | Path], argv: Sequence[str]) -> list[str]:
    """Read every config file Snakemake merged strictly (a key twice in one file is an error
    naming the file, the key and its lines); the warnings to show for the command line
    ``argv``: Snakemake keeps only the last of several ``--config`` flags."""
    for path in paths:
        read_yaml(path)
    flags = [arg for arg in argv if arg in ("--config", "-C") or arg.startswith("--config=")]
    if len(flags) < 2:
        return []
    return [
        f"--config is given {len(flags)} times: Snakemake keeps only the last one's keys and "
        "drops the others (local_data among them?); give every key after one --config"
    ]


def check_config(config: dict, source: str = "config") -> dict:
    """Validate the config and everything it names that can be checked without a model."""
    validate_config(config, source)
    check_paths(config)
    check_store_place(config)
    check_twins(config)
    check_wordings(config["prompts"])
    check_answer_space(config["answers"])
    if config["names"]["list"] not in config["sources"]["names"]:
        raise InputError(
            f"names.list: unknown name list {config['names']['list']!r}; "
            f"known (sources.names): {sorted(config['sources']['names'])}"
        )
    check_orders(config)
    check_control(config)
    check_validity(config["names"])
    if config["local_data"] is not None:
        check_local_data(config)
    for name, settings in config["models"].items():
        check_model(name, settings)
    check_step1_shards(config)
    check_workforce(config)
    check_venvs(config)
    check_simulated(config)
    check_interventions(config)
    return config


def check_workforce(config: dict) -> None:
    """The crosswalk reads as one, and where the share table is at hand (given, or under
    local_data) it reads as one and holds every category the crosswalk names; a share table
    local_data lacks is refused (one to download is checked by its job)."""
    workforce = config["workforce"]
    if workforce["crosswalk"] is None:
        return
    crosswalk = read_crosswalk(workforce["crosswalk"])
    shares = workforce_shares(config)
    if not Path(shares).is_file():
        if workforce["shares"] is None and config["local_data"] is None:
            return
        if workforce["shares"]:
            raise InputError(f"workforce.shares: the share table {shares} does not exist")
        raise InputError(
            f"local_data: the share table {shares} does not exist; add {WORKFORCE_FILE} "
            f"({workforce['url']}), name another in workforce.shares, or set "
            "workforce.crosswalk: null (no alignment)"
        )
    titles = crosswalk["title"].tolist()
    occupation_shares(
        crosswalk, read_shares(shares, workforce["percent_of"]), titles, workforce["crosswalk"]
    )


def check_local_data(config: dict) -> None:
    """The local data folder holds the O*NET release and the name list the config names (a
    release it lacks would otherwise leave the old release's results standing); the release
    rates as many attributes as asked and names each occupation's code as the table does; the
    list reads as one and gives every contrast its pairs."""
    if not Path(config["local_data"]).is_dir():
        raise InputError(f"local_data: folder {config['local_data']!r} does not exist")
    if not Path(onet_dir(config)).is_dir():
        raise InputError(
            f"sources.onet.release: {config['sources']['onet']['release']!r} is not in "
            f"local_data ({onet_dir(config)} does not exist)"
        )
    check_attributes_offered(config)
    check_onet_titles(config)
    missing = [path for path in name_list_files(config) if not Path(path).is_file()]
    folder = Path(config["local_data"], name_source(config)["folder"])
    if missing and folder.is_dir():
        raise InputError(
            f"sources.names.{config['names']['list']}.format: {name_source(config)['format']!r} "
            f"reads {missing[0]}, which its folder {folder} lacks: is it a list of that format?"
        )
    if missing:
        raise InputError(
            f"names.list: {config['names']['list']!r} is not in local_data ({missing[0]} does "
            "not exist)"
        )
    # the names are at hand: read them now (a name file's fault is named before any job), no
    # name may read as an answer word and no control label may be a name
    listed = read_name_list(config["local_data"], name_source(config), config["names"]["list"])
    check_answer_words(listed, config["answers"])
    for contrast in named_contrasts(config).values():  # the names misread are dropped later
        contrast_pairs(listed, contrast, config["names"]["pairs"], config["names"]["seed"])
    if config["control"]["neutral"]:
        names = {reading(name): name for name in listed["name"]}
        for label in config["control"]["labels"]:
            if reading(label) in names:
                raise InputError(
                    f"control.labels: {label!r} is the name {names[reading(label)]!r} "
                    f"of names.list {config['names']['list']!r}: the control would not be neutral"
                )


def check_simulated(config: dict) -> None:
    """A simulated model plants effects only on occupations, groups and wordings of the design,
    and only on attributes every contrast of names names in its groups."""
    attribute_of = dict.fromkeys(GENDERS, "gender") | dict.fromkeys(
        name_source(config)["races"], "race"
    )
    if config["control"]["neutral"]:
        attribute_of |= dict.fromkeys(config["control"]["labels"], CONTROL)
    named = {
        contrast.label: {attribute for attribute, _ in (*contrast.a, *contrast.b)}
        for contrast in named_contrasts(config).values()
    }
    titles = list(selected_occupations(config)["title"])
    for name, settings in config["models"].items():
        if settings["backend"] == "simulated":
            check_design(
                settings["respondent"],
                titles,
                attribute_of,
                named,
                config["prompts"]["variants"],
                f"models.{name}.respondent",
            )


def check_step1_shards(config: dict) -> None:
    """No model splits Step 1 into more jobs than the design can have Step-1 questions (a job
    without a question would still load the model), where the number of pairs is known."""
    pairs = config["names"]["pairs"]
    if pairs == "all":
        return
    bound = (
        pairs
        * len(config["names"]["orders"])
        * 2  # the subjects of a pair
        * 3  # attribute types
        * config["attributes"]["per_type"]
        * len(selected_occupations(config))
        * len(config["prompts"]["variants"])
        * len(run_contrasts(config))
    )
    for name, settings in config["models"].items():
        if settings["step1_shards"] > bound:
            raise InputError(
                f"models.{name}.step1_shards: {settings['step1_shards']} jobs, but this design "
                f"has at most {bound} Step-1 questions; use at most {bound}"
            )


def check_answer_space(answers: dict[str, str]) -> None:
    """The two answers that one question offers side by side must read differently, and no
    answer word may be another answer's own word (``yes: "No"`` would read every answer
    crossed)."""
    for first, second in (("yes", "no"), ("both", "neither")):
        if same_text(answers[first], answers[second]):
            raise InputError(
                f"answers.{first} and answers.{second} read the same ({answers[first]!r}, "
                f"{answers[second]!r}): a question would offer one answer twice"
            )
    words = {
        key: spec["default"]
        for key, spec in schema()["properties"]["answers"]["properties"].items()
    }
    for key, word in answers.items():
        crossed = [other for other, own in words.items() if other != key and same_text(word, own)]
        if crossed:
            raise InputError(
                f"answers.{key}: {word!r} is the word of answers.{crossed[0]} "
                f"({words[crossed[0]]!r}): every {key} would be read as {crossed[0]}"
            )


def check_venvs(config: dict) -> None:
    """Every model's ``venv`` holds a hiremeornot to run its jobs."""
    for name, settings in config["models"].items():
        venv = settings["venv"]
        if venv is not None and not Path(venv, "bin", "hiremeornot").is_file():
            made_by_make = settings["backend"] == "vllm" and Path(venv) == Path(".venv-vllm")
            setup = " (make setup-vllm creates it)" if made_by_make else ""
            raise InputError(f"models.{name}.venv: no {venv}/bin/hiremeornot{setup}")


def check_orders(config: dict) -> None:
    """female_first and male_first name the orders of the gender contrast only, and no order
    is listed twice (a_first and female_first are one order)."""
    gendered = [o for o in config["names"]["orders"] if o in ("female_first", "male_first")]
    for contrast in run_contrasts(config).values():
        listing_orders(config, contrast.sides)
    for contrast in named_contrasts(config).values():
        if gendered and contrast.sides.attribute != "gender":
            raise InputError(
                f"names.orders: {gendered[0]} names an order of the gender contrast; "
                f"{contrast.label} needs a_first / b_first"
            )


def check_validity(names: dict) -> None:
    """The validity questions name the name and nothing else; their answers differ."""
    for key in ("gender_question", "race_question"):
        used = template_fields(names["validity"][key], f"names.validity.{key}", {"name"})
        if used != {"name"}:
            raise InputError(f"names.validity.{key}: the template must use {{name}} and no other")
    if same_text(names["validity"]["female"], names["validity"]["male"]):
        raise InputError("names.validity.female and .male read the same")
    if names["drop_misperceived"] and not names["validate"]:
        raise InputError("names.drop_misperceived needs names.validate: true")


def check_control(config: dict) -> None:
    """The control's labels must read as people, not as answers or as the groups the names
    stand for, and differ from the names' sides' labels (a role may not mean two things)."""
    labels, answers = config["control"]["labels"], config["answers"]
    groups = {reading(value): value for value in (*GENDERS, *name_source(config)["races"])}
    for label in labels:
        key = answer_read_as(label, answers)
        if key is not None:
            raise InputError(f"control.labels: {label!r} reads as answers.{key} ({answers[key]!r})")
        if reading(label) in groups:
            raise InputError(
                f"control.labels: {label!r} is the group {groups[reading(label)]!r} "
                "of the name list: the control's differences would read as that group's"
            )
        if "|" in label:
            raise InputError(f"control.labels: {label!r} contains '|'")
    sides = control_contrast(labels).sides
    if sides.a == sides.b or set(sides.labels) & set(NEUTRAL_ROLES):
        raise InputError(f"control.labels: {labels} do not make two distinct roles")


def check_twins(config: dict) -> None:
    """No list of the config holds one entry twice, and no two entries under two names are one
    (sameness.reading: case, Unicode form, invisible and surrounding spaces aside); the
    interventions run are checked with the instructions (arms.check_interventions)."""
    named = {
        "models": config["models"],
        "prompts.wordings": {PAPER: None, **config["prompts"]["wordings"]},
        "interventions.instructions": {BASELINE: None, **config["interventions"]["instructions"]},
        "sources.names": config["sources"]["names"],
    }
    for where, mapping in named.items():
        refuse_twins(((f"{where}.{key}", key) for key in mapping), "name")
    listed = {
        "occupations.select": config["occupations"]["select"],
        "prompts.variants": config["prompts"]["variants"],
        "control.labels": config["control"]["labels"],
        "names.contrast": config["names"]["contrast"],
        **{
            f"sources.names.{k}.exclude": v.get("exclude", [])
            for k, v in named["sources.names"].items()
        },
        **{
            f"sources.names.{k}.races": v.get("races", [])
            for k, v in named["sources.names"].items()
        },
    }
    for where, items in listed.items():
        if isinstance(items, list):
            texts = [(f"{where}.{index}", item) for index, item in enumerate(items)]
            refuse_twins(entry for entry in texts if isinstance(entry[1], str))
    same_content(
        "prompts.wordings", wordings(config["prompts"]), "templates", "ask the same questions twice"
    )
    same_content(
        "interventions.instructions",
        config["interventions"]["instructions"],
        "texts",
        "be the same arm twice",
    )
    same_content(
        "models",
        {name: model_identity(settings) for name, settings in config["models"].items()},
        "model and answer settings",
        "ask every question twice (to ask a model again later, see hiremeornot drift)",
    )


def same_content(where: str, entries: dict, what: str, consequence: str) -> None:
    """Refuse two entries of ``where`` whose content (a mapping of texts or settings) reads the
    same: they would ``consequence``."""
    texts = ((key, content_reading(value)) for key, value in entries.items())
    twin = first_twin(texts, fold_case=False)
    if twin:
        (first, _), (second, _) = twin
        raise InputError(
            f"{where}.{second}: the same {what} as {where}.{first} ({SET_ASIDE_BUT_CASE}); "
            f"they would {consequence}: give it once"
        )


def config_warnings(config: dict) -> list[str]:
    """What the run can start with but should say before any job: an API key variable not set
    (every job of that model would fail; a plan or an estimate needs no key)."""
    return [
        f"models.{name}: ${settings['api_key_env']} is not set: its jobs will fail until it "
        "holds the API key"
        for name, settings in config["models"].items()
        if settings["backend"] == "openai" and not os.environ.get(settings["api_key_env"])
    ]


def check_attributes_offered(config: dict) -> None:
    """``attributes.per_type`` asks for no more elements of a type than the local O*NET release
    holds (found before any job; a downloaded release is checked by its extraction job)."""
    counts = elements_per_type(onet_dir(config))
    fewest = min(counts, key=counts.__getitem__)
    wanted = config["attributes"]["per_type"]
    if wanted > counts[fewest]:
        held = ", ".join(f"{count} {kind}" for kind, count in counts.items())
        raise InputError(
            f"attributes.per_type: {wanted}, but O*NET {config['sources']['onet']['release']} "
            f"rates {held} elements; use at most {counts[fewest]}"
        )


def check_onet_titles(config: dict) -> None:
    """Each audited occupation's soc_code is in the local O*NET release under the onet_title
    the occupation table gives it (a code copied from another row would audit the wrong job)."""
    official = read_occupation_titles(onet_dir(config))
    release, table = config["sources"]["onet"]["release"], config["occupations"]["table"]
    for row in selected_occupations(config).itertuples():
        title = official.get(row.soc_code)
        if title is None:
            raise InputError(
                f"{table}: {row.title!r} has the soc_code {row.soc_code}, not in O*NET {release}"
            )
        if not same_text(title, row.onet_title):
            raise InputError(
                f"{table}: {row.title!r} has the soc_code {row.soc_code}, which O*NET {release} "
                f"calls {title!r}, but its onet_title says {row.onet_title!r}: one of them is wrong"
            )
