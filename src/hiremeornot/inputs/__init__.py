"""Reading the inputs: O*NET, the occupations, the name lists, downloads."""
