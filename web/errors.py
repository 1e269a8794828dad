"""JSON errors for the API: {"error": {"code", "message"}}; never a traceback, never a 500 for bad input."""
from __future__ import annotations

import logging
from typing import Any

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from companion.games import IllegalEventError, MalformedEventError, RuleError
from companion.table import TableError

log = logging.getLogger(__name__)


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def error_response(status: int, code: str, message: str, **extra: Any):
    body: dict[str, Any] = {"error": {"code": code, "message": message}}
    body.update(extra)
    return jsonify(body), status


def _wants_json() -> bool:
    return request.path.startswith("/api/")


def register(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def _api_error(err: ApiError):
        return error_response(err.status, err.code, err.message)

    @app.errorhandler(TableError)
    def _table_error(err: TableError):
        extra = {"session": err.view} if err.view is not None else {}
        return error_response(err.status, err.code, err.message, **extra)

    @app.errorhandler(RuleError)
    def _rule_error(err: RuleError):
        if isinstance(err, MalformedEventError) and not isinstance(err, IllegalEventError):
            code = "malformed"
        else:
            code = "rule"
        return error_response(422, code, str(err), rule=err.rule)

    @app.errorhandler(HTTPException)
    def _http_error(err: HTTPException):
        status = err.code or 500
        if _wants_json():
            return error_response(status, err.name.lower().replace(" ", "_"), err.description or err.name)
        return render_template("error.html", status=status, message=err.description or err.name), status

    @app.errorhandler(Exception)
    def _unexpected(err: Exception):
        log.exception("unexpected error on %s %s", request.method, request.path)
        message = "something went wrong on the companion; nothing was changed"
        if _wants_json():
            return error_response(500, "internal", message)
        return render_template("error.html", status=500, message=message), 500
