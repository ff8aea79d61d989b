"""The one exception type the pipeline raises for bad input."""


class InputError(ValueError):
    """Bad input: the message names the file, key or value at fault."""
