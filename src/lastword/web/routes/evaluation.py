"""The Evaluation page: the latest reports and a button to run an eval set in the background."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import FileResponse, JSONResponse, RedirectResponse, Response

from lastword.errors import InputError
from lastword.web.errors import WebError, wants_json
from lastword.web.evaluations import (
    eval_job,
    evalset_warnings,
    evalsets,
    headline,
    report_dir,
    run_file,
    runs,
)
from lastword.web.library import restricted_library
from lastword.web.security import Admin, Reader

router = APIRouter(include_in_schema=False)

_REPORT_FILES = {"index.html", "report.md", "roc.png", "risk_coverage.png"}
REPORT_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'self'"
)


def _admins_only_when_restricted(state, user) -> None:  # type: ignore[no-untyped-def]
    """Reports quote passages of every document: with restricted collections, admins only."""
    if not user.is_admin and restricted_library(state):
        raise WebError(403, "forbidden", "evaluation reports are for administrators here")


@router.get("/evaluation")
def evaluation_page(request: Request, user: Reader) -> Response:
    state = request.app.state.lastword
    _admins_only_when_restricted(state, user)
    listed = [(run, headline(state, run)) for run in runs(state)[:20]]
    return request.app.state.templates.TemplateResponse(
        request,
        "evaluation.html",
        {
            "runs": listed,
            "evalsets": sorted(evalsets(state)),
            "evalset_warnings": evalset_warnings(state),
            "jobs": state.jobs.recent("eval")[:5],
            "page": "evaluation",
        },
    )


@router.post("/evaluation/run")
def start_run(request: Request, user: Admin, evalset: Annotated[str, Form()]) -> Response:
    state = request.app.state.lastword
    known = evalsets(state)
    if evalset not in known:
        raise InputError(f"no eval set named {evalset}")
    state.pipeline()  # fail now, not in the background, when there is no index
    job = state.jobs.submit("eval", evalset, user.name, eval_job(state, known[evalset]))
    if wants_json(request):
        return JSONResponse(job.to_json(), status_code=202)
    return RedirectResponse("/evaluation", status_code=303)


@router.get("/evaluation/runs/{name}/")
@router.get("/evaluation/runs/{name}/{file}")
def report_file(request: Request, user: Reader, name: str, file: str = "index.html") -> Response:
    state = request.app.state.lastword
    _admins_only_when_restricted(state, user)
    if file not in _REPORT_FILES:
        raise WebError(404, "not_found", "no such report file")
    folder = report_dir(state, run_file(state, name))
    path = folder / file
    if not path.is_file():
        raise WebError(404, "not_found", "no such report file")
    # A static page: its own inline styles, its images, no scripts at all.
    return FileResponse(path, headers={"Content-Security-Policy": REPORT_POLICY})
