"""The camera area: live preview with overlay, calibration by tap or by markers, the empty reference,
and the confirmation photos shown beside a Diego round."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify, render_template

from hardware.camera.hub import NoPicture
from hardware.camera.markers import MarkerError
from hardware.vision.regions import RegionsError

from .api import json_body
from .errors import ApiError, error_response

bp = Blueprint("camera", __name__)


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
    status = sensors.camera.status() if sensors.camera else None
    return render_template("camera.html", status=status, error=sensors.camera_error)


@bp.get("/camera/preview.jpg")
def preview():
    return _jpeg(_hub().preview_jpeg(), "no picture yet: the camera is starting, down or not calibrated")


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
    sensors = current_app.extensions["sensors"]
    if sensors.camera is None:
        return jsonify({"ok": False, "error": sensors.camera_error or "the camera is off"})
    return jsonify({"ok": True, **sensors.camera.status()})


@bp.post("/api/camera/regions")
def regions():
    return jsonify({"regions": _hub().set_regions(json_body()).to_json()})


@bp.post("/api/camera/reference")
def reference():
    return jsonify({"reference": _hub().capture_reference()})


@bp.post("/api/camera/anchor")
def anchor():
    return jsonify({"markers": _hub().anchor_to_markers()})


@bp.errorhandler(RegionsError)
def _bad_regions(err: RegionsError):
    return error_response(400, "malformed", str(err))


@bp.errorhandler(MarkerError)
def _markers(err: MarkerError):
    return error_response(422, "markers", str(err))


@bp.errorhandler(NoPicture)
def _no_picture(err: NoPicture):
    return error_response(409, "no_picture", str(err))
