"""Provenance: the run manifest, the export with its datasheet, the drift check."""
