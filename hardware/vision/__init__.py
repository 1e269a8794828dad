"""Marble vision: gate regions, marble detection per gate, overlays, the `companion detect` command."""

from hardware.vision.detect import Detection, Marble, MarbleDetector, count_marbles
from hardware.vision.regions import GateRegion, GateRegions, RegionsError, load_regions, save_regions

__all__ = ["Detection", "GateRegion", "GateRegions", "Marble", "MarbleDetector", "RegionsError",
           "count_marbles", "load_regions", "save_regions"]
