"""The chat assistant: a platform-independent core that answers from the corpus and searches
the web only when a member asks."""
