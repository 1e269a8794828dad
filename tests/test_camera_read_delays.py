"""How long the camera lets the marbles settle before it reads a round with the beams: 1.5 s after a marble, 0.6 s
after the round's last one (no more are coming), unless the config says otherwise."""
from __future__ import annotations

from typing import Any

from web.app import create_app, shutdown


def _delays(app_config: dict[str, Any], **config: Any) -> tuple[float, float]:
    application = create_app({**app_config, "SENSORS": "simulation", **config})
    try:
        camera = application.extensions["sensors"].camera
        return camera.settle_s, camera.last_marble_settle_s
    finally:
        shutdown(application)


def test_the_camera_reads_1_5_s_after_a_marble_and_0_6_s_after_the_last_unless_the_config_says(
        app_config: dict[str, Any]) -> None:
    assert _delays(app_config) == (1.5, 0.6)
    assert _delays(app_config, CAMERA_SETTLE_S=0.4, CAMERA_LAST_MARBLE_SETTLE_S=0.2) == (0.4, 0.2)
