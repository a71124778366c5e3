"""The non-LLM paths of the LLM nodes: rule-based query analysis (dates, tags, vaults), the
exemplar router, the calibrated graders (context relevance, sentence support, usefulness) and
extractive answers. Each gives a typed verdict with a score and a reason, so a run without a
language model still grades, loops and cites."""
