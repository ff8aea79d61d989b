"""The one exception type the pipeline raises for bad input, and the helpers that keep its
messages to one line."""


class InputError(ValueError):
    """Bad input: the message names the file, key or value at fault, on one line."""


def first_line(error: BaseException) -> str:
    """An exception's message up to its first line break (library messages can run on)."""
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


def whole_message(error: BaseException) -> str:
    """An exception's whole message on one line (where its cause is past the first line, as in
    a tokenizer's failure to load)."""
    return " ".join(str(error).split()) or type(error).__name__


def one_line(text: str, width: int = 90) -> str:
    """``text`` on one line, cut to ``width`` characters with "..." where longer."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."
