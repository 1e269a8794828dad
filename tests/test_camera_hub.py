"""The camera hub on its own: regions that follow the markers, confirmation frames, a camera that is down."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from hardware.camera.hub import CameraHub, NoPicture
from hardware.camera.markers import MarkerError

GATES = {"gates": [{"gate": g, "polygon": [[60 + g * 70, 200], [110 + g * 70, 200], [110 + g * 70, 260],
                                           [60 + g * 70, 260]]} for g in range(1, 7)]}


class FakeService:
    """Stands in for CameraService: hands out the frame it is given."""

    def __init__(self, frame: np.ndarray | None) -> None:
        self.frame = frame

    def latest(self) -> np.ndarray | None:
        return self.frame

    def settled_frame(self, timeout: float = 2.0) -> np.ndarray | None:
        return self.frame

    def status(self) -> dict[str, Any]:
        return {"ok": self.frame is not None, "state": "ok" if self.frame is not None else "retrying"}

    def start(self) -> None: ...

    def close(self) -> None: ...


def marker_scene() -> np.ndarray:
    """A 640x480 light board with ArUco markers 0-3 near its corners."""
    frame = np.full((480, 640, 3), 200, np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    for marker_id, (x, y) in enumerate([(20, 20), (540, 20), (540, 380), (20, 380)]):
        marker = cv2.aruco.generateImageMarker(dictionary, marker_id, 80)
        frame[y:y + 80, x:x + 80] = cv2.cvtColor(marker, cv2.COLOR_GRAY2BGR)
        frame[y - 10:y, x - 10:x + 90] = 255  # a white margin around each marker
    return frame


def test_regions_follow_the_markers_when_the_camera_is_bumped(tmp_path: Path) -> None:
    service = FakeService(marker_scene())
    hub = CameraHub(service, tmp_path, on_reading=lambda *_: None)  # type: ignore[arg-type]
    hub.set_regions(GATES)
    check = hub.anchor_to_markers()
    assert check["found"] == [0, 1, 2, 3]
    bumped = cv2.warpAffine(marker_scene(), np.float32([[1, 0, 25], [0, 1, -12]]), (640, 480),
                            borderValue=(200, 200, 200))
    moved = hub.current_regions(bumped)
    assert moved is not None
    x, y = moved.region(1).polygon[0]
    assert abs(x - (130 + 25)) < 2 and abs(y - (200 - 12)) < 2
    # A fresh hub reads the saved calibration back: regions and anchor survive a restart.
    again = CameraHub(service, tmp_path, on_reading=lambda *_: None)  # type: ignore[arg-type]
    assert again.status()["calibration"] == "markers"


def test_a_blurred_picture_is_reported_with_the_markers(tmp_path: Path) -> None:
    service = FakeService(marker_scene())
    hub = CameraHub(service, tmp_path, on_reading=lambda *_: None)  # type: ignore[arg-type]
    hub.set_regions(GATES)
    hub.anchor_to_markers()
    status = hub.status()
    radius = status["marble"]["radius_px"]  # from the markers' printed size: 80 px for 50 mm, a 16 mm marble
    assert radius == pytest.approx(12.8, abs=0.2)
    assert status["markers"]["blur_px"] < 0.6 and status["focus"] is None
    hub.current_regions(cv2.GaussianBlur(marker_scene(), (0, 0), 2.5))  # the lens turned out of focus
    status = hub.status()
    assert status["markers"]["blur_px"] == pytest.approx(2.5, abs=0.4)
    assert "out of focus" in status["focus"] and f"{radius:.1f} px" in status["focus"]


def test_a_full_disk_after_the_anchor_is_saved_says_what_was_saved(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The anchor is saved and in use; the marble's size that follows from it could not be: the status says so,
    rather than an error that nothing changed."""
    import errno

    from hardware.camera import marble_size

    def full(*_args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    hub = CameraHub(FakeService(marker_scene()), tmp_path, on_reading=lambda *_: None)  # type: ignore[arg-type]
    hub.set_regions(GATES)
    monkeypatch.setattr(marble_size.MarbleSize, "save", full)
    answer = hub.anchor_to_markers()
    assert hub.status()["calibration"] == "markers" and (tmp_path / "markers.json").exists()
    assert "the anchor is saved, but not the marble's size: No space left on device" in str(answer["marble"])


def test_without_markers_the_gates_follow_a_nudged_camera(tmp_path: Path) -> None:
    """Gates tapped, no markers: a nudge of the camera moves the picture against the empty reference. The
    gates move with it (and are saved so), the reference is taken again, and the page says so; a shift of
    a pixel or two (what the measurement itself may err by) moves nothing."""
    from tests.conditions import nudged
    from tests.scenes import make_scene

    sc = make_scene(70012, case="clutter")
    service = FakeService(sc.reference)
    hub = CameraHub(service, tmp_path, on_reading=lambda *_: None)  # type: ignore[arg-type]
    tapped = hub.set_regions(sc.regions.to_json())
    hub.capture_reference()
    assert hub.current_regions(nudged(sc.image, 1.0, -0.5)) is tapped and hub.reference.get() is not None
    service.frame = nudged(sc.image, 7.0, -4.0)
    regions = hub.current_regions(service.frame)
    assert regions is not None and regions is not tapped
    (x, y), (tx, ty) = regions.region(3).polygon[0], tapped.region(3).polygon[0]
    assert abs(x - tx - 7.0) < 1.0 and abs(y - ty + 4.0) < 1.0
    assert hub.reference.get() is None
    status = hub.status()
    assert "The camera moved by +7, -4 px" in status["moved"] and "gates were moved with it" in status["moved"]
    again = CameraHub(service, tmp_path, on_reading=lambda *_: None)  # type: ignore[arg-type]
    assert again.current_regions(service.frame, recheck=False).region(3).polygon[0] == (x, y)  # saved
    hub.capture_reference()
    assert hub.status()["moved"] is None
    assert hub.current_regions(service.frame) is regions  # against the new reference: nothing moved


def test_anchoring_needs_regions_and_all_four_markers(tmp_path: Path) -> None:
    hub = CameraHub(FakeService(np.full((480, 640, 3), 200, np.uint8)), tmp_path,  # type: ignore[arg-type]
                    on_reading=lambda *_: None)
    with pytest.raises(MarkerError, match="regions first"):
        hub.anchor_to_markers()
    hub.set_regions(GATES)
    with pytest.raises(MarkerError, match="not found"):
        hub.anchor_to_markers()


def test_anchoring_in_simulation_says_the_simulated_castle_has_no_markers(tmp_path: Path) -> None:
    from hardware.camera.simulated import SimulatedCastle

    castle = SimulatedCastle()
    hub = CameraHub(FakeService(castle.render()), tmp_path, on_reading=lambda *_: None,  # type: ignore[arg-type]
                    default_regions=castle.regions(), default_marble=castle.marble_size())
    with pytest.raises(MarkerError, match="not found: .*simulated castle has no printed markers"):
        hub.anchor_to_markers()
    assert not (tmp_path / "markers.json").exists()


def test_confirmation_reads_the_settled_frame(tmp_path: Path) -> None:
    board = np.full((480, 640, 3), 120, np.uint8)
    readings: list[Any] = []
    service = FakeService(board.copy())
    hub = CameraHub(service, tmp_path, on_reading=lambda d, photo: readings.append((d, photo)))  # type: ignore[arg-type]
    hub.set_regions(GATES)
    hub.reference.offer(board, beams_idle=True, regions_empty=True, now=1e9)
    frame = board.copy()
    cv2.circle(frame, (295, 230), 12, (40, 40, 220), -1)  # a red marble resting in gate 3
    cv2.circle(frame, (291, 226), 3, (255, 255, 255), -1)  # with a highlight
    service.frame = frame
    detection = hub.confirm_now()
    assert detection is not None and list(detection.counts) == [0, 0, 1, 0, 0, 0]
    assert readings and readings[0][1][:2] == b"\xff\xd8"  # the photo, with its overlay, as JPEG


class QueuedService(FakeService):
    """Hands out one queued frame for each settled frame asked for (None once they run out)."""

    def __init__(self, frames: list[np.ndarray | None]) -> None:
        super().__init__(frames[0])
        self.queue = list(frames)
        self.asked = 0

    def settled_frame(self, timeout: float = 2.0) -> np.ndarray | None:
        self.asked += 1
        return self.queue.pop(0) if self.queue else None


def _red_marbles(board: np.ndarray, *centres: tuple[int, int]) -> np.ndarray:
    frame = board.copy()
    for x, y in centres:
        cv2.circle(frame, (x, y), 12, (40, 40, 220), -1)
        cv2.circle(frame, (x - 4, y - 4), 3, (255, 255, 255), -1)  # its highlight
    return frame


def test_a_confirmation_reads_three_frames_and_reports_what_most_of_them_read(tmp_path: Path) -> None:
    """A frame that reads a gate differently (a flicker, a glare) is outvoted, and that gate is unsure."""
    board = np.full((480, 640, 3), 120, np.uint8)
    one, two = _red_marbles(board, (295, 230)), _red_marbles(board, (295, 230), (292, 205))
    service = QueuedService([one, two, one])
    readings: list[Any] = []
    hub = CameraHub(service, tmp_path, on_reading=lambda d, photo: readings.append((d, photo)))  # type: ignore[arg-type]
    hub.set_regions(GATES)
    hub.reference.offer(board, beams_idle=True, regions_empty=True, now=1e9)
    assert hub.detect(two).detection.counts[2] == 2  # type: ignore[union-attr]  # the odd frame alone reads two
    detection = hub.confirm_now()
    assert service.asked == 3
    assert detection is not None and list(detection.counts) == [0, 0, 1, 0, 0, 0]
    assert detection.unsure == (False, False, True, False, False, False)  # the frames disagreed there
    assert len(readings) == 1 and readings[0][0] == detection
    assert hub.last_reading is not None and np.array_equal(hub.last_reading.frame, one)  # a frame that read 1


def _rolling_hub(tmp_path: Path, frames: list[np.ndarray | None], board: np.ndarray,
                 camera_only: bool = False) -> tuple[CameraHub, QueuedService]:
    """A hub that knows the drawn marbles' size, reads confirmation frames at once and waits for nothing."""
    from hardware.camera.marble_size import MarbleSize

    service = QueuedService(frames)
    hub = CameraHub(service, tmp_path, on_reading=lambda *_: None, confirm_gap_s=0.0,  # type: ignore[arg-type]
                    still_wait_s=0.0, default_marble=MarbleSize(12.0, "drawn", 0.0), camera_only=camera_only)
    hub.set_regions(GATES)
    hub.reference.offer(board, beams_idle=True, regions_empty=True, now=1e9)
    return hub, service


def test_a_marble_still_rolling_is_waited_for_until_it_rests(tmp_path: Path) -> None:
    """The first confirmation's frames see a marble of gate 4 roll on; the table reads again once it rests."""
    board = np.full((480, 640, 3), 120, np.uint8)
    resting = _red_marbles(board, (295, 230))
    rolling = [_red_marbles(board, (295, 230), (x, 228)) for x in (342, 352, 362)]
    still = _red_marbles(board, (295, 230), (365, 230))
    hub, service = _rolling_hub(tmp_path, [*rolling, still, still, still], board)
    assert hub.detect(resting).detection.counts == (0, 0, 1, 0, 0, 0)  # type: ignore[union-attr]
    detection = hub.confirm_now()
    assert service.asked == 6  # three frames, then three more once the marble rested
    assert detection is not None and detection.counts == (0, 0, 1, 1, 0, 0) and not detection.is_unsure
    assert hub.last_reading is not None and np.array_equal(hub.last_reading.frame, still)


def test_a_marble_that_never_rests_leaves_its_gate_unsure(tmp_path: Path) -> None:
    board = np.full((480, 640, 3), 120, np.uint8)
    rolling = [_red_marbles(board, (295, 230), (335 + 4 * i, 215 + 2 * i)) for i in range(12)]
    hub, service = _rolling_hub(tmp_path, list(rolling), board)
    detection = hub.confirm_now()
    assert service.asked == 9  # three confirmations, then no more waiting
    assert detection is not None and detection.counts[:4] == (0, 0, 1, 1)
    assert detection.unsure == (False, False, False, True, False, False)  # the resting gate 3 stays sure


def test_a_marble_seen_by_a_gate_during_a_confirmation_leaves_the_reading_to_its_own(tmp_path: Path) -> None:
    board = np.full((480, 640, 3), 120, np.uint8)
    rolling = [_red_marbles(board, (295, 230), (x, 228)) for x in (342, 352, 362)]
    still = _red_marbles(board, (295, 230), (365, 230))
    hub, service = _rolling_hub(tmp_path, [*rolling, still, still, still], board)
    readings: list[Any] = []
    hub._on_reading = lambda d, photo: readings.append(d)
    hub.settle_s = 3600.0  # the new marble's own confirmation is not run here
    ask = service.settled_frame

    def frame_and_a_marble(timeout: float = 2.0) -> np.ndarray | None:
        if service.asked == 4:  # while the first confirmation reads again, a gate sees one more marble
            hub.marble_seen(2)
        return ask(timeout)

    service.settled_frame = frame_and_a_marble  # type: ignore[method-assign]
    try:
        assert hub.confirm_now() is None and readings == []
        assert service.asked == 6  # it read its frames, then left them
    finally:
        hub.close()


def test_the_camera_alone_waits_for_a_marble_rolling_on_in_its_gate(tmp_path: Path) -> None:
    """The counts stay the same while a marble rolls on inside gate 4: no rest until the picture is still."""
    board = np.full((480, 640, 3), 120, np.uint8)
    hub, _ = _rolling_hub(tmp_path, [None], board, camera_only=True)
    reported = []
    for i, x in enumerate((352, 361, 370, 379, 379, 379, 379, 379)):
        result = hub.detect(_red_marbles(board, (295, 230), (x, 228)))
        assert result is not None and result.detection.counts == (0, 0, 1, 1, 0, 0)
        if (rested := hub._follow_rest(result, now=0.4 * i)) is not None:
            reported.append((i, rested))
    assert [i for i, _ in reported] == [6]  # still from the 4th frame (1.2 s) on: at rest a second later
    assert not reported[0][1].detection.is_unsure


def test_the_camera_alone_flags_a_gate_whose_marble_crept_during_the_rest(tmp_path: Path) -> None:
    """Too little from one frame to the next to see, but over the frames of the rest the marble moved on."""
    board = np.full((480, 640, 3), 120, np.uint8)
    hub, _ = _rolling_hub(tmp_path, [None], board, camera_only=True)
    rested = None
    for i, x in enumerate((352, 355, 358, 361, 364, 367)):
        result = hub.detect(_red_marbles(board, (295, 230), (x, 228)))
        assert result is not None
        assert not any(hub._moving([result, hub.detect(_red_marbles(board, (295, 230), (x + 3, 228)))]))
        rested = rested or hub._follow_rest(result, now=0.4 * i)
    assert rested is not None and rested.detection.unsure == (False, False, False, True, False, False)


def test_a_camera_that_stops_after_one_frame_confirms_from_that_frame(tmp_path: Path) -> None:
    board = np.full((480, 640, 3), 120, np.uint8)
    frame = _red_marbles(board, (295, 230))
    service = QueuedService([frame])
    hub = CameraHub(service, tmp_path, on_reading=lambda *_: None)  # type: ignore[arg-type]
    hub.set_regions(GATES)
    hub.reference.offer(board, beams_idle=True, regions_empty=True, now=1e9)
    detection = hub.confirm_now()
    assert service.asked == 2  # the second frame never came
    assert detection is not None and list(detection.counts) == [0, 0, 1, 0, 0, 0]
    assert detection == hub.detect(frame).detection  # type: ignore[union-attr]  # that frame's own reading


def test_the_camera_alone_reports_a_rest_with_the_flags_most_of_its_frames_raised(tmp_path: Path) -> None:
    from hardware.camera.hub import ReadingFrame
    from hardware.vision.detect import Detection

    hub = CameraHub(FakeService(None), tmp_path, on_reading=lambda *_: None,  # type: ignore[arg-type]
                    camera_only=True)
    regions = hub.set_regions(GATES)
    def seen(counts: tuple[int, ...], unsure: tuple[bool, ...]) -> ReadingFrame:  # a frame of its own each
        return ReadingFrame(np.zeros((48, 64, 3), np.uint8), None, regions, None,
                            Detection(counts, 0, (), unsure))  # type: ignore[arg-type]

    gate_2 = (0, 1, 0, 0, 0, 0)
    steady, flagged = (False,) * 6, (False, True, False, False, False, False)
    assert hub._follow_rest(seen(gate_2, flagged), now=0.0) is None
    assert hub._follow_rest(seen(gate_2, steady), now=0.6) is None
    rested = hub._follow_rest(seen(gate_2, steady), now=1.2)  # three frames over a second: at rest
    assert rested is not None and rested.detection.counts == gate_2
    assert not rested.detection.is_unsure  # one frame in three flagged gate 2
    # the marbles move on and rest again: two of the last three frames flag gate 2
    gate_2_and_3 = (0, 1, 1, 0, 0, 0)
    assert hub._follow_rest(seen(gate_2_and_3, steady), now=5.0) is None
    assert hub._follow_rest(seen(gate_2_and_3, flagged), now=5.5) is None
    rested = hub._follow_rest(seen(gate_2_and_3, flagged), now=6.0)
    assert rested is not None and rested.detection.unsure == flagged
    assert rested.detection is not hub._run[-1].detection and rested.frame is hub._run[-1].frame  # the newest
    assert hub._follow_rest(seen(gate_2_and_3, steady), now=6.5) is None  # reported once


def test_a_camera_that_is_down_confirms_nothing(tmp_path: Path) -> None:
    readings: list[Any] = []
    hub = CameraHub(FakeService(None), tmp_path, on_reading=lambda *a: readings.append(a))  # type: ignore[arg-type]
    hub.set_regions(GATES)
    assert hub.confirm_now() is None and readings == []  # the beams stay the live signal (ruling D3)
    with pytest.raises(NoPicture, match="no picture"):
        hub.capture_reference()


def test_a_damaged_calibration_file_is_reported_not_fatal(tmp_path: Path) -> None:
    (tmp_path / "gates.json").write_text("{not json")
    hub = CameraHub(FakeService(None), tmp_path, on_reading=lambda *_: None)  # type: ignore[arg-type]
    status = hub.status()
    assert status["calibrated"] is False and "calibrate again" in status["error"]


def test_a_moved_camera_drops_the_empty_reference(tmp_path: Path) -> None:
    from hardware.vision.detect import Detection

    empty = Detection(counts=(0, 0, 0, 0, 0, 0), outside=0, marbles=())
    round_has_marbles = [False]
    service = FakeService(marker_scene())
    hub = CameraHub(service, tmp_path, on_reading=lambda *_: None,  # type: ignore[arg-type]
                    round_empty=lambda: not round_has_marbles[0])
    hub.set_regions(GATES)
    hub.anchor_to_markers()
    assert hub._refresh_reference(marker_scene(), empty, last_check=0.0) is not None
    assert hub.reference.get() is not None
    round_has_marbles[0] = True  # a round is being played: no new reference may be taken now
    bumped = cv2.warpAffine(marker_scene(), np.float32([[1, 0, 15], [0, 1, 0]]), (640, 480),
                            borderValue=(200, 200, 200))
    hub.current_regions(bumped)
    hub._refresh_reference(bumped, empty, last_check=0.0)
    assert hub.reference.get() is None  # the old one no longer lines up with the picture
    round_has_marbles[0] = False
    hub._refresh_reference(bumped, empty, last_check=0.0)
    assert hub.reference.get() is not None  # taken again once the gates are empty


def test_a_sleeve_over_the_empty_gates_becomes_the_empty_reference_only_once_held_still(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Between rounds a sleeve over the simulated castle's front gates can read as no marble with those gates unsure:
    the empty reference is not refreshed from it (the gates would be blind beneath it), while the castle read empty
    and sure refreshes it at once. Held still for ``UNSURE_EMPTY_HOLD_S`` (a lamp switched on stays), it is."""
    from hardware.camera import hub as hub_module
    from hardware.camera.simulated import SimulatedCastle
    from hardware.vision.detect import Detection
    from tests.conditions import sleeved

    empty = Detection(counts=(0, 0, 0, 0, 0, 0), outside=0, marbles=())
    unsure = Detection(counts=(0, 0, 0, 0, 0, 0), outside=0, marbles=(), unsure=(False, True, True) + (False,) * 3)
    castle = SimulatedCastle()
    hub = CameraHub(FakeService(castle.render_empty()), tmp_path, on_reading=lambda *_: None,  # type: ignore[arg-type]
                    default_regions=castle.regions(), default_marble=castle.marble_size())
    hub.reference.min_interval = 0.0
    hub.capture_reference()

    def taken(frame: np.ndarray, detection: Detection) -> bool:
        before = hub.reference.get()
        hub._refresh_reference(frame, detection, last_check=0.0)
        return hub.reference.get() is not before

    assert not any(taken(sleeved(castle.render_empty()), unsure) for _ in range(3))
    assert taken(castle.render_empty(), empty)  # the empty castle, read sure
    monkeypatch.setattr(hub_module, "UNSURE_EMPTY_HOLD_S", 0.0)
    assert not taken(sleeved(castle.render_empty()), unsure)  # the first of a still run
    assert not taken(castle.render_empty(), unsure)  # the sleeve moved away: the run starts again
    assert taken(castle.render_empty(), unsure)  # still since: taken


def test_empty_references_saved_from_several_threads_take_turns(tmp_path: Path) -> None:
    """A person's tap and the vision loop may save the reference at the same moment: neither fails, and the
    file ends with the reference the store holds."""
    import threading

    import cv2
    import numpy as np

    from hardware.camera.reference import ReferenceStore

    store = ReferenceStore(tmp_path / "empty-reference.png", min_interval=0.0)
    start = threading.Barrier(4)
    failures: list[BaseException] = []

    def offer(shade: int) -> None:
        start.wait()
        try:
            for i in range(15):
                store.offer(np.full((48, 64, 3), shade + i, np.uint8), True, True, now=float(i))
        except BaseException as err:  # noqa: BLE001 - reported below
            failures.append(err)

    threads = [threading.Thread(target=offer, args=(shade,)) for shade in (0, 50, 100, 150)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    saved = cv2.imread(str(store.path), cv2.IMREAD_COLOR)
    assert saved is not None and np.array_equal(saved, store.get())


def _grainy(board: np.ndarray) -> np.ndarray:
    """``board`` as a room gone dim shows it: the camera's gain up, grainy."""
    grain = cv2.GaussianBlur(np.random.default_rng(5).normal(0.0, 40.0, board.shape), (0, 0), 1.5)
    return np.clip(board + grain * (30.0 / grain.std()), 0, 255).astype(np.uint8)


def _brighter(board: np.ndarray) -> np.ndarray:
    """``board`` under a brighter light: a pale board clips where it did not."""
    return np.clip(board.astype(np.float32) * 1.4, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("grey, change, note, cause", [
    (120, _grainy, "NOISY_PICTURE", "noisy"),
    (200, _brighter, "OVEREXPOSED_PICTURE", "overexposed"),
], ids=["far noisier", "over-exposed"])
def test_a_picture_unlike_its_reference_says_so(tmp_path: Path, grey: int, change: Any, note: str,
                                                cause: str) -> None:
    """A room gone dim (the camera's grainy picture), or the light on a pale castle grown brighter (the picture clips
    where the reference did not): every gate is unsure, and the status says why in plain words and what helps (the
    Camera page and the game page show it), and names the cause (``unsure_cause``, as it does before any reference);
    with the light as it was, the note goes. The open pages are told each time (``on_change``, which the server
    publishes to them), not left to find it at their next question."""
    from hardware.camera import hub as hub_module
    from tests.waiting import wait_for

    board = np.full((480, 640, 3), grey, np.uint8)
    cv2.circle(board, (320, 240), 30, (90, 140, 60), -1)  # a printed symbol
    why = getattr(hub_module, note).format(minutes=hub_module.UNSURE_EMPTY_HOLD_S / 60.0,
                                           waiting="every gate is left to the beams")  # beams fitted: their count
    service = FakeService(board)
    told: list[str | None] = []
    hub = CameraHub(service, tmp_path, on_reading=lambda *_: None, vision_fps=50.0,  # type: ignore[arg-type]
                    on_change=lambda: told.append(hub._unsure_note()))
    hub.set_regions(GATES)
    assert (hub.status()["unsure"], hub.status()["unsure_cause"]) == (hub_module.UNSURE_WITHOUT_REFERENCE,
                                                                      "no_reference")
    hub.capture_reference()
    hub.start()
    try:
        wait_for(lambda: hub.status()["last_detection"] is not None)
        assert (hub.status()["unsure"], hub.status()["unsure_cause"]) == (None, None)
        service.frame = change(board)
        wait_for(lambda: hub.status()["unsure"] == why)
        status = hub.status()
        assert status["unsure_cause"] == cause  # what the Diego flag gives as the reason for every gate
        last = status["last_detection"]
        assert last["unsure"] == [True] * 6
        assert (last["noisy"], last["overexposed"]) == (note == "NOISY_PICTURE", note == "OVEREXPOSED_PICTURE")
        wait_for(lambda: why in told)
        service.frame = board
        wait_for(lambda: hub.status()["unsure"] is None)
        assert hub.status()["unsure_cause"] is None
        wait_for(lambda: told[-1] is None)
    finally:
        hub.close()


def test_the_preview_is_drawn_when_a_page_asks_for_it_not_for_every_frame(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The vision loop reads frame after frame; the overlay and its JPEG are made only when the preview is
    asked for, once per frame read, and show the latest frame."""
    from hardware.vision import overlay
    from tests.waiting import wait_for

    drawn: list[np.ndarray] = []
    real = overlay.draw_overlay
    monkeypatch.setattr(overlay, "draw_overlay", lambda frame, *a: drawn.append(frame) or real(frame, *a))
    board = np.full((480, 640, 3), 120, np.uint8)
    service = FakeService(board)
    hub = CameraHub(service, tmp_path, on_reading=lambda *_: None, vision_fps=50.0)  # type: ignore[arg-type]
    hub.set_regions(GATES)
    assert hub.preview_jpeg() is None  # nothing read yet
    hub.start()
    try:
        wait_for(lambda: hub.status()["last_detection"] is not None)
        marked = board.copy()
        cv2.circle(marked, (295, 230), 12, (40, 40, 220), -1)
        service.frame = marked
        wait_for(lambda: hub._seen is not None and hub._seen.frame is marked)
        assert drawn == []  # many frames read, none drawn
        first = hub.preview_jpeg()
        assert first is not None and first[:2] == b"\xff\xd8" and drawn[-1] is marked
        service.frame = board
        wait_for(lambda: hub._seen is not None and hub._seen.frame is board)
        hub.close()  # the loop stops: the frame read last stays the one shown
        count = len(drawn)
        again = hub.preview_jpeg()
        assert again is not None and again != first and drawn[-1] is board
        assert hub.preview_jpeg() is again and len(drawn) == count + 1  # drawn once per frame
    finally:
        hub.close()


def test_the_camera_alone_takes_its_first_reference_at_once_and_after_a_move_only_from_an_empty_picture(
        tmp_path: Path) -> None:
    """Before any reference, a picture read without one is unsure anyway (the castle's own shapes may read as
    marbles): the first is taken as early as it may be. Once a move dropped it, marbles may rest unseen in the
    gates of a camera-alone round, so the next is taken only from a picture that reads empty."""
    from hardware.vision.detect import Detection

    empty = Detection(counts=(0, 0, 0, 0, 0, 0), outside=0, marbles=())
    shapes = Detection(counts=(0, 0, 1, 1, 0, 0), outside=0, marbles=(), unsure=(True,) * 6, with_reference=False)
    service = FakeService(marker_scene())
    hub = CameraHub(service, tmp_path, on_reading=lambda *_: None, camera_only=True)  # type: ignore[arg-type]
    hub.set_regions(GATES)
    hub.anchor_to_markers()
    assert hub._refresh_reference(marker_scene(), shapes, last_check=0.0) is not None
    assert hub.reference.get() is not None  # the first one, though the picture read marbles without it
    bumped = cv2.warpAffine(marker_scene(), np.float32([[1, 0, 15], [0, 1, 0]]), (640, 480),
                            borderValue=(200, 200, 200))
    hub.current_regions(bumped)
    hub._refresh_reference(bumped, shapes, last_check=0.0)
    assert hub.reference.get() is None  # dropped by the move, and not taken with marbles in the picture
    hub._refresh_reference(bumped, shapes, last_check=0.0)
    assert hub.reference.get() is None
    hub._refresh_reference(bumped, empty, last_check=0.0)
    assert hub.reference.get() is not None  # taken again once the gates read empty


def test_the_camera_alone_reads_resting_marbles_again_once_a_gate_in_doubt_is_sure(tmp_path: Path) -> None:
    """A marble reported while it still crept on leaves its gate in doubt, and the round flagged. Once it rests and
    every frame reads that gate sure, the same marbles are reported again without the doubt (the flag goes); never
    again with as much doubt or more, nor once the round holds no marbles (the next round's)."""
    from dataclasses import replace

    from hardware.camera.simulated import SimulatedCastle

    castle = SimulatedCastle()
    castle.add_marble(4)
    frame = castle.render()
    round_empty = [False]
    hub = CameraHub(FakeService(frame), tmp_path, on_reading=lambda *_: None,  # type: ignore[arg-type]
                    default_regions=castle.regions(), default_marble=castle.marble_size(), camera_only=True,
                    round_empty=lambda: round_empty[0])
    hub.reference.offer(castle.render_empty(), beams_idle=True, regions_empty=True, now=1e9)
    sure = hub.detect(frame)
    assert sure is not None and sure.detection.counts == (0, 0, 0, 1, 0, 0) and not sure.detection.is_unsure
    doubt = replace(sure, detection=replace(sure.detection, unsure=(False, False, False, True, False, False)))

    def follow(readings: list[Any], start: float) -> list[tuple[bool, ...]]:
        reported = (hub._follow_rest(r, start + 0.4 * i) for i, r in enumerate(readings))
        return [r.detection.unsure for r in reported if r is not None]

    assert follow([doubt] * 6, 100.0) == [doubt.detection.unsure]  # at rest, in doubt: the round is flagged
    assert follow([doubt, sure, doubt] * 2, 103.0) == []  # a flicker of doubt: nothing new
    assert follow([sure] * 6, 106.0) == [(False,) * 6]  # sure in every frame: once more, without the doubt
    assert follow([doubt] * 3 + [sure] * 3, 109.0) == []
    hub._rest_reported = (((0, 0, 0, 1, 0, 0), 0), doubt.detection.unsure)
    round_empty[0] = True  # revealed: the next round holds none of these marbles
    assert follow([sure] * 6, 112.0) == []


def test_marbles_beside_the_gates_do_not_refuse_the_empty_reference(tmp_path: Path) -> None:
    """The refusal says "the camera sees N marbles in the gates": a marble beside the castle (or a print stuck on
    after the reference, read as marbles outside every gate) is no marble of a round and refused it all the same."""
    from dataclasses import replace

    from hardware.camera.hub import NotEmpty
    from hardware.camera.simulated import SimulatedCastle

    castle = SimulatedCastle()
    hub = CameraHub(FakeService(castle.render_empty()), tmp_path, on_reading=lambda *_: None,  # type: ignore[arg-type]
                    default_regions=castle.regions(), default_marble=castle.marble_size())
    hub.reference.offer(castle.render_empty(), beams_idle=True, regions_empty=True, now=1e9)
    empty = hub.detect(castle.render_empty())
    assert empty is not None and empty.detection.total == 0
    hub._last = replace(empty.detection, outside=20)  # what the vision loop read: nothing in a gate, 20 beside
    assert hub.capture_reference()["captured"]
    hub._last = replace(empty.detection, counts=(0, 0, 1, 0, 0, 0), outside=20)
    with pytest.raises(NotEmpty, match="The camera sees 1 marble in the gates"):
        hub.capture_reference()


def test_a_reference_taken_before_any_gate_is_asked_again_of_a_person(tmp_path: Path) -> None:
    """Taken by itself from the first picture, before the gates were tapped, nothing checked that the gates were
    empty: a marble lying in one then stays unseen, and the refreshes keep it. The Camera page asks a person to take
    it again (``reference_unchecked``) until one does."""
    from hardware.camera.simulated import SimulatedCastle

    castle = SimulatedCastle()
    castle.add_marble(2)
    hub = CameraHub(FakeService(castle.render()), tmp_path, on_reading=lambda *_: None)  # type: ignore[arg-type]
    assert hub.status()["reference_unchecked"] is False
    assert hub._refresh_reference(castle.render(), None, last_check=0.0) is not None  # no gates: detection None
    assert hub.reference.get() is not None and hub.status()["reference_unchecked"] is True
    hub.set_regions(castle.regions().to_json())
    reading = hub.detect(castle.render())
    assert reading is not None and reading.detection.counts == (0,) * 6  # the marble is in the reference
    hub._refresh_reference(castle.render(), reading.detection, last_check=0.0)  # the gates "read empty": refreshed
    assert hub.status()["reference_unchecked"] is True
    castle.clear()
    hub.service.frame = castle.render()  # type: ignore[attr-defined]
    hub.capture_reference()
    assert hub.status()["reference_unchecked"] is False
