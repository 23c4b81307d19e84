"""Reading an agent's question: the entities it names, its time cues and the kinds it hints at (auto mode)."""
