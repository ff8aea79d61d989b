"""Writing: everything a reader reads. Markdown tables, the summary, the difference tables,
figures, and each report in words. It may import every stage; no stage imports it
(tests/test_imports.py)."""
