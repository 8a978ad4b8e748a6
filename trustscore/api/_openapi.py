"""The OpenAPI document of the scoring service (``GET /openapi.json``; docs/openapi.json is a copy that
tests/api/test_openapi.py keeps equal: ``python -m trustscore.api._openapi > docs/openapi.json``)."""

from __future__ import annotations

import json
from typing import Any

from trustscore._types import TrustScore
from trustscore._version import __version__

__all__ = ["openapi_schema"]

_ROW = {
    "type": "object",
    "required": ["question", "response"],
    "properties": {
        "question": {"type": "string"},
        "response": {"type": "string", "description": "the answer to score"},
        "context": {
            "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
            "description": "the passages the answer should be faithful to",
        },
        "id": {"type": "string", "description": "default: a hash of question, context and response"},
    },
    "additionalProperties": {"description": "carried through into the result row untouched"},
}

_ERROR = {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}}
_ROW_ERROR = {
    "type": "object",
    "required": ["id", "error"],
    "properties": {
        "id": {"type": ["string", "null"]},
        "line": {"type": "integer"},
        "error": {"type": "string"},
    },
}
_BUDGET = {
    "name": "budget_s",
    "in": "query",
    "required": False,
    "schema": {"type": "number", "exclusiveMinimum": 0},
    "description": "time budget of each sample, in seconds (at most the service's max_budget_s)",
}


def _errors(*codes: int) -> dict[str, Any]:
    why = {
        400: "the body is not a valid sample (the message names the field)",
        401: "missing or wrong API key",
        408: "the body did not arrive within the service's body_timeout_s",
        413: "the body is over max_body_bytes, or a batch over max_batch_rows",
        429: "the queue is full, or the service holds as many bodies as it may: retry after the "
        "Retry-After header's seconds",
        500: "scoring this sample failed unexpectedly (the message says how)",
        503: "the service is shutting down",
    }
    return {
        str(c): {
            "description": why[c],
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        }
        for c in codes
    }


def _result_schema() -> tuple[dict[str, Any], dict[str, Any]]:
    schema = TrustScore.model_json_schema(ref_template="#/components/schemas/{model}")
    defs = schema.pop("$defs", {})
    props = dict(schema["properties"])
    props.pop("sample_id", None)
    row = {
        "type": "object",
        "description": "the row `trustscore score` writes: id first, then the result, then carried fields",
        "required": ["id", *[k for k in schema.get("required", []) if k in props]],
        "properties": {"id": {"type": "string"}, **props},
        "additionalProperties": True,
    }
    return row, defs


_PROBES: dict[str, Any] = {
    "/healthz": {
        "get": {
            "summary": "Liveness (no key asked)",
            "security": [],
            "responses": {"200": {"description": "serving"}, "503": {"description": "shutting down"}},
        }
    },
    "/readyz": {
        "get": {
            "summary": "Readiness: the signals are warm (no key asked)",
            "security": [],
            "responses": {
                "200": {"description": "ready: a sample is scored without loading anything"},
                "503": {"description": "warming up, or shutting down"},
            },
        }
    },
    "/metrics": {
        "get": {
            "summary": "Prometheus metrics",
            "responses": {"200": {"description": "Prometheus text format"}, **_errors(401)},
        }
    },
}
"""The routes that answer without a key (liveness, readiness) and the metrics route."""


def openapi_schema() -> dict[str, Any]:
    result, defs = _result_schema()
    return {
        "openapi": "3.1.0",
        "info": {"title": "trustscore api", "version": __version__},
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {"Sample": _ROW, "Result": result, "Error": _ERROR, "RowError": _ROW_ERROR, **defs},
        },
        "security": [{"bearer": []}],
        "paths": {
            "/v1/score": {
                "post": {
                    "summary": "Score one sample",
                    "parameters": [_BUDGET],
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Sample"}}},
                    },
                    "responses": {
                        "200": {
                            "description": "the result row",
                            "content": {
                                "application/json": {"schema": {"$ref": "#/components/schemas/Result"}}
                            },
                        },
                        **_errors(400, 401, 408, 413, 429, 500, 503),
                    },
                }
            },
            "/v1/score/batch": {
                "post": {
                    "summary": "Score NDJSON samples; result rows stream back as each finishes",
                    "parameters": [_BUDGET],
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/x-ndjson": {"schema": {"$ref": "#/components/schemas/Sample"}}
                        },
                    },
                    "responses": {
                        "200": {
                            "description": "one line per input row, in completion order: a result row, or a "
                            "row error (invalid row, unexpected failure, shutdown) naming its line",
                            "content": {
                                "application/x-ndjson": {
                                    "schema": {
                                        "oneOf": [
                                            {"$ref": "#/components/schemas/Result"},
                                            {"$ref": "#/components/schemas/RowError"},
                                        ]
                                    }
                                }
                            },
                        },
                        **_errors(400, 401, 408, 413, 429, 503),
                    },
                }
            },
            **_PROBES,
        },
    }


if __name__ == "__main__":
    print(json.dumps(openapi_schema(), indent=2, sort_keys=True))
