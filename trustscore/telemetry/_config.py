"""The ``[telemetry]`` section: what trustscore records beyond the metadata of its spans."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["TelemetryConfig"]


class TelemetryConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    capture_content: bool | None = Field(
        default=None,
        description="record the prompts and completions of LLM calls on their chat spans "
        "(gen_ai.input.messages, gen_ai.output.messages; each message cut at 8,192 characters); "
        "unset: the OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT environment variable decides "
        "(true: on), off without it",
    )
