"""The camera area: live preview with overlay, calibration by tap or by markers, the marble's size (from the
markers, or a tap on a resting marble), the empty reference, photo keeping with the table's consent, and the
confirmation photos shown beside a Diego round."""
from __future__ import annotations

import time
from typing import Any, Callable

from flask import Blueprint, Response, abort, current_app, g, jsonify, render_template, request

from hardware.camera.hub import NoMarble, NoPicture, NotEmpty
from hardware.camera.keeping import KeptPhotosBusy, kept_samples, zipped_samples
from hardware.camera.marble_size import MarbleSizeError
from hardware.camera.markers import MarkerError
from hardware.vision.regions import RegionsError

from .api import checked_body, json_body
from .errors import ApiError, error_response
from .trust import SAFE_METHODS

bp = Blueprint("camera", __name__)

#: Request bodies, in the schema subset events use (the OpenAPI document shows the same).
MARBLE_TAP = {"x": {"type": "number", "minimum": 0, "maximum": 10000},
              "y": {"type": "number", "minimum": 0, "maximum": 10000}}
KEEPING = {"enabled": {"type": "boolean"}}
REFERENCE = {"anyway": {"type": "boolean"}}
REGION_FIELDS = ("gate", "polygon")


def _regions_body() -> dict[str, Any]:
    """{"gates": [{"gate": 1, "polygon": [[x, y], ...]}, ...]} with no other field; GateRegions checks the rest and
    names what is wrong (the points are nested deeper than checked_body's schema goes)."""
    data = json_body()
    gates = data.get("gates")
    unknown = [(key, "the request") for key in data if key != "gates"]
    unknown += [(key, f"gates[{index}]") for index, gate in enumerate(gates if isinstance(gates, list) else ())
                if isinstance(gate, dict) for key in gate if key not in REGION_FIELDS]
    if unknown:
        raise ApiError(400, "malformed", f"{unknown[0][1]} has no field {unknown[0][0]!r}")
    return data


#: Each camera write's body, checked before the camera is asked anything; a write not named here takes no field.
BODIES: dict[str, Callable[[], dict[str, Any]]] = {
    "camera.regions": _regions_body,
    "camera.marble": lambda: checked_body(MARBLE_TAP, ("x", "y")),
    "camera.keeping": lambda: checked_body(KEEPING, ("enabled",)),
    "camera.reference": lambda: checked_body(REFERENCE, empty_ok=True),
}


@bp.before_request
def _check_body() -> None:
    """Every camera write's body: JSON (400), at most 64 KiB (413), no field its write does not take, each of its
    type (400); so a refused body changes nothing. The handlers read it from body()."""
    if request.method not in SAFE_METHODS:
        g.camera_body = BODIES.get(request.endpoint or "", lambda: checked_body({}, empty_ok=True))()


def body() -> dict[str, Any]:
    """The current camera write's checked body."""
    return g.camera_body


def _hub() -> Any:
    hub = current_app.extensions["sensors"].camera
    if hub is None:
        raise ApiError(503, "camera_off", current_app.extensions["sensors"].camera_error or "the camera is off")
    return hub


def _jpeg(data: bytes | None, missing: str) -> Response:
    if not data:
        raise ApiError(503, "no_picture", missing)
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/camera")
def page():
    sensors = current_app.extensions["sensors"]
    return render_template("camera.html", status=_status(sensors), error=sensors.camera_error)


def _status(sensors: Any) -> dict[str, Any]:
    """The camera's state and photo keeping's; with the camera off, why, and photo keeping's (the photos kept
    before can still be downloaded or deleted)."""
    from .kiosk import plain_ago

    camera: dict[str, Any] = {"ok": True, **sensors.camera.status()} if sensors.camera is not None else \
        {"ok": False, "error": sensors.camera_error or "the camera is off"}
    reference = camera.get("reference")
    if reference and reference.get("captured_at") is not None:  # "a moment ago", as the doctor says it
        camera["reference"] = {**reference, "taken": plain_ago(reference["captured_at"])}
    return {**camera, "keeping": sensors.keeper.status()}


@bp.get("/camera/preview.jpg")
def preview():
    """The camera's picture with the gate regions and the marbles seen drawn on it; before the gates are calibrated,
    the plain picture (to aim and focus the camera by), and so too once they are first calibrated until the vision
    has read them (up to a third of a second: the page would say "Waiting for the camera…" meanwhile); 503 only
    while the camera gives none."""
    hub = _hub()
    picture = hub.preview_jpeg()
    state = hub.service.status()
    if not picture and state["ok"]:
        try:
            picture = hub.service.latest_jpeg()
        except ValueError:  # a frame that cannot be encoded: no picture
            picture = None
    if picture:
        return _jpeg(picture, "")
    why = "it is starting" if state.get("state") == "starting" else state.get("error") or state.get("state")
    return _jpeg(None, f"no picture: the camera gives none now ({why})")


@bp.get("/camera/snapshot.jpg")
def snapshot():
    import cv2

    frame = _hub().service.latest()
    if frame is None:
        raise ApiError(503, "no_picture", "the camera has no picture yet")
    ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 85])
    return _jpeg(data.tobytes() if ok else None, "the picture could not be encoded")


@bp.get("/camera/confirmation/<int:session_id>.jpg")
def confirmation(session_id: int):
    photo = current_app.extensions["sensors"].photos.get(session_id)
    if photo is None:
        raise ApiError(404, "not_found", f"no confirmation photo for game {session_id}")
    return _jpeg(photo, "no photo")


@bp.get("/api/camera")
def status():
    return jsonify(_status(current_app.extensions["sensors"]))


@bp.post("/api/camera/regions")
def regions():
    return jsonify({"regions": _hub().set_regions(body()).to_json()})


@bp.post("/api/camera/reference")
def reference():
    return jsonify({"reference": _hub().capture_reference(anyway=body().get("anyway", False))})


@bp.post("/api/camera/anchor")
def anchor():
    return jsonify({"markers": _hub().anchor_to_markers()})


@bp.post("/api/camera/marble")
def marble():
    """A tap on one resting marble in the picture (image pixels): its radius is measured and saved."""
    hub = _hub()
    tap = body()
    try:
        return jsonify({"marble": hub.measure_marble(float(tap["x"]), float(tap["y"]))})
    except ValueError as err:
        if isinstance(err, MarbleSizeError):
            raise
        raise ApiError(400, "malformed", str(err)) from None


@bp.post("/api/camera/keeping")
def keeping():
    """Switch photo keeping on or off (the table's consent); the choice is saved."""
    return jsonify({"keeping": current_app.extensions["sensors"].keeper.set_enabled(body()["enabled"])})


@bp.delete("/api/camera/photos")
def delete_photos():
    """Delete every kept photo (the kiosk or a paired device); keeping stays on or off as it was. One that cannot
    be deleted is named in the status's error."""
    return jsonify({"keeping": current_app.extensions["sensors"].keeper.delete_all()})


@bp.get("/camera/photos.zip")
def photos():
    """The kept photos as one zip, built while it is sent, for the table to send on (a camera picture: the
    kiosk's or a paired device's). One download at a time: a second is refused until the first ends."""
    keeper = current_app.extensions["sensors"].keeper
    try:
        samples = kept_samples(keeper.folder)
    except OSError as err:
        abort(404, description=f"The kept photos cannot be read: {err}")
    if not samples:
        abort(404, description="No photos are kept yet: switch photo keeping on, then play rounds the camera reads.")
    if not keeper.sending.acquire(blocking=False):
        abort(409, description="The kept photos are being downloaded already: try again once that download ends.")
    name = time.strftime("companion-photos-%Y%m%d-%H%M%S", time.gmtime())
    response = Response(zipped_samples(samples, name), mimetype="application/zip",
                        headers={"Content-Disposition": f'attachment; filename="{name}.zip"',
                                 "Cache-Control": "no-store"})
    response.call_on_close(keeper.sending.release)
    return response


#: What the camera's own refusals answer: (status, error code) per exception, the message being the exception's.
REFUSALS: dict[type[Exception], tuple[int, str]] = {
    RegionsError: (400, "malformed"),
    MarkerError: (422, "markers"),
    NoMarble: (422, "no_marble"),
    MarbleSizeError: (409, "no_reference"),
    NoPicture: (409, "no_picture"),
    NotEmpty: (409, "not_empty"),
    KeptPhotosBusy: (409, "conflict"),
}


def _refused(err: Exception):
    status, code = next(answer for kind, answer in REFUSALS.items() if isinstance(err, kind))
    return error_response(status, code, str(err))


for _refusal in REFUSALS:
    bp.register_error_handler(_refusal, _refused)
