"""An input ``score --ray`` cannot read as rows stops the run with the local command's one line.

A file that cannot be read as lines (not UTF-8, a line too long) raises the local command's
:class:`~trustscore._errors.InputError` in the Ray task that reads it. Ray hands it back on the driver
wrapped in its task error, whose text is the task's traceback, and Ray Data, which takes any error
that a map function did not raise for a fault of its own, first logs that traceback to the console
twice (once asking for a bug report against Ray). :func:`unwrap_input_error` raises the InputError as
itself and keeps those records off the console: the user reads the one line that says what is wrong
with their file. Ray Data's log file still holds them.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from trustscore._errors import InputError

__all__ = ["input_error_in", "unwrap_input_error"]

T = TypeVar("T")


def input_error_in(error: BaseException) -> InputError | None:
    """The local command's InputError that ``error`` is or carries (Ray's task error holds it as its
    ``cause``; any error may hold it as its own cause or context); None when it carries none."""
    from ray.exceptions import RayTaskError

    seen: list[BaseException] = [error]
    for found in seen:  # grows as it goes: each error's original, cause and context
        if isinstance(found, InputError) and not isinstance(found, RayTaskError):
            return found
        more = (getattr(found, "cause", None), found.__cause__, found.__context__)
        seen.extend(m for m in more if isinstance(m, BaseException) and m not in seen)
    return None


def unwrap_input_error(run: Callable[[], T]) -> T:
    """``run()``, a Ray Data execution, with the InputError it fails on raised as itself, one line,
    its records kept off Ray Data's console handlers meanwhile."""
    try:
        with _console_quiet_on_input_errors():
            return run()
    except Exception as e:
        found = input_error_in(e)
        if found is None:
            raise
        # Ray appends its retry advice to the message's later lines; ours is one line.
        raise InputError(str(found).split("\n", 1)[0]) from None


class _NotAnInputError(logging.Filter):
    """Passes the records of anything but an InputError: the error a record carries, or the one being
    handled where it was logged (Ray Data logs "Exception occurred in Ray Data or Ray Core internal
    code" from inside its except clause, with no error attached)."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else sys.exc_info()[1]
        return error is None or input_error_in(error) is None


@contextmanager
def _console_quiet_on_input_errors() -> Iterator[None]:
    """In the block, the console handlers of the ``ray.data`` logger (its stream handlers; its file
    handlers keep every record) drop the records of an InputError."""
    quiet = _NotAnInputError()
    consoles = [
        handler
        for handler in logging.getLogger("ray.data").handlers
        if isinstance(handler, logging.StreamHandler) and not isinstance(handler, logging.FileHandler)
    ]
    for handler in consoles:
        handler.addFilter(quiet)
    try:
        yield
    finally:
        for handler in consoles:
            handler.removeFilter(quiet)
