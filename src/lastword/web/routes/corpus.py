"""The Corpus page: the documents, upload with ingest progress, removal."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import JSONResponse, RedirectResponse, Response

from lastword.store.open import store_exists
from lastword.web.errors import WebError, wants_json
from lastword.web.library import user_scope, visible_documents
from lastword.web.security import Admin, Reader
from lastword.web.uploads import ingest_job, remove_document, save_uploads

router = APIRouter(include_in_schema=False)


@router.get("/corpus")
def corpus_page(request: Request, user: Reader, job: str | None = None) -> Response:
    state = request.app.state.lastword
    documents, info = [], None
    if store_exists(state.settings, state.index_dir):
        with state.open_store() as store:
            info = store.info()
        visible = visible_documents(state, user_scope(state, user))
        documents = sorted(visible, key=lambda d: d.added_at, reverse=True)
        if not user.is_admin:  # a reader's counts are of what they may see
            info = replace(info, documents=len(visible), passages=sum(d.passages for d in visible))
    return request.app.state.templates.TemplateResponse(
        request,
        "corpus.html",
        {
            "documents": documents,
            "info": info,
            "jobs": state.jobs.recent("ingest")[:5] if user.is_admin else [],
            "focus_job": state.jobs.get(job) if job and user.is_admin else None,
            "max_upload_mb": state.config.max_upload_bytes / 1e6,
            "page": "corpus",
        },
    )


@router.post("/corpus/upload")
async def upload(
    request: Request,
    user: Admin,
    files: Annotated[list[UploadFile], File()],
) -> Response:
    state = request.app.state.lastword
    saved = await save_uploads(files, state.config.uploads, state.config.max_upload_bytes)
    label = ", ".join(item.name for item in saved)
    job = state.jobs.submit("ingest", label, user.name, ingest_job(state, [s.path for s in saved]))
    if wants_json(request):
        return JSONResponse(job.to_json(), status_code=202)
    return RedirectResponse(f"/corpus?job={job.id}", status_code=303)


@router.post("/corpus/remove")
def remove(request: Request, _: Admin, doc_id: Annotated[str, Form()]) -> Response:
    state = request.app.state.lastword
    if not remove_document(state, doc_id):
        raise WebError(404, "not_found", "no such document in the index")
    return RedirectResponse("/corpus", status_code=303)


@router.post("/corpus/jobs/{job_id}/cancel")
def cancel_job(request: Request, user: Admin, job_id: str) -> Response:
    """The Corpus page's Cancel button on a queued or running ingest."""
    jobs = request.app.state.lastword.jobs
    job = jobs.get(job_id)
    if job is None or job.kind != "ingest":
        raise WebError(404, "not_found", f"no ingest job {job_id}")
    jobs.cancel(job_id, user.name)
    if wants_json(request):
        return JSONResponse(job.to_json())
    return RedirectResponse(f"/corpus?job={job_id}", status_code=303)
