"""A local stand-in for ``POST https://api.openai.com/v1/embeddings`` speaking its wire format.

Request (as the ``openai`` client sends it)::

    {"model": "...", "input": [...], "dimensions": 256?, "encoding_format": "base64"}

The SDK asks for base64 (little-endian float32) unless told otherwise and decodes it itself, so
this server honours ``encoding_format`` both ways. Response: ``{"object": "list", "data":
[{"object": "embedding", "index": i, "embedding": ...}], "model": ..., "usage": {"prompt_tokens":
N, "total_tokens": N}}``. Errors use OpenAI's body ``{"error": {"message", "type", "param",
"code"}}`` and status codes (400, 401, 404, 429, 5xx).
"""

from __future__ import annotations

import base64

import numpy as np

from tests.servers.base import LocalServer, Reply, Request
from tests.servers.hashed_embeddings import count_tokens, hashed_embedding

#: Model -> native dimension; the text-embedding-3 models accept a smaller ``dimensions``.
MODELS: dict[str, int] = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
    "nomic-embed-text": 768,
}
SHORTENABLE = frozenset({"text-embedding-3-small", "text-embedding-3-large"})
MAX_INPUTS = 2048
MAX_INPUT_TOKENS = 8192
MAX_REQUEST_TOKENS = 300_000
_INVALID_INPUT = (
    "'$.input' is invalid. Please check the API reference: "
    "https://platform.openai.com/docs/api-reference."
)


def openai_error(
    status: int,
    message: str,
    type: str = "invalid_request_error",
    code: str | None = None,
    param: str | None = None,
    headers: dict[str, str] | None = None,
) -> Reply:
    body = {"error": {"message": message, "type": type, "param": param, "code": code}}
    return Reply(status, body, headers=dict(headers or {}))


def rate_limited(retry_after: str | None = None) -> Reply:
    headers = {"retry-after": retry_after} if retry_after is not None else {}
    return openai_error(
        429,
        "Rate limit reached for text-embedding-3-small in organization org-test on requests per "
        "min (RPM): Limit 3000, Used 3000, Requested 1. Please try again in 20ms.",
        type="requests",
        code="rate_limit_exceeded",
        headers=headers,
    )


def server_error() -> Reply:
    return openai_error(
        500,
        "The server had an error while processing your request. Sorry about that!",
        type="server_error",
    )


def masked(key: str) -> str:
    """The key as OpenAI echoes it in a 401 message: first 8 and last 4 characters."""
    return key[:8] + "*" * max(len(key) - 12, 4) + key[-4:]


class OpenAIEmbeddingsAPI:
    """The embeddings endpoint. ``api_key=None`` accepts any key, as Ollama and vLLM do.

    ``normalised=False`` returns vectors of arbitrary length, as some local servers do.
    """

    def __init__(
        self,
        api_key: str | None,
        models: dict[str, int] | None = None,
        normalised: bool = True,
    ) -> None:
        self.api_key = api_key
        self.models = dict(models or MODELS)
        self.normalised = normalised

    def server(self) -> LocalServer:
        return LocalServer({("POST", "/v1/embeddings"): self.embeddings})

    def _auth_error(self, request: Request) -> Reply | None:
        if self.api_key is None:
            return None
        header = request.header("authorization") or ""
        if not header.startswith("Bearer "):
            return openai_error(
                401,
                "You didn't provide an API key. You need to provide your API key in an "
                "Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
            )
        given = header.removeprefix("Bearer ")
        if given != self.api_key:
            return openai_error(
                401,
                f"Incorrect API key provided: {masked(given)}. You can find your API key at "
                "https://platform.openai.com/account/api-keys.",
                code="invalid_api_key",
            )
        return None

    def embeddings(self, request: Request) -> Reply:
        denied = self._auth_error(request)
        if denied is not None:
            return denied
        try:
            body = request.json()
        except ValueError:
            return openai_error(400, "We could not parse the JSON body of your request.")
        model = body.get("model")
        if model not in self.models:
            return openai_error(
                404,
                f"The model `{model}` does not exist or you do not have access to it.",
                code="model_not_found",
            )
        texts = body.get("input")
        if isinstance(texts, str):
            texts = [texts]
        if (
            not isinstance(texts, list)
            or not 0 < len(texts) <= MAX_INPUTS
            or not all(isinstance(t, str) and t for t in texts)
        ):
            return openai_error(400, _INVALID_INPUT)
        tokens = [count_tokens(t) for t in texts]
        if max(tokens) > MAX_INPUT_TOKENS:
            return openai_error(
                400,
                f"This model's maximum context length is {MAX_INPUT_TOKENS} tokens, however you "
                f"requested {max(tokens)} tokens. Please reduce your prompt.",
            )
        if sum(tokens) > MAX_REQUEST_TOKENS:
            return openai_error(
                400,
                f"Requested {sum(tokens)} tokens, max {MAX_REQUEST_TOKENS} tokens per request",
                param="input",
                code="max_tokens_per_request",
            )
        native = self.models[model]
        dim = body.get("dimensions")
        if dim is None:
            dim = native
        elif model not in SHORTENABLE:
            return openai_error(400, "This model does not support specifying dimensions.")
        elif not isinstance(dim, int) or not 1 <= dim <= native:
            return openai_error(400, f"Invalid 'dimensions': must be between 1 and {native}.")
        encoding = body.get("encoding_format") or "float"
        if encoding not in ("float", "base64"):
            return openai_error(400, f"Invalid value for 'encoding_format': '{encoding}'.")
        data = []
        for index, text in enumerate(texts):
            # Shortened vectors are the leading part of the full one, renormalised (Matryoshka).
            vector = hashed_embedding(text, native)[:dim]
            vector = vector / np.linalg.norm(vector)
            if not self.normalised:
                vector = vector * (1.0 + index + len(text) % 7)
            vector = vector.astype("<f4")
            embedding = (
                base64.b64encode(vector.tobytes()).decode("ascii")
                if encoding == "base64"
                else vector.tolist()
            )
            data.append({"object": "embedding", "index": index, "embedding": embedding})
        usage = {"prompt_tokens": sum(tokens), "total_tokens": sum(tokens)}
        return Reply(200, {"object": "list", "data": data, "model": model, "usage": usage})
