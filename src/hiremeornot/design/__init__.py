"""The design: contrasts, the dataset of instances, prompts and questions."""
