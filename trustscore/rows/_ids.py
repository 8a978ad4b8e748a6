"""A compact index of sample ids of trustscore rows (duplicate refusal and resume).

A ``dict[str, int]`` of 100,000 short ids costs ~130 bytes a row (the str objects, the int objects,
the dict's slots): the CLI's only memory that grew with the file. Here each id costs its UTF-8 bytes
plus ~30: the bytes end to end in one ``bytearray``, per id its 64-bit hash, end offset and value in
``array`` columns, and an open-addressing table (linear probing, at most half full) of entry numbers.
A probe that meets an equal hash compares the stored bytes, so the answer is exact even when two ids
share a hash.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator

__all__ = ["IdIndex"]

_EMPTY = -1


def _id_hash(text: str) -> int:
    """Python's own str hash (a seam: the tests force collisions through it)."""
    return hash(text)


class IdIndex:
    """Ids (str) each with an int value, e.g. the line it was first seen on, or 1/0 for complete."""

    def __init__(self) -> None:
        self._blob = bytearray()
        self._ends = array("Q")
        self._hashes = array("q")
        self._values = array("q")
        self._slots = array("i", [_EMPTY]) * 8

    def __len__(self) -> int:
        return len(self._ends)

    def __contains__(self, text: object) -> bool:
        return isinstance(text, str) and self.get(text) is not None

    def get(self, text: str) -> int | None:
        """The value stored for ``text``, or None."""
        entry = self._slots[self._find(text, _id_hash(text), _encode(text))]
        return None if entry == _EMPTY else self._values[entry]

    def add(self, text: str, value: int) -> int | None:
        """Store ``text`` with ``value`` and return None; if ``text`` is already stored, change nothing and
        return its value."""
        h, encoded = _id_hash(text), _encode(text)
        slot = self._find(text, h, encoded)
        entry = self._slots[slot]
        if entry != _EMPTY:
            return self._values[entry]
        self._slots[slot] = len(self._ends)
        self._blob += encoded
        self._ends.append(len(self._blob))
        self._hashes.append(h)
        self._values.append(value)
        if 2 * len(self._ends) > len(self._slots):
            self._grow()
        return None

    def set(self, text: str, value: int) -> None:
        """Store ``text`` with ``value``, replacing the value it had."""
        slot = self._find(text, _id_hash(text), _encode(text))
        entry = self._slots[slot]
        if entry == _EMPTY:
            self.add(text, value)
        else:
            self._values[entry] = value

    def items(self) -> Iterator[tuple[str, int]]:
        """(id, value) in the order they were added."""
        start = 0
        for end, value in zip(self._ends, self._values, strict=True):
            yield self._blob[start:end].decode("utf-8", "surrogatepass"), value
            start = end

    def __iter__(self) -> Iterator[str]:
        return (text for text, _ in self.items())

    def _find(self, text: str, h: int, encoded: bytes) -> int:
        """The slot that holds ``text``'s entry, or the empty slot where it would go."""
        mask = len(self._slots) - 1
        slot = h & mask
        while True:
            entry = self._slots[slot]
            if entry == _EMPTY:
                return slot
            if self._hashes[entry] == h and self._bytes(entry) == encoded:
                return slot
            slot = (slot + 1) & mask

    def _bytes(self, entry: int) -> bytearray:
        return self._blob[self._ends[entry - 1] if entry else 0 : self._ends[entry]]

    def _grow(self) -> None:
        self._slots = array("i", [_EMPTY]) * (2 * len(self._slots))
        mask = len(self._slots) - 1
        for entry, h in enumerate(self._hashes):
            slot = h & mask
            while self._slots[slot] != _EMPTY:
                slot = (slot + 1) & mask
            self._slots[slot] = entry


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")
