"""Draw gate regions, gate numbers, counts and detected marbles on a frame (kiosk camera page)."""

from __future__ import annotations

import cv2
import numpy as np

from hardware.vision.detect import Detection
from hardware.vision.regions import GateRegions

_REGION = (0, 200, 255)     # amber outline
_MARBLE = (255, 255, 0)     # cyan circle: counted for a gate
_OUTSIDE = (0, 0, 255)      # red circle: outside every region
_TEXT_BG = (0, 0, 0)


def _label(img: np.ndarray, text: str, org: tuple[int, int], scale: float, colour: tuple[int, int, int],
           centred: bool = False) -> None:
    """Text on a dark box so it reads on any background (a thin outline was lost on wood or a red board);
    ``org`` is its baseline's left end, or its middle when ``centred``; never above the image's top."""
    thick = max(1, int(round(scale * 2)))
    (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    pad = max(2, thick)
    x, y = org[0] - (tw // 2 if centred else 0), max(org[1], th + pad)
    cv2.rectangle(img, (x - pad, y - th - pad), (x + tw + pad, y + base), _TEXT_BG, cv2.FILLED)
    cv2.putText(img, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)


def draw_overlay(image_bgr: np.ndarray, regions: GateRegions, detection: Detection | None) -> np.ndarray:
    """A copy of ``image_bgr`` with region polygons, "gate: count" labels and marble circles.

    ``detection`` may be None (regions only, e.g. while calibrating).
    """
    out = image_bgr.copy()
    if out.ndim == 2:
        out = cv2.cvtColor(out, cv2.COLOR_GRAY2BGR)
    h = out.shape[0]
    scale = max(0.4, h / 800.0)
    for g in regions.gates:
        pts = np.round(g.as_array()).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(out, [pts], True, _REGION, max(1, int(round(scale * 2))), cv2.LINE_AA)
        cx, cy = (int(v) for v in g.as_array().mean(axis=0))
        top = int(g.as_array()[:, 1].min())
        text = str(g.gate) if detection is None else f"{g.gate}: {detection.counts[g.gate - 1]}"
        _label(out, text, (cx, top - 6), scale, _REGION, centred=True)
    if detection is not None:
        for m in detection.marbles:
            colour = _MARBLE if m.gate is not None else _OUTSIDE
            cv2.circle(out, (int(round(m.x)), int(round(m.y))), max(2, int(round(m.r))), colour,
                       max(1, int(round(scale * 2))), cv2.LINE_AA)
        _label(out, f"outside: {detection.outside}", (8, h - 10), scale, _OUTSIDE)
    return out
