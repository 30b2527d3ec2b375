"""A document's file for signed-in readers: the Ask page links each passage to its page.

The URL names a digest of the document's id (``reading.file_key``), never a path; only a file
the index records as a document's source is served, inline, under its plain file name.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, Response

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
        documents = {
            d.doc_id: d for d in store.documents() if allowed is None or d.doc_id in allowed
        }
        # every path a document is known at (one file under two names is one document)
        paths = getattr(store, "sources", dict)()
    for doc_id, document in documents.items():
        if file_key(doc_id) != key:
            continue
        candidates = [document.source, *(s for s, d in paths.items() if d == doc_id)]
        for source in candidates:
            path = Path(source)
            media = SERVED_TYPES.get(path.suffix.lower())
            if media is not None and path.is_file():
                name = display_name(doc_id, source, document.metadata).rsplit("/", 1)[-1]
                return FileResponse(
                    path,
                    media_type=media,
                    filename=name,
                    content_disposition_type="inline",
                    headers={"Content-Security-Policy": DOCUMENT_POLICY},
                )
        raise WebError(404, "not_found", "this document's file is not on the server")
    raise WebError(404, "not_found", "no such document")
