"""Real HTTP servers on 127.0.0.1 that speak each external API's wire format.

Each API module (``anthropic_api.py``, ``openai_chat_api.py``, ``openai_embeddings_api.py``,
``voyage_api.py``, ``brave_api.py``, ``serper_api.py``) builds on ``LocalServer``: it routes
requests to handlers, records every request (so tests can count what left the machine), and
lets a test queue scripted replies (an error body, a 429 with retry-after, a delay to force a
timeout). ``scripted_model.py`` lets a test decide what the "model" behind the Anthropic and
OpenAI servers writes.
"""
