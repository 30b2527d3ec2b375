"""A local stand-in for ``POST https://api.voyageai.com/v1/embeddings`` speaking its wire format.

Request (as the ``voyageai`` client sends it)::

    {"input": [...], "model": "voyage-3", "input_type": "document"|"query"|null,
     "truncation": true, "output_dtype": null, "output_dimension": null,
     "encoding_format": "base64"|null}

Response: ``{"object": "list", "data": [{"object": "embedding", "embedding": [...] | "<b64>",
"index": i}], "model": ..., "usage": {"total_tokens": N}}``. Errors are ``{"detail": "..."}``
with Voyage's status codes (400 bad request, 401 bad key, 429 rate limit, 5xx). The limits the
real API enforces (1,000 texts, a token budget per request) are enforced here too, so a client
that batches wrongly fails against this server as it would against the real one.
"""

from __future__ import annotations

import base64

from tests.servers.base import LocalServer, Reply, Request
from tests.servers.hashed_embeddings import count_tokens, hashed_embedding

MODELS: dict[str, int] = {"voyage-3": 1024, "voyage-3-lite": 512, "voyage-3-large": 1024}
MAX_TEXTS = 1000
MAX_BATCH_TOKENS = 120_000
CONTEXT_TOKENS = 32_000


def voyage_error(status: int, detail: str, retry_after: str | None = None) -> Reply:
    """An error reply as Voyage sends it; ``retry_after`` sets the Retry-After header."""
    headers = {"retry-after": retry_after} if retry_after is not None else {}
    return Reply(status, {"detail": detail}, headers=headers)


def rate_limited(retry_after: str | None = None) -> Reply:
    return voyage_error(
        429,
        "You have exceeded your rate limit. Please reduce the frequency of your requests.",
        retry_after,
    )


class VoyageAPI:
    """The embeddings endpoint. ``models`` maps model name to output dimension."""

    def __init__(self, api_key: str, models: dict[str, int] | None = None) -> None:
        self.api_key = api_key
        self.models = dict(models or MODELS)

    def server(self) -> LocalServer:
        return LocalServer({("POST", "/v1/embeddings"): self.embeddings})

    def embeddings(self, request: Request) -> Reply:
        if request.header("authorization") != f"Bearer {self.api_key}":
            return voyage_error(401, "Provided API key is invalid.")
        try:
            body = request.json()
        except ValueError:
            return voyage_error(400, "Request body is not valid JSON.")
        model = body.get("model")
        if model not in self.models:
            supported = ", ".join(sorted(self.models))
            return voyage_error(
                400, f"Model {model} is not supported. Supported models are [{supported}]."
            )
        texts = body.get("input")
        if isinstance(texts, str):
            texts = [texts]
        if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
            return voyage_error(400, "Input must be a non-empty string or list of strings.")
        if len(texts) > MAX_TEXTS:
            return voyage_error(
                400, f"The batch size limit is {MAX_TEXTS}. Your batch size is {len(texts)}."
            )
        input_type = body.get("input_type")
        if input_type not in (None, "query", "document"):
            return voyage_error(
                400, f"Value '{input_type}' supplied for argument 'input_type' is not valid."
            )
        per_text = [count_tokens(t) for t in texts]
        if body.get("truncation", True):
            per_text = [min(n, CONTEXT_TOKENS) for n in per_text]
        elif max(per_text) > CONTEXT_TOKENS:
            return voyage_error(400, f"Input text exceeds the context length of {CONTEXT_TOKENS}.")
        total = sum(per_text)
        if total > MAX_BATCH_TOKENS:
            return voyage_error(
                400,
                f"Request to model '{model}' failed. The max allowed tokens per submitted batch "
                f"is {MAX_BATCH_TOKENS}. Your batch has {total} tokens after truncation. "
                "Please lower the number of tokens in the batch.",
            )
        dim = self.models[model]
        as_base64 = body.get("encoding_format") == "base64"
        data = []
        for index, text in enumerate(texts):
            vector = hashed_embedding(text, dim, flavour=input_type).astype("<f4")
            embedding = (
                base64.b64encode(vector.tobytes()).decode("ascii") if as_base64 else vector.tolist()
            )
            data.append({"object": "embedding", "embedding": embedding, "index": index})
        return Reply(
            200,
            {"object": "list", "data": data, "model": model, "usage": {"total_tokens": total}},
        )
