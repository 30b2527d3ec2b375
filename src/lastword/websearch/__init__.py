"""Web search for the chat assistant: providers behind one protocol, keys, limits, floor."""
