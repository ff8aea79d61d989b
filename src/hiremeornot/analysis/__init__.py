"""The analysis: metrics, statistics, the pooled model, impact ratios, power, validity,
comparisons, wordings, the planted truth and the calibration.

Importing it keeps pandas' strings as Python objects (``mode.string_storage``) rather than in
Arrow arrays, pandas 3's default: the same values under the same dtype ("str"), but on the
small tables the statistics group and join (an audit's hundreds of rows, a model's thousands)
each operation costs about a third less (benchmarks/calibration_speed.py), and the same
numbers come out (tests/test_calibration_reference.py).
"""

import pandas as pd

pd.set_option("mode.string_storage", "python")
