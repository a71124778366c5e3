"""Input and output guardrails (NeMo Guardrails config, Presidio, injection checks)."""
