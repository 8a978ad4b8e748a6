"""The JSONL row format of ``trustscore score``, local and on Ray: input rows in, result rows out,
and the index of ids a run resumes from.

* :mod:`trustscore.rows._input`: what an input line must be, :func:`read_jsonl` (samples of a file,
  for ``Scorer.stream``), :class:`InputFile` (an input the CLI checks row by row once, then reads
  again without checking; a pipe is read once);
* :mod:`trustscore.rows._output`: the result row and :class:`OutputFile` (a locked result file that
  only trustscore's own rows may be in);
* :mod:`trustscore.rows._carried`: :func:`carried_fields`, what a result row carries through for a
  sample built in code (``Monitor.submit``);
* :mod:`trustscore.rows._setup`: what scored a result row (its ``fusion`` and signals), so a resumed
  run refuses an output scored another way (:func:`setup_mismatch`);
* :mod:`trustscore.rows._ids`: :class:`IdIndex`, a compact id -> int index;
* :mod:`trustscore.rows._sink`: :class:`ResultSink`, where result rows go (the result file,
  :class:`JsonlFileSink`; a ``Monitor``'s :class:`RowSink`, whose faults never reach the host; the
  service's batch answer; ``score --ray``'s part files; any other destination, as one class);
* :mod:`trustscore.rows._summary`: :class:`ScoreRunSummary`, what a ``trustscore score`` run did, and
  the :func:`exit_status` it ends with and its :func:`not_run_lines` (the local and the Ray run alike).
"""

from trustscore.rows._carried import carried_fields
from trustscore.rows._ids import IdIndex
from trustscore.rows._input import (
    MAX_LINE_BYTES,
    InputFile,
    InputRow,
    OnError,
    RowError,
    parse_row,
    read_jsonl,
    suggest_field,
)
from trustscore.rows._output import (
    JsonlFileSink,
    OutputFile,
    begins_like_a_row,
    error_row,
    result_row,
    row_line,
    row_state,
)
from trustscore.rows._setup import setup_mismatch
from trustscore.rows._sink import ResultSink, RetryableSink, RowSink, SetupRecordingSink
from trustscore.rows._summary import ScoreRunSummary, exit_status, not_run_lines

__all__ = [
    "MAX_LINE_BYTES",
    "IdIndex",
    "InputFile",
    "InputRow",
    "JsonlFileSink",
    "OnError",
    "OutputFile",
    "ResultSink",
    "RetryableSink",
    "RowError",
    "RowSink",
    "ScoreRunSummary",
    "SetupRecordingSink",
    "begins_like_a_row",
    "carried_fields",
    "error_row",
    "exit_status",
    "not_run_lines",
    "parse_row",
    "read_jsonl",
    "result_row",
    "row_line",
    "row_state",
    "setup_mismatch",
    "suggest_field",
]
