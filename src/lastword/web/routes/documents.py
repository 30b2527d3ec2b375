"""A document's file for signed-in readers: the Ask page links each passage to its page.

The URL names a digest of the document's id (``reading.file_key``), never a path; only a file
the index records as a document's source is served, inline, under its plain file name, and only
while it is a regular file inside the folder it was ingested from with the document's content
hash (a file swapped for a link to another file is not served).
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import Response

from lastword.web.errors import WebError
from lastword.web.library import user_scope
from lastword.web.reading import SERVED_TYPES, display_name, file_key
from lastword.web.security import Reader

router = APIRouter(include_in_schema=False)

#: a PDF opens in the browser's viewer; nothing in it may load anything else
DOCUMENT_POLICY = "default-src 'none'; object-src 'self'; frame-ancestors 'self'"


@router.get("/documents/{key}")
def document_file(request: Request, user: Reader, key: str) -> Response:
    state = request.app.state.lastword
    if not state.has_index or not key.isalnum():
        raise WebError(404, "not_found", "no such document")
    scope = user_scope(state, user)
    with state.open_store() as store:
        allowed = store.scope_documents(scope)  # a document the reader may not see: "no such"
        document = next(
            (
                d
                for d in store.documents()
                if file_key(d.doc_id) == key and (allowed is None or d.doc_id in allowed)
            ),
            None,
        )
        if document is None:
            raise WebError(404, "not_found", "no such document")
        # every path the document is known at (one file under two names is one document)
        recorded = store.source_paths(document.doc_id)
    shown = document.metadata.get("path") if isinstance(document.metadata, dict) else None
    candidates = [*recorded, (document.source, shown if isinstance(shown, str) else None)]
    for source, relative in candidates:
        media = SERVED_TYPES.get(Path(source).suffix.lower())
        if media is None or not relative:
            continue
        data = verified_file(source, relative, document.content_hash)
        if data is not None:
            name = display_name(document.doc_id, source, document.metadata).rsplit("/", 1)[-1]
            quoted = quote(name)
            plain = quoted == name and '"' not in name
            disposition = (
                f'inline; filename="{name}"' if plain else f"inline; filename*=utf-8''{quoted}"
            )
            return Response(
                data,
                media_type=media,
                headers={
                    "Content-Security-Policy": DOCUMENT_POLICY,
                    "Content-Disposition": disposition,
                },
            )
    raise WebError(404, "not_found", "this document's file is not on the server")


def verified_file(source: str, relative: str, content_hash: str) -> bytes | None:
    """The bytes at ``source`` when it is still the document ingested: a regular file, inside
    the folder it was ingested from (``source`` less its shown path ``relative``), whose
    SHA-256 is the document's. None otherwise: a file replaced by a link to something else,
    or edited since, is never served. The bytes hashed are the bytes served (one open)."""
    path = Path(source)
    parts = PurePosixPath(relative).parts
    if not path.is_absolute() or ".." in parts or tuple(path.parts[-len(parts) :]) != parts:
        return None
    root = Path(*path.parts[: -len(parts)]) if len(parts) < len(path.parts) else None
    try:
        real = path.resolve(strict=True)
        if root is None or not real.is_relative_to(root.resolve(strict=True)):
            return None
        descriptor = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY)
    except (OSError, RuntimeError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return None
        with os.fdopen(descriptor, "rb", closefd=False) as handle:
            data = handle.read()
    except OSError:
        return None
    finally:
        os.close(descriptor)
    return data if hashlib.sha256(data).hexdigest() == content_hash else None
