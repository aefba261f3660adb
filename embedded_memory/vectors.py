"""Per-memory vector matrices kept in RAM: brute-force cosine is ~1 ms for 5,000 vectors.

Loaded from SQLite on first use, appended to in place as the indexer writes, and dropped least
recently used first when the RAM budget is exceeded (the database keeps every vector).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

import numpy as np

Loader = Callable[[str, int], tuple[np.ndarray, "np.ndarray | None"]]


class VectorIndex:
    """Unit vectors of one memory (entries or contexts); rows grow by amortised doubling."""

    def __init__(self, seqs: np.ndarray, matrix: np.ndarray | None):
        self._n = len(seqs)
        self._seqs = np.array(seqs, dtype=np.int64)
        self._mat = matrix if matrix is not None else np.empty((0, 0), dtype=np.float32)

    def __len__(self) -> int:
        return self._n

    @property
    def nbytes(self) -> int:
        return int(self._mat.nbytes + self._seqs.nbytes)

    def add(self, seqs: np.ndarray, vectors: np.ndarray) -> None:
        vectors = np.asarray(vectors, dtype=np.float32)
        if self._mat.size == 0 and self._n == 0:
            self._mat = np.empty((max(64, len(vectors)), vectors.shape[1]), dtype=np.float32)
            self._seqs = np.empty(len(self._mat), dtype=np.int64)
        if vectors.shape[1] != self._mat.shape[1]:
            raise ValueError(f"vector size {vectors.shape[1]} does not match the index ({self._mat.shape[1]})")
        need = self._n + len(vectors)
        if need > len(self._mat):
            capacity = max(need, 2 * len(self._mat))
            grown = np.empty((capacity, self._mat.shape[1]), dtype=np.float32)
            grown[: self._n] = self._mat[: self._n]
            seqs_grown = np.empty(capacity, dtype=np.int64)
            seqs_grown[: self._n] = self._seqs[: self._n]
            self._mat, self._seqs = grown, seqs_grown
        self._mat[self._n: need] = vectors
        self._seqs[self._n: need] = seqs
        self._n = need

    def top(self, query: np.ndarray, n: int) -> list[tuple[int, float]]:
        """(seq, cosine) of the n nearest vectors, best first; ties broken by newer seq."""
        if self._n == 0 or n <= 0:
            return []
        sims = self._mat[: self._n] @ np.asarray(query, dtype=np.float32)
        if n < self._n:
            idx = np.argpartition(-sims, n - 1)[:n]
        else:
            idx = np.arange(self._n)
        seqs, picked = self._seqs[: self._n][idx], sims[idx]
        order = np.lexsort((-seqs, -picked))
        return [(int(seqs[i]), float(picked[i])) for i in order]


class VectorCache:
    """The loaded VectorIndex objects, keyed by (kind, memory key), within a RAM budget."""

    def __init__(self, loader: Loader, budget_bytes: int):
        self._loader = loader
        self._budget = budget_bytes
        self._indexes: OrderedDict[tuple[str, int], VectorIndex] = OrderedDict()

    def get(self, kind: str, mkey: int) -> VectorIndex:
        key = (kind, mkey)
        index = self._indexes.get(key)
        if index is None:
            index = VectorIndex(*self._loader(kind, mkey))
            self._indexes[key] = index
            self._evict(keep=key)
        else:
            self._indexes.move_to_end(key)
        return index

    def add(self, kind: str, mkey: int, seqs: np.ndarray, vectors: np.ndarray) -> None:
        """Append only when loaded: an unloaded memory reads its vectors from SQLite on first use."""
        index = self._indexes.get((kind, mkey))
        if index is not None:
            index.add(seqs, vectors)

    def clear(self) -> None:
        self._indexes.clear()

    def _evict(self, keep: tuple[str, int]) -> None:
        total = sum(ix.nbytes for ix in self._indexes.values())
        for key in list(self._indexes):
            if total <= self._budget:
                break
            if key != keep:
                total -= self._indexes.pop(key).nbytes
