"""Keep third-party progress bars out of trustscore's output unless the user asked for them.

transformers draws a "Loading weights" bar on stderr for every model it loads; inside a scoring
run (and in a redirected log) that is noise. :func:`quiet_model_loading` hides it for the duration
of one load and restores the previous setting. The user asks for the bars the way transformers
documents: verbosity INFO or DEBUG (``TRANSFORMERS_VERBOSITY=info`` or
``transformers.logging.set_verbosity_info()``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["quiet_model_loading"]


@contextmanager
def quiet_model_loading() -> Iterator[None]:
    """Hide transformers' progress bars while the block runs (a no-op when transformers is verbose)."""
    from transformers.utils import logging as hf_logging

    asked = hf_logging.get_verbosity() <= logging.INFO
    was_enabled = hf_logging.is_progress_bar_enabled()
    if asked or not was_enabled:
        yield
        return
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.enable_progress_bar()
