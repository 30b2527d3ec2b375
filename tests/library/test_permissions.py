"""Two readers in disjoint collections of the real papers, on every route, on the local store
(its HNSW graph walked) and on PostgreSQL: nothing of a document outside a reader's collections
reaches them: no passage, title, file name, count or file, in answers, refusals, the
Inspector, the Corpus page, evaluation pages, jobs or error messages."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from lastword.settings import Settings, StoreSettings
from lastword.store import open_store
from lastword.web.reading import file_key
from tests.library.conftest import POULTRY
from tests.library.papers_records import PAPERS
from tests.web.conftest import start_uvicorn, stop_uvicorn

POLLY = ("polly", "polly-password-1")  # reads Poultry, through her group
OTTO = ("otto", "otto-password-1")  # reads Other, by name
ADMIN = ("ada", "admin-password-1")

#: a question only the panda paper (Other) answers, and one only a Poultry paper answers
PANDA_Q = "How long is the transition from colostrum to mature milk in the giant panda?"
GARLIC_Q = "What did garlic and holy basil leaf powder do to broiler growth performance?"


@dataclass
class Library:
    base: str
    app: object
    tokens: dict[str, str]
    docs: dict[str, str]  # file name -> doc id


def _titles(collection: set[str]) -> list[str]:
    return [p["title"] for p in PAPERS if p["file"] in collection]


OTHER = {p["file"] for p in PAPERS} - POULTRY


def _prepare(index: Path, settings: StoreSettings) -> dict[str, str]:
    """Split the papers in two collections with readers; build the ANN graph."""
    with open_store(StoreSettings(), index) as reader:
        embedder = reader.embedder
    with open_store(settings, index, write_as=embedder) as store:
        docs = {r.metadata["path"]: r.doc_id for r in store.documents()}
        store.add_to_collection("Poultry", [docs[f] for f in POULTRY])
        store.add_to_collection("Other", [docs[f] for f in OTHER])
        store.set_readers("Poultry", ["group:poultry-lab"])
        store.set_readers("Other", ["user:otto"])
        store.commit()
        store.refresh_derived()
    return docs


@pytest.fixture(scope="module", params=["local", "postgres"])
def library(request, papers_index_built: Path, tmp_path_factory, minilm) -> Iterator[Library]:
    from lastword.web import WebConfig, create_app

    root = tmp_path_factory.mktemp("permissions")
    index = root / "index"
    shutil.copytree(papers_index_built, index, ignore=shutil.ignore_patterns("index.lock"))
    # the graph from the first passage, and every scope through its filtered walk
    store_settings = StoreSettings(ann_min_passages=1, scope_exact_share=0.0)
    docs = _prepare(index, store_settings)
    if request.param == "postgres":
        from lastword.store.copy import copy_index
        from lastword.store.devserver import fresh_schema

        dsn = request.getfixturevalue("postgres_dsn")
        store_settings = StoreSettings(
            backend="postgres", dsn=dsn, schema_name=fresh_schema(), scope_exact_share=0.0
        )
        with open_store(StoreSettings(), index) as source:
            embedder = source.embedder
        with (
            open_store(StoreSettings(), index) as source,
            open_store(store_settings, index, write_as=embedder) as target,
        ):
            copy_index(source, target)
    state_dir = root / "state"
    settings = Settings(store=store_settings)
    settings = settings.model_copy(
        update={"state": settings.state.model_copy(update={"dir": state_dir})}
    )
    web = WebConfig(state_dir=state_dir, settings_path=root / "lastword.toml")
    app = create_app(settings, index, web, embedder=minilm)
    accounts = app.state.lastword.accounts
    for name, password in (POLLY, OTTO):
        accounts.add_user(name, password, role="reader")
    accounts.add_user(*ADMIN, role="admin")
    accounts.set_groups("polly", add=("poultry-lab",))
    tokens = {name: accounts.create_token(name) for name in ("polly", "otto", "ada")}
    server, port = start_uvicorn(app)
    with pytest.MonkeyPatch.context() as patch:
        # the filtered graph walk at this size too (it starts at 100k passages)
        patch.setattr("lastword.store.local_search.SCOPE_WALK_MIN", 0)
        yield Library(f"http://127.0.0.1:{port}", app, tokens, docs)
    stop_uvicorn(server)


def _client(library: Library, who: str) -> httpx.Client:
    headers = {"Authorization": f"Bearer {library.tokens[who]}"}
    return httpx.Client(base_url=library.base, headers=headers, timeout=120)


def _leaks(text: str, hidden: set[str], library: Library) -> list[str]:
    """Anything of the hidden papers found in a response: title, file name, doc id, file key."""
    found = []
    for paper in PAPERS:
        if paper["file"] not in hidden:
            continue
        doc = library.docs[paper["file"]]
        for needle in (paper["title"][:40], paper["file"], doc, file_key(doc)):
            if needle.lower() in text.lower():
                found.append(needle)
    return found


def test_each_reader_is_answered_from_their_collection_only(library: Library):
    with _client(library, "polly") as polly, _client(library, "otto") as otto:
        mine = polly.post("/api/ask", json={"question": GARLIC_Q}).json()
        assert mine["status"] == "answered"
        assert {p["doc_id"] for p in mine["passages"]} <= {library.docs[f] for f in POULTRY}
        assert not _leaks(str(mine), OTHER, library)
        # the panda question, asked by the reader who cannot see the panda paper
        theirs = polly.post("/api/ask", json={"question": PANDA_Q}).json()
        assert theirs["status"] == "refused"
        assert not _leaks(str(theirs), OTHER, library)
        answered = otto.post("/api/ask", json={"question": PANDA_Q}).json()
        assert answered["status"] == "answered"
        assert library.docs["panda_milk.pdf"] in {p["doc_id"] for p in answered["passages"]}
        assert not _leaks(str(answered), POULTRY, library)


def test_inspect_and_lexical_words_stay_inside(library: Library):
    # the panda paper's own rare words: the lexical side would find it first
    words = "Ailuropoda melanoleuca colostrum giant panda milk"
    for who, hidden in (("polly", OTHER), ("otto", POULTRY)):
        with _client(library, who) as client:
            for route in ("/api/inspect", "/api/ask"):
                body = client.post(route, json={"question": words, "k": 20}).json()
                assert not _leaks(str(body), hidden, library), (who, route)
            page = client.get("/inspect", params={"q": words, "k": 20}).text
            assert not _leaks(page, hidden, library), who
            for path in ("/ask", "/ask/result"):
                page = client.get(path, params={"q": words}).text
                assert not _leaks(page, hidden, library), (who, path)


def test_files_of_other_collections_are_not_served(library: Library):
    with _client(library, "polly") as polly:
        own = polly.get(f"/documents/{file_key(library.docs['broiler_garlic_basil.pdf'])}")
        assert own.status_code == 200 and own.content.startswith(b"%PDF")
        other = polly.get(f"/documents/{file_key(library.docs['panda_milk.pdf'])}")
        missing = polly.get(f"/documents/{'0' * 24}")
        assert other.status_code == missing.status_code == 404
        assert other.text == missing.text


def test_corpus_page_lists_and_counts_only_what_the_reader_sees(library: Library):
    with _client(library, "otto") as otto:
        page = otto.get("/corpus").text
        assert not _leaks(page, POULTRY, library)
        assert f'data-documents="{len(OTHER)}"' in page
        for title in _titles(OTHER):
            assert title[:30] in page
    with _client(library, "ada") as admin:
        assert 'data-documents="20"' in admin.get("/corpus").text


def test_filters_name_a_hidden_collection_as_unknown(library: Library):
    with _client(library, "polly") as polly:
        hidden = polly.post("/api/ask", json={"question": PANDA_Q, "collection": ["Other"]})
        absent = polly.post("/api/ask", json={"question": PANDA_Q, "collection": ["Nope"]})
        assert hidden.status_code == absent.status_code == 400
        assert hidden.json()["error"]["message"].replace("Other", "X") == absent.json()["error"][
            "message"
        ].replace("Nope", "X")
        page = polly.get("/ask").text
        assert 'value="Poultry"' in page and 'value="Other"' not in page


def test_scope_refusal_counts_only_what_the_reader_may_see(library: Library):
    with _client(library, "ada") as admin:
        body = admin.post("/api/ask", json={"question": PANDA_Q, "collection": ["Poultry"]})
        refused = body.json()
        assert refused["status"] == "refused"
        assert refused["refusal"]["reason"] in ("weak_in_scope", "outranked_in_scope")
        message = refused["refusal"]["message"]
        assert "the Poultry collection" in message
        assert re.search(r"\d+ documents? elsewhere in the library match", message)
    with _client(library, "polly") as polly:
        # polly's own scope is already all she may see: nothing "elsewhere" is hers to count
        body = polly.post("/api/ask", json={"question": PANDA_Q, "collection": ["Poultry"]})
        refused = body.json()
        assert refused["status"] == "refused"
        assert "elsewhere in the library match." not in refused["refusal"]["message"]
        assert "no document elsewhere" in refused["refusal"]["message"]


def test_evaluation_and_jobs_are_closed_to_readers(library: Library):
    with _client(library, "polly") as polly:
        for path in ("/evaluation", "/evaluation/runs/anything/", "/api/eval"):
            assert polly.get(path).status_code == 403, path
        assert polly.get("/api/jobs/1").status_code == 404
    with _client(library, "ada") as admin:
        assert admin.get("/api/eval").status_code == 200


def test_chat_rooms_answer_from_their_collections_only(library: Library):
    """The chat assistant's scope (``chat_scope``): a room bound to Poultry, a room that is a
    reader of Other, and a room with neither, through the server's own pipeline."""
    from lastword.scope import chat_scope

    pipeline = library.app.state.lastword.pipeline()
    bound = {"!poultry:lab": ["Poultry"]}
    scope, question = chat_scope("!poultry:lab", PANDA_Q, bound)
    refused = pipeline.ask(question, scope=scope)
    assert refused.status.value == "refused"
    assert not _leaks(refused.model_dump_json(), OTHER, library)
    # the bound room asks as reader room:ID, which no collection names: not even Poultry
    assert not refused.passages
    # a room named among Other's readers sees Other
    with library.app.state.lastword.open_store(write=True) as store:
        store.set_readers("Other", ["room:!other:lab"])
        store.commit()
        store.refresh_derived()
    scope, question = chat_scope("!other:lab", f"in the Other collection: {PANDA_Q}", {})
    assert question == PANDA_Q and scope.collections == {"Other"}
    answered = library.app.state.lastword.pipeline().ask(question, scope=scope)
    assert answered.status.value == "answered"
    assert not _leaks(answered.model_dump_json(), POULTRY, library)
    # a room with no binding and no readership sees no restricted collection
    scope, question = chat_scope("!elsewhere:lab", GARLIC_Q, {})
    nothing = library.app.state.lastword.pipeline().ask(question, scope=scope)
    assert nothing.status.value == "refused" and not nothing.passages
