"""Gate regions: JSON round trip, validation messages, point lookup."""

from __future__ import annotations

import json

import pytest

from hardware.vision.regions import GateRegion, GateRegions, RegionsError, load_regions, save_regions


def _row() -> dict:
    return {"gates": [{"gate": g, "polygon": [[g * 100, 0], [g * 100 + 80, 0], [g * 100 + 80, 90], [g * 100, 90]]}
                      for g in range(1, 7)]}


def test_round_trip(tmp_path) -> None:
    regions = GateRegions.from_json(_row())
    path = tmp_path / "gates.json"
    save_regions(regions, path)
    assert load_regions(path) == regions
    assert json.loads(path.read_text())["gates"][0]["gate"] == 1


def test_gate_at() -> None:
    regions = GateRegions.from_json(_row())
    assert regions.gate_at(140, 45) == 1
    assert regions.gate_at(640, 10) == 6
    assert regions.gate_at(190, 45) is None  # between gates 1 and 2
    assert regions.gate_at(140, 95) is None
    assert regions.gate_at(100, 45) == 1      # on the edge counts as inside



def test_contains_agrees_with_the_polygon_test_on_and_around_a_slanted_polygon() -> None:
    from hardware.vision.regions import _point_in_polygon

    tri = GateRegion(1, ((10.0, 10.0), (50.0, 20.0), (20.0, 60.0)))
    for x in [9.0, 10.0, 10.0 + 1e-10, 15.0, 30.0, 50.0, 50.0 + 1e-7, 51.0]:
        for y in [9.0, 10.0, 20.0, 35.0, 60.0, 60.0 + 1e-7, 61.0]:
            assert tri.contains(x, y) == _point_in_polygon(x, y, tri.polygon), (x, y)
    assert tri.contains(50.0, 20.0) and tri.contains(20.0, 60.0)  # corners are on the edge
    assert not tri.contains(49.0, 55.0)  # inside the bounding box, outside the triangle

def test_borders_within_a_reach() -> None:
    regions = GateRegions.from_json(_row())  # gate g spans x from 100 g to 100 g + 80, y from 0 to 90
    assert regions.borders_within(140, 45, 5) == set()  # the middle of gate 1
    assert regions.borders_within(183, 45, 5) == {1}  # just right of gate 1, its right edge 3 px away
    assert regions.borders_within(190, 45, 11) == {1, 2}  # between gates 1 and 2, 10 px from each
    assert regions.borders_within(190, 45, 10) == set()  # closer than the reach, strictly
    assert regions.borders_within(140, 88, 5) == {1}  # by the bottom edge
    assert regions.borders_within(77, -3, 5) == set()  # off a corner of gate 1 by more than the reach
    assert regions.borders_within(98, -2, 3) == {1}  # off its top-left corner by 2.8 px
    tri = GateRegion(1, ((10.0, 10.0), (50.0, 20.0), (20.0, 60.0)))
    assert tri.border_within(30.0, 15.0, 1.0) and not tri.border_within(25.0, 30.0, 5.0)


def test_gates_near_the_pictures_edge() -> None:
    regions = GateRegions.from_json(_row())  # gate g spans x from 100 g to 100 g + 80, y from 0 to 90
    assert regions.near_picture_edge(700, 200, 5) == [1, 2, 3, 4, 5, 6]  # every gate starts at the top
    moved = GateRegions(tuple(GateRegion(g.gate, tuple((x, y + 20) for x, y in g.polygon)) for g in regions.gates))
    assert moved.near_picture_edge(700, 200, 5) == []  # 20 px from the top, 89.5 from the bottom
    assert moved.near_picture_edge(700, 200, 21) == [1, 2, 3, 4, 5, 6]
    assert moved.near_picture_edge(683, 200, 5) == [6]  # its right side at 680, the picture's edge at 682.5
    assert moved.near_picture_edge(660, 200, 5) == [6]  # beyond the picture
    # a reach below 0: the gates reaching that far beyond the picture (a tap's slack on its edge allowed)
    assert moved.near_picture_edge(640, 200, -2.0) == [6]  # 40 px beyond a 640 px picture
    assert moved.near_picture_edge(681, 200, -2.0) == []  # its side at 680 against the edge at 680.5


def test_order_is_normalised() -> None:
    data = _row()
    data["gates"].reverse()
    assert [g.gate for g in GateRegions.from_json(data).gates] == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d["gates"].pop(2), "missing gate 3"),
    (lambda d: d["gates"][0].update(polygon=[[0, 0], [1, 1]]), "at least 3 points"),
    (lambda d: d["gates"][1].update(polygon=[[0, 0], ["a", 1], [2, 2]]), "non-number"),
    (lambda d: d["gates"][1].update(polygon=[[0, 0], [True, 1], [2, 2]]), "non-number"),
    (lambda d: d["gates"][0].update(gate=7), "out of range"),
    (lambda d: d["gates"][0].update(gate="1"), "integer"),
    (lambda d: d["gates"][1].update(gate=1), "appears twice"),
    (lambda d: d["gates"][0].update(polygon=[[0, 0], [1, 1], [2, 2]]), "zero area"),
    (lambda d: d["gates"][0].update(polygon=[[0, 0], [1, 1, 1], [2, 2]]), "must be [x, y]"),
    (lambda d: d.pop("gates"), "missing 'gates'"),
])
def test_validation_names_the_problem(mutate, message) -> None:
    data = _row()
    mutate(data)
    with pytest.raises(RegionsError, match=message.replace("[", r"\[").replace("]", r"\]")):
        GateRegions.from_json(data)


def test_not_an_object() -> None:
    with pytest.raises(RegionsError, match="JSON object"):
        GateRegions.from_json([1, 2])


def test_load_errors(tmp_path) -> None:
    with pytest.raises(RegionsError, match="cannot read"):
        load_regions(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(RegionsError, match="not valid JSON"):
        load_regions(bad)


def test_constructor_validates() -> None:
    tri = ((0.0, 0.0), (1.0, 0.0), (0.0, 1.0))
    with pytest.raises(RegionsError, match="gates 1..6"):
        GateRegions(tuple(GateRegion(g, tri) for g in range(1, 6)))


def test_scaled_and_shifted_move_every_point() -> None:
    regions = GateRegions.from_json(_row())
    half = regions.scaled(0.5)
    assert half.gates[1].polygon == ((100.0, 0.0), (140.0, 0.0), (140.0, 45.0), (100.0, 45.0))
    assert regions.scaled(2.0, 0.5).gates[0].polygon[2] == (360.0, 45.0)
    moved = regions.shifted(3.5, -2.0)
    assert moved.gates[5].polygon[0] == (603.5, -2.0) and [g.gate for g in moved.gates] == list(range(1, 7))


def test_a_kept_rounds_label_gives_its_gates(tmp_path) -> None:
    from tests.test_photo_eval import kept_sample

    folder = kept_sample(tmp_path, 1)
    label = json.loads((folder / "label.json").read_text())
    assert load_regions(folder / "label.json") == GateRegions.from_json(label["gates"])
    label["gates"] = {"gates": label["gates"]["gates"][:5]}
    (folder / "label.json").write_text(json.dumps(label))
    with pytest.raises(RegionsError, match="missing gate 6"):
        load_regions(folder / "label.json")


def test_overlapping_gates_are_found_and_gates_meeting_at_a_border_are_not() -> None:
    """A marble where two tapped gates overlap would count in one of them only: more than ``OVERLAP_SHARE`` of the
    smaller one is an overlap; borders tapped a pixel into each other are not."""
    row = _row()
    assert GateRegions.from_json(row).overlapping() == []
    row["gates"][1]["polygon"] = [[240, 0], [320, 0], [320, 90], [240, 90]]  # gate 2 over a quarter of gate 3
    (a, b, share), = GateRegions.from_json(row).overlapping()
    assert (a, b) == (2, 3) and share == pytest.approx(0.25, abs=0.02)
    row["gates"][1]["polygon"] = [[220, 0], [301, 0], [301, 90], [220, 90]]  # meets gate 3 (from 300) a pixel in
    assert GateRegions.from_json(row).overlapping() == []
