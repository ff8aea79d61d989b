"""hiremeornot: audit language models for gender stereotypes in hiring decisions."""

__version__ = "0.1.0"
