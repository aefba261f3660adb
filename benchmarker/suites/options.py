"""`SuiteOptions`: the base of a suite's own `[dataset]` keys (beside the shared kind, file, seed, ...).

A suite names its model in `Suite.data.options`; config.py checks the keys once the kind is known and a
reader gets them typed through `<Model>.of(cfg.dataset)`. The keys stay in the `[dataset]` table (and in its dump, so
run ids and manifests keep their bytes): `config_schema.DatasetConfig` keeps them as extra keys.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Self

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from benchmarker.config_schema import DatasetConfig


class SuiteOptions(BaseModel):
    """One suite's `[dataset]` keys: strict, frozen, no key it does not declare."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    @classmethod
    def of(cls, dataset: DatasetConfig) -> Self:
        """This model's keys of a loaded config's `[dataset]` table, defaults where absent. Keys of other
        suites are left out: a manifest's config holds every legacy key (config_schema.LEGACY_DATASET_KEYS)."""
        extra = dataset.model_extra or {}
        return cls.model_validate({key: value for key, value in extra.items() if key in cls.model_fields})
