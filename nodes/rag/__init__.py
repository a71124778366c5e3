"""Nodes of the query graph."""
