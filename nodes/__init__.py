"""Graph nodes: one module per node, each adapting components to graph state."""
