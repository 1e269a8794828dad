"""JSON errors for the API: {"error": {"code", "message"}}; never a traceback, never a 500 for bad input."""
from __future__ import annotations

import logging
from typing import Any

from flask import Flask, Response, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, MethodNotAllowed

from companion.games import IllegalEventError, MalformedEventError, RuleError
from companion.log import storage_full
from companion.table import TableError

log = logging.getLogger(__name__)


#: The error codes of the API, one meaning each (the README and the OpenAPI document say the same).
ERROR_CODES = {400: "malformed", 403: "pairing_required", 404: "not_found", 405: "method_not_allowed",
               409: "conflict", 413: "too_large", 415: "json_required", 421: "wrong_host", 422: "rule",
               429: "too_many_writes", 500: "internal", 503: "table_not_answering", 507: "storage_full"}


def storage_full_message() -> str:
    """What the table is told when the Pi's storage is full."""
    data = current_app.config.get("DATA_DIR", "the data folder")
    return (f"The Pi's storage is full; nothing was changed. Free some space (old backups in {data}/backups, "
            f"kept photos in {data}/photos, or sudo apt clean on the Pi), then try again.")


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


PAGE_MESSAGES = {404: "There is no page at this address on the companion.",
                 405: "This page cannot be opened that way."}
"""What a page says of an error the companion did not word itself (the web framework's words are for developers)."""


def _own_description(err: HTTPException) -> str | None:
    """The description the companion gave ``err`` (``abort(404, ...)``), None for the web framework's own."""
    return str(err.description) if err.description and err.description != type(err).description else None


def _page_message(err: HTTPException) -> str:
    """The page's words for ``err``: its own description where the companion gave one."""
    return _own_description(err) or PAGE_MESSAGES.get(err.code or 500, err.name)


def _api_message(err: HTTPException) -> str:
    """An API answer's words for ``err``: its own description where the companion gave one, else what was asked and
    where the API is described."""
    own = _own_description(err)
    if own:
        return own
    asked = f"{request.method} {request.path}"
    if isinstance(err, MethodNotAllowed) and err.valid_methods:
        return f"{request.path} is not called with {request.method}: it answers {', '.join(sorted(err.valid_methods))}"
    if err.code == 404:
        return f"there is no {asked} in the companion's API; it is described at /api/openapi.json"
    return f"{asked}: {err.name}"


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
        # A malformed event (a field missing, of the wrong type or out of range) is a 400 like any malformed
        # request; an event the rules refuse in this state is a 422. Both name the rule.
        if isinstance(err, MalformedEventError) and not isinstance(err, IllegalEventError):
            return error_response(400, "malformed", err.message, rule=err.rule)
        return error_response(422, "rule", err.message, rule=err.rule)

    @app.errorhandler(HTTPException)
    def _http_error(err: HTTPException):
        status = err.code or 500
        headers = {}
        if isinstance(err, MethodNotAllowed) and err.valid_methods:
            headers["Allow"] = ", ".join(sorted(err.valid_methods))
        if _wants_json():
            body, _ = error_response(status, ERROR_CODES.get(status, err.name.lower().replace(" ", "_")),
                                     _api_message(err))
            return body, status, headers
        return render_template("error.html", status=status, message=_page_message(err)), status, headers

    @app.after_request
    def _options_answer(response: Response) -> Response:
        # Flask answers OPTIONS itself with an empty 200 page; under /api it is 204 with its Allow header
        if request.method == "OPTIONS" and _wants_json() and response.status_code == 200 and not response.data:
            response.status_code = 204
        return response

    @app.errorhandler(Exception)
    def _unexpected(err: Exception):
        if storage_full(err):  # the write was refused whole: SQLite rolled its transaction back
            log.error("storage full on %s %s: %s", request.method, request.path, err)
            if _wants_json():
                return error_response(507, "storage_full", storage_full_message())
            return render_template("error.html", status=507, message=storage_full_message()), 507
        log.exception("unexpected error on %s %s", request.method, request.path)
        message = "something went wrong on the companion; nothing was changed"
        if _wants_json():
            return error_response(500, "internal", message)
        return render_template("error.html", status=500, message=message), 500
