"""Provider SDKs load only when their embedder is built, never on import."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_remote_embedders_does_not_import_their_sdks() -> None:
    code = (
        "import sys, lastword.embed, lastword.embed.voyage, lastword.embed.openai; "
        "print(sorted({'voyageai', 'openai'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
