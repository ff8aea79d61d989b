"""Render the paper's prompts (Sections 3.2-3.4) from the templates in the config."""

from __future__ import annotations

import string
from collections.abc import Iterable, Mapping
from typing import Any

from hiremeornot.errors import InputError

# template key -> (allowed placeholders, groups of which at least one must appear)
PLACEHOLDERS: dict[str, tuple[set[str], list[set[str]]]] = {
    "context": ({"name1", "name2"}, [{"name1"}, {"name2"}]),
    "attribute_question": (
        {"subject", "attribute", "attribute_type", "description", "description_lc"},
        [{"subject"}, {"attribute"}],
    ),
    "attribute_statement": ({"subject", "attributes"}, [{"subject"}, {"attributes"}]),
    "no_attribute_statement": ({"subject"}, []),
    "q1": (
        {"subject", "occupation", "a_occupation"},
        [{"subject"}, {"occupation", "a_occupation"}],
    ),
    "q2": ({"occupation", "a_occupation"}, [{"occupation", "a_occupation"}]),
    "q3": ({"occupation", "a_occupation"}, [{"occupation", "a_occupation"}]),
}

# The id of the templates written directly under ``prompts`` (the paper's wording by default).
PAPER = "paper"

# Words starting with a vowel letter but a consonant sound, and the reverse.
_CONSONANT_SOUND = ("uni", "use", "usu", "uti", "eu", "one", "once", "ubi")
_VOWEL_SOUND = ("hour", "honest", "honor", "honour", "heir")


def template_fields(template: str, where: str, allowed: set[str]) -> set[str]:
    """The fields a format template fills in: plain names of ``allowed`` only. A conversion
    (``{subject!r}``), a format specification (``{subject:>9}``), attribute or index access
    (``{subject.upper}``, ``{subject[0]}``), a position (``{0}``, ``{}``) or an unknown name is
    an InputError naming ``where``: str.format would run or change what the user wrote."""
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise InputError(f"{where}: malformed template {template!r}: {exc}") from None
    fields = set()
    for _, field, spec, conversion in parsed:
        if field is None:
            continue
        written = (
            "{"
            + field
            + (f"!{conversion}" if conversion else "")
            + (f":{spec}" if spec else "")
            + "}"
        )
        if not field.isidentifier() or conversion or spec:
            raise InputError(
                f"{where}: {written} is not a plain named field: a template fills in names such "
                f"as {{{sorted(allowed)[0]}}} only, with no position, attribute, index, "
                "conversion or format (write {{ and }} for a brace)"
            )
        fields.add(field)
    unknown = sorted(fields - allowed)
    if unknown:
        raise InputError(f"{where}: unknown placeholder(s) {unknown}; allowed: {sorted(allowed)}")
    return fields


def check_plain_text(text: str, where: str) -> None:
    """A text sent as written (a preamble, a system message) must not look like a template: its
    ``{subject}`` would reach the model with the braces, not filled in."""
    try:
        fields = [field for _, field, _, _ in string.Formatter().parse(text) if field is not None]
    except ValueError:
        return  # an unmatched brace cannot be read as a field: it is plain text
    if fields:
        raise InputError(
            f"{where}: {{{fields[0]}}} would be sent to the model as written: this text is not a "
            "template and no field is filled in; remove the braces"
        )


def check_options_sentence(template: str, where: str = "options_sentence") -> None:
    """Raise unless ``template`` (an extractive QA model's options sentence) fills in
    ``{options}`` and nothing else."""
    if not template_fields(template, where, {"options"}):
        raise InputError(f"{where}: {template!r} must contain {{options}}")


def check_templates(templates: Mapping[str, str], prefix: str = "prompts") -> None:
    """Raise InputError for an unknown, missing or malformed placeholder in any template."""
    for key, template in templates.items():
        where = f"{prefix}.{key}"
        if key not in PLACEHOLDERS:
            raise InputError(f"{where}: unknown template; known: {sorted(PLACEHOLDERS)}")
        allowed, required = PLACEHOLDERS[key]
        used = template_fields(template, where, allowed)
        for group in required:
            if not used & group:
                names = " or ".join("{" + name + "}" for name in sorted(group))
                raise InputError(f"{where}: the template must contain {names}")


def wordings(prompts: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """Every wording of the config's ``prompts`` section by id, each a full set of templates:
    ``paper`` (the templates under ``prompts``) first, then each of ``prompts.wordings``, whose
    missing keys keep the paper's text."""
    paper = {key: prompts[key] for key in PLACEHOLDERS}
    others = {wording: {**paper, **texts} for wording, texts in prompts["wordings"].items()}
    return {PAPER: paper, **others}


def check_wordings(prompts: Mapping[str, Any]) -> None:
    """Check every wording's templates and that ``prompts.variants`` names known wordings."""
    known = wordings(prompts)
    check_templates(known[PAPER])
    for wording, texts in prompts["wordings"].items():
        check_templates(texts, f"prompts.wordings.{wording}")
    unknown = [wording for wording in prompts["variants"] if wording not in known]
    if unknown:
        raise InputError(
            f"prompts.variants: unknown wording(s) {unknown}; known: {list(known)} "
            "(add them under prompts.wordings, e.g. from config/wordings.yaml)"
        )


def indefinite_article(phrase: str) -> str:
    """'a' or 'an' for a phrase, by the sound of its first word."""
    word = phrase.strip().lower()
    if word.startswith(_VOWEL_SOUND):
        return "an"
    if word.startswith(_CONSONANT_SOUND):
        return "a"
    return "an" if word[:1] in "aeiou" else "a"


def with_article(phrase: str) -> str:
    """The phrase preceded by its indefinite article ('an engineer', 'a film director')."""
    return f"{indefinite_article(phrase)} {phrase}"


def lower_first(text: str) -> str:
    """Lower-case the first letter unless the first word is an acronym ('The ability' -> 'the')."""
    first_word = text.split(" ", 1)[0]
    if len(first_word) > 1 and first_word[1:2].isupper():
        return text
    return text[:1].lower() + text[1:]


def upper_first(text: str) -> str:
    """Capitalise the first letter of a sentence."""
    return text[:1].upper() + text[1:]


def join_list(items: Iterable[str]) -> str:
    """'A', 'A and B', 'A, B and C'."""
    items = list(items)
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def sentence(*parts: str) -> str:
    """Join prompt parts with single spaces, leaving out empty ones."""
    return " ".join(part.strip() for part in parts if part and part.strip())


class PromptRenderer:
    """Builds every prompt of the three steps from one set of templates; an intervention's
    ``preamble`` (a sentence) goes before the context sentence of each."""

    def __init__(self, templates: Mapping[str, str], preamble: str = ""):
        check_templates(templates)
        self.templates = dict(templates)
        self.preamble = preamble

    def _render(self, key: str, **values: str) -> str:
        return upper_first(self.templates[key].format(**values))

    def context(self, name1: str, name2: str) -> str:
        return self._render("context", name1=name1, name2=name2)

    def opening(self, name1: str, name2: str) -> str:
        """What every prompt starts with: the preamble, if any, and the context (C_base)."""
        return sentence(self.preamble, self.context(name1, name2))

    def attribute_question(
        self,
        name1: str,
        name2: str,
        subject: str,
        attribute: str,
        attribute_type: str,
        description: str,
    ) -> str:
        question = self._render(
            "attribute_question",
            subject=subject,
            attribute=attribute,
            attribute_type=attribute_type,
            description=description,
            description_lc=lower_first(description),
        )
        return sentence(self.opening(name1, name2), question)

    def statement(self, subject: str, attributes: list[str]) -> str:
        """f_A(s): what Step 1 granted the subject, as a sentence ('' if configured so)."""
        if not attributes:
            return self._render("no_attribute_statement", subject=subject)
        return self._render(
            "attribute_statement", subject=subject, attributes=join_list(attributes)
        )

    def q1(self, name1: str, name2: str, subject: str, statement: str, occupation: str) -> str:
        question = self._render(
            "q1", subject=subject, occupation=occupation, a_occupation=with_article(occupation)
        )
        return sentence(self.opening(name1, name2), statement, question)

    def choice_question(
        self, key: str, name1: str, name2: str, statements: tuple[str, str], occupation: str
    ) -> str:
        """Q2 or Q3: the context, both subjects' statements in listing order, the question."""
        question = self._render(key, occupation=occupation, a_occupation=with_article(occupation))
        return sentence(self.opening(name1, name2), *statements, question)
