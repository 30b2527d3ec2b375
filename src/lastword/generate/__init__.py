"""Step 5: a generator writes the answer last, over the numbered passages it is given.

Providers live one per module (``generate/anthropic.py`` -> ``AnthropicGenerator``) behind the
``Generator`` protocol; ``make_generator`` picks one by name. Whatever a generator writes goes
through ``lastword.verify`` before anyone sees it.
"""

from lastword.generate.protocol import Draft, GenerationRequest, Generator
from lastword.generate.registry import GENERATORS, make_generator

__all__ = ["GENERATORS", "Draft", "GenerationRequest", "Generator", "make_generator"]
