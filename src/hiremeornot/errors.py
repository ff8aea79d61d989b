"""The one exception type the pipeline raises for bad input."""


class InputError(ValueError):
    """Bad input: the message names the file, key or value at fault, on one line."""


def first_line(error: BaseException) -> str:
    """An exception's message up to its first line break (library messages can run on)."""
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__
