"""The JSON API: ask, inspect, ingest, eval, jobs. Described at /api/openapi.json.

Bodies are the same ``Result`` JSON that ``lastword ask --json`` prints. Every error is
``{"error": {"kind": ..., "message": ...}}`` with a matching status code.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, File, Request, UploadFile
from pydantic import AfterValidator, BaseModel, Field

from lastword.errors import InputError
from lastword.scope import Scope
from lastword.web.accounts import User
from lastword.web.errors import WebError, valid_unicode
from lastword.web.evaluations import eval_job, evalsets, headline, runs
from lastword.web.library import Filters, restricted_library, user_scope
from lastword.web.security import Admin, Reader
from lastword.web.uploads import ingest_job, save_uploads

router = APIRouter(prefix="/api", tags=["api"])


class ErrorDetail(BaseModel):
    kind: str = Field(description="Machine-readable kind, e.g. 'input', 'unauthenticated'.")
    message: str = Field(description="One clear sentence for a person.")


class ErrorBody(BaseModel):
    error: ErrorDetail


ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": text}
    for status, text in {
        400: "bad input",
        401: "not authenticated",
        403: "not allowed (role or CSRF)",
        413: "upload too large",
        422: "malformed request",
        429: "rate limited",
        503: "no index / provider unavailable",
    }.items()
}


#: text that must be valid Unicode (JSON can smuggle a lone surrogate like "\ud800")
Text = Annotated[str, AfterValidator(valid_unicode)]


class Question(Filters):
    question: Text = Field(description="The question, as a user would type it.")

    def scope(self, request: Request, user: User) -> Scope:
        return user_scope(
            request.app.state.lastword,
            user,
            self.collection,
            self.year,
            self.author,
            self.tag,
            self.doc,
        )


class InspectQuestion(Question):
    k: int | None = Field(None, ge=1, le=100, description="Passages to retrieve.")


class EvalRequest(BaseModel):
    evalset: Text = Field(description="File name of an eval set listed by GET /api/eval.")


@router.post("/ask", responses=ERRORS, summary="Answer from the corpus, or refuse")
def api_ask(request: Request, user: Reader, body: Question) -> dict:
    scope = body.scope(request, user)
    return request.app.state.lastword.pipeline().ask(body.question, scope=scope).to_json_dict()


@router.post("/inspect", responses=ERRORS, summary="Retrieval alone: top-k passages and the band")
def api_inspect(request: Request, user: Reader, body: InspectQuestion) -> dict:
    scope = body.scope(request, user)
    result = request.app.state.lastword.pipeline().inspect(body.question, k=body.k, scope=scope)
    return result.to_json_dict()


@router.post(
    "/ingest", responses=ERRORS, status_code=202, summary="Upload files and ingest them (a job)"
)
async def api_ingest(
    request: Request, user: Admin, files: Annotated[list[UploadFile], File()]
) -> dict:
    state = request.app.state.lastword
    saved = await save_uploads(files, state.config.uploads, state.config.max_upload_bytes)
    label = ", ".join(item.name for item in saved)
    job = state.jobs.submit("ingest", label, user.name, ingest_job(state, [s.path for s in saved]))
    return job.to_json()


@router.get("/eval", responses=ERRORS, summary="Eval sets on offer and the recent runs")
def api_eval_list(request: Request, user: Reader) -> dict:
    state = request.app.state.lastword
    if not user.is_admin and restricted_library(state):
        raise WebError(403, "forbidden", "evaluation reports are for administrators here")
    return {
        "evalsets": sorted(evalsets(state)),
        "runs": [
            {
                "name": run.name,
                "report": f"/evaluation/runs/{run.name}/",
                **(headline(state, run) or {}),
            }
            for run in runs(state)
        ],
    }


@router.post("/eval", responses=ERRORS, status_code=202, summary="Run an eval set (a job)")
def api_eval(request: Request, user: Admin, body: EvalRequest) -> dict:
    state = request.app.state.lastword
    known = evalsets(state)
    if body.evalset not in known:
        raise InputError(f"no eval set named {body.evalset}; GET /api/eval lists them")
    state.pipeline()
    return state.jobs.submit(
        "eval", body.evalset, user.name, eval_job(state, known[body.evalset])
    ).to_json()


@router.get("/jobs/{job_id}", responses=ERRORS, summary="Progress of an ingest or eval job")
def api_job(request: Request, user: Reader, job_id: str) -> dict:
    job = request.app.state.lastword.jobs.get(job_id)
    if job is None or not (user.is_admin or job.owner == user.name):
        raise WebError(404, "not_found", f"no job {job_id}")
    return job.to_json()


@router.post(
    "/jobs/{job_id}/cancel", responses=ERRORS, summary="Cancel a queued or running ingest job"
)
def api_job_cancel(request: Request, user: Admin, job_id: str) -> dict:
    """A queued job never starts; a running ingest stops before its next file, page or batch
    (every batch it committed stays). The job's state becomes ``cancelled``."""
    job = request.app.state.lastword.jobs.get(job_id)
    if job is None:
        raise WebError(404, "not_found", f"no job {job_id}")
    if job.kind != "ingest":
        raise InputError(f"only ingest jobs can be cancelled; {job_id} is a {job.kind} job")
    return request.app.state.lastword.jobs.cancel(job_id, user.name).to_json()
