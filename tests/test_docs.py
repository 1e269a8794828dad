"""The README, the OpenAPI document and the error handlers agree: every API route documented, each error
status one meaning, named the same everywhere."""
from __future__ import annotations

import re
from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient

from web.errors import ERROR_CODES

ROOT = Path(__file__).resolve().parent.parent


def test_every_api_route_is_in_the_openapi_document(app: Flask, client: FlaskClient) -> None:
    documented = client.get("/api/openapi.json").get_json()["paths"]
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/") or rule.endpoint == "static":
            continue
        path = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule)
        for variant in _expand(path):
            assert variant in documented, f"{variant} is served but not documented"
            methods = (rule.methods or set()) - {"HEAD", "OPTIONS"}
            assert methods <= {m.upper() for m in documented[variant]}, (variant, methods)


def _expand(path: str) -> list[str]:
    """/api/sessions/{session_id}/{action} with any(undo, redo) is documented as one path per action."""
    return [path.replace("{action}", a) for a in ("undo", "redo", "abandon")] if "{action}" in path else [path]


def test_readme_openapi_and_handlers_name_each_error_status_alike(client: FlaskClient) -> None:
    readme = (ROOT / "README.md").read_text()
    for status, code in ERROR_CODES.items():
        if status in (405, 500):
            continue
        assert re.search(rf"\b{status} {code}\b", readme), f"README does not say '{status} {code}'"
    writes = client.get("/api/openapi.json").get_json()["paths"]["/api/sessions/{session_id}/events"]["post"]
    assert {int(s) for s in writes["responses"]} >= {400, 403, 404, 409, 413, 422, 429}


def test_each_error_status_answers_with_its_code(client: FlaskClient) -> None:
    created = client.post("/api/sessions", json={"game": "diego-drachenzahn", "players": ["A", "B"]}).get_json()
    url = f"/api/sessions/{created['id']}"
    cases = {
        400: client.post(f"{url}/events", json={"type": "marble", "gate": 9}),
        404: client.get("/api/sessions/999"),
        405: client.delete("/api/sessions"),
        409: client.post(f"{url}/undo", json={}),
        413: client.post(f"{url}/events", data="x" * (65 * 1024), content_type="application/json"),
        422: client.post(f"{url}/events", json={"type": "turned", "player": "B", "gate": 1}),
    }
    for status, response in cases.items():
        assert response.status_code == status, (status, response.get_json())
        code = response.get_json()["error"]["code"]
        assert code == ERROR_CODES[status] or (status == 409 and code in ("stale", "read_only", "conflict")), code
    assert "POST" in cases[405].headers["Allow"] and "GET" in cases[405].headers["Allow"]
