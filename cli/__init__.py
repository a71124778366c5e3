"""The ``rag`` command: thin wrappers that parse, call the graphs or components, and print."""
