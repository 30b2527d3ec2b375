"""Chat platforms: adapters that turn a platform's events into ``Message`` and post ``Reply``.

The chat core (``lastword.chat``) knows no platform; an adapter imports its SDK lazily and is
reached only from the command line (``lastword matrix run``).
"""
