"""The analysis: metrics, statistics, the pooled model, impact ratios, power, validity,
comparisons, wordings, the planted truth and the calibration."""
