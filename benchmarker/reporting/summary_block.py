"""`Block`, the base of every summary.json block model (reporting/summary_model.py's `RunSummary` and its blocks),
and `Cell`, the accuracy cell most blocks share.

A block keeps every key it was given (`extra="allow"`) and remembers their order, so a validated block dumps
exactly as read, key order included.
"""

from __future__ import annotations

from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    ValidatorFunctionWrapHandler,
    model_serializer,
    model_validator,
)

Num = int | float  # a smart union: an int stays an int and a float a float, so a dump writes the numbers as read


class Block(BaseModel):
    """A summary block: its documented keys typed, every other key kept as it is."""

    model_config = ConfigDict(extra="allow")
    _key_order: tuple[str, ...] = PrivateAttr(default=())  # the keys as they came in: a dump writes them so

    @model_validator(mode="wrap")
    @classmethod
    def _remember_key_order(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        block = handler(data)
        if isinstance(data, dict) and isinstance(block, Block):
            block._key_order = tuple(data)
        return block

    @model_serializer(mode="wrap")
    def _dump_in_key_order(self, handler: SerializerFunctionWrapHandler) -> Any:
        """Declared fields, then extra keys, is pydantic's order; the order they were given is the file's."""
        dumped = handler(self)
        if not isinstance(self, Block) or not self._key_order or not isinstance(dumped, dict):
            return dumped
        return ({k: dumped[k] for k in self._key_order if k in dumped}
                | {k: v for k, v in dumped.items() if k not in self._key_order})

    def as_dict(self) -> dict[str, Any]:
        """The block as written: the keys it had, with their values (extra keys included)."""
        return self.model_dump(exclude_unset=True, by_alias=True)

    def is_empty(self) -> bool:
        """No key at all (a block written as {}): what a reader of the dict tested as falsy."""
        return not self.model_fields_set and not self.__pydantic_extra__


class Cell(Block):
    """An accuracy cell (qa.overall, qa.by_type[t], oracle.overall, ...): 95% Wilson interval."""

    n: int | None = None
    correct: int | None = None
    accuracy: Num | None = None
    ci95: list[Num] | None = None
    unjudged: int | None = None
