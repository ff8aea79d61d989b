"""Writing: Markdown tables, the summary and reports, figures, the overview."""
