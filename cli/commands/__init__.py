"""The `rag` commands by area, each a typer app that ``cli.main`` merges into the `rag` command.

A command parses its options into a request (``cli.dispatch``), hands it to ``dispatch`` and
prints the result; the work is in the ``cli.*_cmd`` modules, imported when a command runs so
that `rag --help` and a command answered by `rag serve` load none of it.
"""
