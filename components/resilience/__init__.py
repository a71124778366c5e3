"""Failure handling shared by every external service: the typed errors (each message says what
happened and what to do) and the circuit breakers that make a known-down service fail fast."""
