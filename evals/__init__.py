"""Benchmarks and evaluation runs: retrieval metrics on BEIR data, ingestion speed."""
