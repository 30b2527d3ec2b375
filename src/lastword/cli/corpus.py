"""Corpus commands: ingest, inspect, sources (filled in next)."""
