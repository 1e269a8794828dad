"""Pairing a tablet with the kiosk: a device asks, the kiosk shows its 4-digit code, a tap approves or
refuses; the approved device collects a token cookie. The kiosk lists paired devices and revokes them."""
from __future__ import annotations

import io
import ipaddress
import re
import socket
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, render_template, request

from .errors import ApiError
from .pairing_store import REQUEST_TTL_S, TooManyRequests
from .stream import end_device_streams
from .trust import CLAIM_COOKIE, DEVICE_COOKIE, client, kiosk_only, lan_address, open_to_all, store

bp = Blueprint("pairing", __name__)

#: Browsers keep a cookie at most 400 days; a tablet that is used is re-issued nothing, so pair again then.
DEVICE_COOKIE_AGE_S = 400 * 24 * 3600
NAME_MAX = 40


def _object_body() -> dict[str, Any]:
    """The JSON object sent, or {} for no body."""
    if not request.data:
        return {}
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise ApiError(400, "malformed", "the body must be a JSON object or empty")
    return data


def device_name(user_agent: str) -> str:
    """A short human name for a browser's user agent: "iPad · Safari"."""
    kinds = [("iPad", "iPad"), ("iPhone", "iPhone"), ("Android", "Android"), ("CrOS", "Chromebook"),
             ("Windows", "Windows"), ("Macintosh", "Mac"), ("Linux", "Linux")]
    browsers = [("Firefox/", "Firefox"), ("Edg/", "Edge"), ("Chrome/", "Chrome"), ("Chromium/", "Chromium"),
                ("Safari/", "Safari")]
    kind = next((name for key, name in kinds if key in user_agent), "Device")
    browser = next((name for key, name in browsers if key in user_agent), None)
    return f"{kind} \u00b7 {browser}" if browser else kind


def pair_url() -> str:
    """The address a tablet opens (or scans) to pair: the Pi on the local network, this port."""
    configured = current_app.config.get("PAIRING_URL")
    if configured:
        return str(configured)
    port = request.host.rsplit(":", 1)[1] if re.search(r":\d+$", request.host) else None
    name = lan_address() or f"{socket.gethostname().lower()}.local"
    return f"http://{name}{':' + port if port else ''}/devices"


def _status() -> dict[str, Any]:
    who = client()
    pending = store().claimed_by(request.cookies.get(CLAIM_COOKIE)) if not who.trusted else None
    return {"role": who.role, "device": who.device.to_json() if who.device else None,
            "request": pending.to_json() if pending else None,
            "spectators": current_app.extensions["trust"].spectators}


@bp.app_context_processor
def _pairing_globals() -> dict[str, Any]:
    return {"pairing_role": client().role,
            "pairing_poll_ms": round(1000 * float(current_app.config["PAIRING_POLL_S"]))}


# pages
@bp.get("/devices")
@open_to_all
def devices_page():
    who = client()
    return render_template("devices.html", role=who.role, device=who.device,
                           pair_url=pair_url() if who.kiosk else None, local_only=_local_only(),
                           spectators=current_app.extensions["trust"].spectators)


def _local_only() -> str | None:
    """The address the server listens on when only this machine can reach it (``--host 127.0.0.1``), else None."""
    host = str(current_app.config.get("LISTEN_HOST") or "")
    try:
        return host if host and ipaddress.ip_address(host.strip("[]")).is_loopback else None
    except ValueError:
        return host if host == "localhost" else None


@bp.get("/pairing/qr.svg")
@open_to_all
def qr_code():
    import segno  # only the kiosk's devices page draws it

    out = io.BytesIO()
    segno.make(pair_url(), error="m").save(out, kind="svg", scale=8, border=2, dark="#10201a", light="#ffffff",
                                           xmldecl=False, svgclass="pair-qr")
    return Response(out.getvalue(), mimetype="image/svg+xml", headers={"Cache-Control": "no-store"})


# the device asking
@bp.get("/api/pairing")
@open_to_all
def status():
    return jsonify(_status())


@bp.post("/api/pairing/requests")
@open_to_all
def ask():
    who = client()
    if who.kiosk:
        raise ApiError(409, "kiosk", "this is the table's own screen: it needs no pairing")
    if who.device is not None:
        raise ApiError(409, "paired", "this device is already paired")
    name = _object_body().get("name")
    if name is not None:
        name = _name(name)
    user_agent = request.headers.get("User-Agent", "")[:300]
    store().withdraw(request.cookies.get(CLAIM_COOKIE))  # asking again replaces the earlier request
    try:
        pending, claim = store().request(name or device_name(user_agent),
                                         user_agent, who.address)
    except TooManyRequests as err:
        raise ApiError(429, "too_many_requests", f"{err}; ask again in a few minutes") from None
    response = jsonify({"request": pending.to_json()})
    response.set_cookie(CLAIM_COOKIE, claim, max_age=int(REQUEST_TTL_S), httponly=True, samesite="Strict",
                        path="/")
    return response, 201


@bp.post("/api/pairing/claim")
@open_to_all
def claim():
    """Collect an approved request: the device's token arrives as a cookie, once."""
    _object_body()
    collected = store().collect(request.cookies.get(CLAIM_COOKIE))
    if collected is None:
        pending = store().claimed_by(request.cookies.get(CLAIM_COOKIE))
        if pending is None:
            raise ApiError(404, "no_request", "this device has no pairing request (or it expired); ask again")
        raise ApiError(409, f"request_{pending.status}", "the kiosk refused this device" if pending.status ==
                       "refused" else "the request still waits for a tap on the table's screen")
    device, token = collected
    response = jsonify({"device": device.to_json()})
    response.set_cookie(DEVICE_COOKIE, token, max_age=DEVICE_COOKIE_AGE_S, httponly=True, samesite="Strict",
                        path="/")
    response.delete_cookie(CLAIM_COOKIE, path="/", httponly=True, samesite="Strict")
    return response


@bp.delete("/api/pairing/claim")
@open_to_all
def withdraw():
    store().withdraw(request.cookies.get(CLAIM_COOKIE))
    response = jsonify(_status() | {"request": None})
    response.delete_cookie(CLAIM_COOKIE, path="/", httponly=True, samesite="Strict")
    return response


@bp.delete("/api/pairing/device")
def unpair():
    """A paired device gives up its own pairing."""
    device = client().device
    if device is None:
        raise ApiError(409, "not_paired", "this device is not paired")
    store().revoke(device.id)
    end_device_streams(current_app, device.id)  # its other pages, open elsewhere in its browser
    response = jsonify({"revoked": device.to_json()})
    response.delete_cookie(DEVICE_COOKIE, path="/", httponly=True, samesite="Strict")
    return response


# the kiosk deciding
@bp.get("/api/pairing/requests")
@kiosk_only
def requests_waiting():
    return jsonify({"requests": [r.to_json() for r in store().pending()]})


@bp.post("/api/pairing/requests/<request_id>/<any(approve, refuse):decision>")
@kiosk_only
def decide(request_id: str, decision: str):
    _object_body()
    decided = store().decide(request_id, approve=decision == "approve")
    if decided is None:
        raise ApiError(404, "not_found", "no such pairing request is waiting (it may have expired)")
    return jsonify({"request": decided.to_json()})


@bp.get("/api/pairing/devices")
@kiosk_only
def devices():
    return jsonify({"devices": [d.to_json() for d in store().devices()], "history": store().history(30)})


def _name(name: Any) -> str:
    """A device's name as a person gave it, its spaces tidied; 400 unless it has 1 to ``NAME_MAX`` characters."""
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > NAME_MAX:
        raise ApiError(400, "malformed", f"'name' must be a name of 1 to {NAME_MAX} characters")
    return " ".join(name.split())


@bp.patch("/api/pairing/devices/<int:device_id>")
@kiosk_only
def rename(device_id: int):
    named = store().rename(device_id, _name(_object_body().get("name")))
    if named is None:
        raise ApiError(404, "not_found", f"no paired device {device_id}")
    return jsonify({"device": named.to_json()})


@bp.delete("/api/pairing/devices/<int:device_id>")
@kiosk_only
def revoke(device_id: int):
    revoked = store().revoke(device_id)
    if revoked is None:
        raise ApiError(404, "not_found", f"no paired device {device_id}")
    end_device_streams(current_app, revoked.id)  # its open game pages hear it at once
    return jsonify({"revoked": revoked.to_json()})


def _error(description: str) -> dict[str, Any]:
    return {"description": description,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


_REQUEST = {"type": "object", "properties": {
    "id": {"type": "string"}, "code": {"type": "string", "pattern": "^[0-9]{4}$"}, "name": {"type": "string"},
    "user_agent": {"type": "string"}, "address": {"type": "string"}, "created": {"type": "number"},
    "expires": {"type": "number"}, "status": {"type": "string", "enum": ["pending", "approved", "refused"]}}}
_DEVICE = {"type": "object", "properties": {
    "id": {"type": "integer"}, "name": {"type": "string"}, "user_agent": {"type": "string"},
    "address": {"type": "string"}, "paired": {"type": "number"}, "last_seen": {"type": "number", "nullable": True}}}
_EMPTY_BODY = {"required": False, "content": {"application/json": {"schema": {"type": "object"}}}}
_REFUSED = {"403": _error("not the kiosk, or a cross-site request"), "415": _error("not JSON"),
            "429": _error("too many writes from this device")}
_KIOSK_ONLY = {"403": _error("only the table's own screen may do this")}

#: The pairing endpoints, for the OpenAPI document's `paths`.
OPENAPI_PATHS: dict[str, Any] = {
    "/api/pairing": {"get": {
        "summary": "Who this device is to the companion: kiosk, paired or spectator, and its pairing request",
        "responses": {"200": {"description": "status", "content": {"application/json": {"schema": {
            "type": "object", "properties": {
                "role": {"type": "string", "enum": ["kiosk", "paired", "spectator"]},
                "device": {**_DEVICE, "nullable": True}, "request": {**_REQUEST, "nullable": True},
                "spectators": {"type": "boolean"}}}}}}}}},
    "/api/pairing/requests": {
        "get": {"summary": "Kiosk only: the pairing requests waiting for a tap",
                "responses": {"200": {"description": "requests", "content": {"application/json": {"schema": {
                    "type": "object", "properties": {"requests": {"type": "array", "items": _REQUEST}}}}}},
                    **_KIOSK_ONLY}},
        "post": {"summary": "Ask to pair this device; the kiosk shows the same 4-digit code. "
                            "Sets a short-lived HttpOnly cookie that lets this device collect the approval",
                 "requestBody": {"required": False, "content": {"application/json": {"schema": {
                     "type": "object", "properties": {"name": {"type": "string", "maxLength": NAME_MAX}}},
                     "example": {"name": "Ben's tablet"}}}},
                 "responses": {"201": {"description": "the request", "content": {"application/json": {
                     "schema": {"type": "object", "properties": {"request": _REQUEST}}}}},
                     "400": _error("malformed"), "409": _error("the kiosk or an already paired device"),
                     **_REFUSED}}},
    "/api/pairing/requests/{request_id}/{decision}": {"post": {
        "summary": "Kiosk only: approve or refuse a waiting request",
        "parameters": [{"name": "request_id", "in": "path", "required": True, "schema": {"type": "string"}},
                       {"name": "decision", "in": "path", "required": True,
                        "schema": {"type": "string", "enum": ["approve", "refuse"]}}],
        "requestBody": _EMPTY_BODY,
        "responses": {"200": {"description": "the decided request"}, "404": _error("no such request"),
                      **_REFUSED, **_KIOSK_ONLY}}},
    "/api/pairing/claim": {
        "post": {"summary": "Collect an approved request: sets the device's HttpOnly token cookie",
                 "requestBody": _EMPTY_BODY,
                 "responses": {"200": {"description": "the paired device", "content": {"application/json": {
                     "schema": {"type": "object", "properties": {"device": _DEVICE}}}}},
                     "404": _error("no request"), "409": _error("still waiting, or refused"), **_REFUSED}},
        "delete": {"summary": "Withdraw this device's pairing request",
                   "responses": {"200": {"description": "status"}, **_REFUSED}}},
    "/api/pairing/device": {"delete": {
        "summary": "A paired device gives up its own pairing",
        "responses": {"200": {"description": "revoked"}, "409": _error("not paired"), **_REFUSED}}},
    "/api/pairing/devices": {"get": {
        "summary": "Kiosk only: paired devices and the pairing log",
        "responses": {"200": {"description": "devices", "content": {"application/json": {"schema": {
            "type": "object", "properties": {"devices": {"type": "array", "items": _DEVICE},
                                             "history": {"type": "array", "items": {"type": "object"}}}}}}},
            **_KIOSK_ONLY}}},
    "/api/pairing/devices/{device_id}": {
        "delete": {
            "summary": "Kiosk only: revoke a paired device; its token stops working at once",
            "parameters": [{"name": "device_id", "in": "path", "required": True, "schema": {"type": "integer"}}],
            "responses": {"200": {"description": "revoked"}, "404": _error("no such device"),
                          **_REFUSED, **_KIOSK_ONLY}},
        "patch": {
            "summary": "Kiosk only: name a paired device, so that the table tells its devices apart",
            "parameters": [{"name": "device_id", "in": "path", "required": True, "schema": {"type": "integer"}}],
            "requestBody": {"required": True, "content": {"application/json": {"schema": {
                "type": "object", "required": ["name"],
                "properties": {"name": {"type": "string", "minLength": 1, "maxLength": NAME_MAX}}}}}},
            "responses": {"200": {"description": "the device, named", "content": {"application/json": {
                "schema": {"type": "object", "properties": {"device": _DEVICE}}}}},
                "400": _error("no name, or too long"), "404": _error("no such device"), **_REFUSED, **_KIOSK_ONLY}}},
}
