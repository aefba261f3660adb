"""Embedders: ollama and openai against a tiny local HTTP server (no network), none, static, minilm."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from embedded_memory import embedders
from embedded_memory.errors import EmbedderError
from embedded_memory.settings import ServiceSettings


class FakeEmbeddingServer:
    """Answers Ollama's /api/embeddings and OpenAI's /embeddings with word-count vectors."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict, dict]] = []
        self.fail_with: int | None = None
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep pytest output clean
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append((self.path, body, dict(self.headers)))
                if outer.fail_with:
                    return self._send(outer.fail_with, {"error": "model not found"})
                if self.path == "/api/embeddings":
                    return self._send(200, {"embedding": outer.vector(body["prompt"])})
                if self.path == "/v1/embeddings":
                    data = [{"index": i, "embedding": outer.vector(t)} for i, t in enumerate(body["input"])]
                    return self._send(200, {"data": list(reversed(data)), "model": body["model"]})
                return self._send(404, {"error": "no route"})

            def _send(self, status, payload):
                raw = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)

    @staticmethod
    def vector(text: str) -> list[float]:
        return [float(len(text)), float(text.count(" ")) + 1.0, 1.0]

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake_server():
    with FakeEmbeddingServer() as server:
        yield server


def test_ollama_posts_each_text_to_api_embeddings(fake_server, monkeypatch):
    monkeypatch.setenv("OLLAMA_BASE_URL", fake_server.url)
    embedder = embedders.create_embedder("ollama")
    try:
        rows = embedder.embed(["hello world", "a b c"])
    finally:
        embedder.close()
    assert rows.shape == (2, 3) and rows.dtype == np.float32
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0)
    paths = [(path, body["model"]) for path, body, _ in fake_server.requests]
    assert paths == [("/api/embeddings", "nomic-embed-text")] * 3  # startup check + 2 texts
    assert embedder.model_id == "ollama:nomic-embed-text"


def test_openai_batches_and_orders_by_index(fake_server, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", f"{fake_server.url}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    embedder = embedders.create_embedder("openai")
    try:
        rows = embedder.embed(["one", "two words", "three words here"])
    finally:
        embedder.close()
    expected = embedders.unit_rows(np.array([FakeEmbeddingServer.vector(t) for t in
                                             ["one", "two words", "three words here"]]))
    assert np.allclose(rows, expected)
    path, body, headers = fake_server.requests[-1]
    assert path == "/v1/embeddings" and body["model"] == "text-embedding-3-small" and len(body["input"]) == 3
    assert headers["Authorization"] == "Bearer sk-test"


def test_http_embedders_fail_clearly(fake_server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(EmbedderError, match="OPENAI_API_KEY is not set"):
        embedders.create_embedder("openai")
    fake_server.fail_with = 404
    monkeypatch.setenv("OLLAMA_BASE_URL", fake_server.url)
    with pytest.raises(EmbedderError, match="HTTP 404.*model not found"):
        embedders.create_embedder("ollama")
    monkeypatch.setenv("OLLAMA_BASE_URL", "http://127.0.0.1:9")  # discard port: nothing listens
    with pytest.raises(EmbedderError, match="cannot reach http://127.0.0.1:9/api/embeddings"):
        embedders.create_embedder("ollama")


def test_none_embedder_means_bm25_only():
    assert embedders.create_embedder("none") is None
    ServiceSettings(embedder="none", alpha=0.0).validate()
    with pytest.raises(ValueError, match="only alpha=0"):
        ServiceSettings(embedder="none", alpha=0.3).validate()
    with pytest.raises(ValueError, match="unknown embedder"):
        ServiceSettings(embedder="bert").validate()


def test_static_embedder_reuses_the_cached_distillation(monkeypatch, tmp_path):
    model_dir = embedders.ensure_static_model()  # distils once per machine (cached afterwards)
    def no_distilling():
        raise AssertionError("the cached model should be reused, not distilled again")

    monkeypatch.setattr(embedders, "_offline", no_distilling)  # only the distillation path calls it
    assert embedders.ensure_static_model() == model_dir
    embedder = embedders.StaticEmbedder()
    rows = embedder.embed(["I adopted a cat named Luna", "my kitten Luna", "quarterly tax filing deadline"])
    assert rows.shape == (3, 256) and np.allclose(np.linalg.norm(rows, axis=1), 1.0)
    assert rows[0] @ rows[1] > rows[0] @ rows[2]


def test_static_cache_location_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("MYCELIAN_LME_CACHE", str(tmp_path / "cache"))
    assert embedders.cache_dir() == tmp_path / "cache"


def test_minilm_embeds_offline_with_the_packaged_model(monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    embedder = embedders.create_embedder("minilm")
    import os

    assert os.environ["HF_HUB_OFFLINE"] == "1"
    rows = embedder.embed(["I adopted a cat named Luna", "my kitten Luna", "quarterly tax filing deadline"])
    assert rows.shape == (3, 384) and np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    assert rows[0] @ rows[1] > rows[0] @ rows[2]
