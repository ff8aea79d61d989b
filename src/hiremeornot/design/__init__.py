"""The design: contrasts, the dataset of instances, prompts, questions and the run's estimate."""
