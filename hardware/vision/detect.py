"""Count the marbles resting in each gate region of a camera frame.

Method (nothing fitted to one scene generator's colours; every threshold is a relative change):

1. Work on the gate area only (regions' bounding box plus a margin of a few marble radii), scaled
   so that a marble has a radius of about ``WORK_RADIUS`` pixels; colours go through a log table,
   so a light change is nearly an additive offset (exactly so for bright values; see 2).
2. Change image: difference to the empty reference in log-RGB after removing the light change
   (global median offset plus a smooth, robust low-frequency correction, the edge of a large shade
   followed by a median over several marble radii, and an offset per picture row: the bands a rolling
   shutter records under a flickering lamp), with a 3x3 envelope of
   the reference for a camera nudge of about a pixel. The light change is applied to the
   reference as a gain on its linear values (a channel near black stays near black, so saturated
   printed colours do not seem to change hue), and an over-exposed channel, of the reference or
   of the frame, is only a lower bound (more light than when the reference was taken clips a pale
   board to white, leaving one channel to brighten: no colour change). Brightness and colour
   change are combined; pure darkening (what a shadow does) is weighted down. Without a reference
   the frame is compared with a median-filtered copy of itself (a local background learnt from the
   gate area itself).
3. Circle evidence of the known marble radius: every pixel on an edge of the change image votes
   for the point one radius (0.75..1.25 radii) into the change, so a marble's outline piles its
   votes on its centre; the inner edge of a thin ring (the dark rim of clear glass whose inside
   looks like the board) votes the other way, also toward the centre, at a lower weight.
   Touching marbles keep separate centres; a soft shadow edge or a straight printed edge spreads
   its votes. The fraction of the disc that changed is added as a second, weaker evidence. With a
   reference, a picture noisier than it (a room gone dim, the camera's gain turned up) raises the gradient
   an edge must reach (``NOISE_EDGE``) and the glare every marble needs (``NOISE_GLARE``).
4. Peaks count only with a small bright spot near the centre (the specular highlight every glass or
   glazed marble shows; over-exposed, clipped pixels also pass, since there no highlight can stand
   out). The marble radius of this frame is measured from the pooled votes of the clear detections
   (the expected radius when those votes peak at the smallest radius voted for: inner structure, no
   measurement; never much less than a radius given, since glass votes on its inner rim); peaks are
   then kept greedily, strongest first, at least ``PEAK_SEPARATION`` radii apart (a touching
   neighbour, whose votes peak pulled toward the marble, is left to the review of step 6), and a
   weaker peak closer than ``SHADOW_REACH`` radii to a kept marble, on the side away
   from the light, is its shadow and the caustic that glass focuses into it. The light's direction
   is the consensus of the confident marbles' highlight directions (one lamp lights the table), else
   where that marble's own highlight sits. A marble and its shadow can merge into one blob whose
   votes peak on the shadow side: then a peak on the light side that is nearly as strong replaces
   it. With a reference, the clearer a circle the weaker the highlight it needs: it falls with the
   score through a weaker one at ``STRONG_SCORE`` to a faint one at ``VERY_STRONG_SCORE``
   (``_glare_needed``). Under soft light (a window, a large shade) glass shows no sharp glare at
   all: with a reference, when the very clear circles' glare is hardly brighter than the empty scene
   was there (``SOFT_GLARE``: a lamp's glare outshines the board, a window's reflection does not), a
   circle of ``SOFT_SCORE`` or more needs none.
5. With a reference, a new highlight (absent from the empty scene) away from every marble found,
   with some circle evidence around it, is one more marble: faint clear glass on a similar board.
6. With a reference, a candidate whose nearest stronger marble kept lies 1.55..2.3 radii away (a
   touching marble or a shadow with a caustic) is kept or rejected by a tiny network (16 units) over a
   few relative measurements (``hardware.vision.candidates``, fitted on training seeds only),
   among them a lamp's physics: a glare on a sphere is a point and a caustic spread, a real
   marble casts its own shadow, one lamp puts every glare at the same offset. Then, strongest
   first, a circle of ``min_score`` or more without the glare it needed, at least 1.55 radii from
   every marble kept, is added or left out by a second such network over its own measurements
   (``candidates.unlit_features``: the dark rim of clear glass, the change around it, the faint
   glare it has, the nearest marble and its shadow side, soft light): clear glass under soft
   light, a marble whose glare a roll smeared.
7. A marble's centre is the vertex of the score's peak to a fraction of a working pixel
   (``_subpixel``), placed in the frame at the pitch the resize gave; by a border between gates (closer than
   ``FIT_MOVE`` + ``BORDER_RADII`` radii), where its fitted centre could change its gate or the border's flag, it is
   placed by a circle fitted to its outline in the frame itself (``hardware.vision.centre``). It counts for the gate
   whose polygon contains it, otherwise it is "outside". A marble cut by the picture's edge (``PICTURE_EDGE_RADII``)
   is placed from where its change ends (``reach_inward``), and is "outside" when that puts its centre
   beyond the edge.
8. A gate's count is *unsure* (ruling D4: the table asks for a tap rather than score it) when a
   decision in it was close: a kept marble barely above ``min_score``, a peak that nearly passed
   (score or highlight within ``NEAR_MISS`` of its threshold; an over-exposed spot passes for the
   highlight) where passing would have added a marble (``NEAR_SAME``), a candidate the review model kept
   or rejected by a small margin (``REVIEW_MARGIN``), two marbles kept closer than ``CLOSE_PAIR`` radii
   (a touching pair or one rolling marble), a clear circle of the marble's size without its highlight,
   far from every marble (``UNLIT_SCORE``: a rolling marble's glare smeared away), or (with a reference,
   ``hardware.vision.unexplained``) a changed blob the size of a marble that no
   marble found explains (``UNEXPLAINED_AREA``: a smeared, rolling marble, a faint one, a new
   object), or a changed blob holding more change than the marbles found in it explain:
   ``REST_AREA`` marble discs outside their discs, off the shadow side (a touching neighbour
   missed, a marble still rolling and smeared along its path: the gate waits for a person rather
   than score it), or a blob with no marble in it that is no near marble's shadow, or a place far
   from every marble found where the change averaged over a marble's disc reaches
   ``FAINT_CHANGE`` (a rolling marble smeared too thin for a circle or a blob), or, under a low lamp,
   a marble kept where another one's shadow and caustic fall (their reach from the glare's offset,
   ``_shadow_reach``), or a marble found within ``BORDER_RADII`` of the border between two gates (both
   are unsure; within ``FIT_MOVE`` + ``BORDER_RADII`` where no fit to its outline held), or a marble cut
   by the picture's edge in a gate that reaches it, or a marble the reference holds and the picture no
   longer does (taken out after a reference was taken with it in a gate: ``hardware.vision.taken_out``;
   not counted), or a marble found where the picture shows the reference's
   pattern but for the light (a print of a marble's size under more light: ``taken_out.unchanged``; not
   counted). Without a reference every gate is unsure. For the camera alone,
   a reading it reports is checked once more: a marble whose outline is square (a die: ``flag_squares``).
9. With a reference, faint change far from every marble with the size and shape of one marble smeared
   along its way, standing out of the change around it (``hardware.vision.unexplained.smeared_marbles``:
   glass still rolling while the shutter was open; not what a shade or a flickering lamp leaves) counts as
   one marble there, and its gate is unsure: the best guess, for a person to confirm.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass, replace

import cv2
import numpy as np

from hardware.vision import candidates as review
from hardware.vision.centre import FIT_MOVE, fitted_centre
from hardware.vision.circles import (
    LOG_OFFSET,
    LOG_TABLE,
    MEAN3,
    RADIUS_FACTORS,
    RATIO_TABLE,
    Peak,
    best_radius,
    change_magnitude,
    circle_votes,
    disc_window,
    light_gain,
    local_background,
    local_maxima,
    median,
    neighbourhood_votes,
    to_log,
)
from hardware.vision.regions import GateRegions, edge_clearance
from hardware.vision.unexplained import (
    EXPLAINED_RADII,
    UNEXPLAINED_CHANGE,
    blob_centres,
    disc_mean,
    faint_change,
    faint_streaks,
    leftover_change,
    smeared_marbles,
    unexplained_blobs,
)

ROI_MARGIN_RADII = 6.0
"""The gate area is read with this many marble radii around the regions, so that a marble that misses
the gates (in front of the row or beside it) is wholly in view and counts as outside. At 4 radii a
frame was read about 15% faster, the six counts no worse than a pixel's shift of the picture moves
them, but the outside count of 0.018 more ordinary training scenes was wrong (a marble 3 to 4 radii in
front of the row only half in view)."""

WORK_RADIUS = 6.0
"""Marble radius in pixels of the internal working image (frames are scaled down to this). At 5 a frame
was read 21% faster (1.32 paces against 1.67), but traced glass read 0.967 on average over three
crops of the picture a frame pixel apart against 0.972 over six at 6, and ordinary scenes read wrong and
sure in 0.005 against 0.0013 (training seeds 62000..62399 and 40000..40399; every threshold was chosen
at 6). Measured again with the table case (a 3 x 2 grid over the whole frame, where the time
matters most: 6.05 ms a frame at 6 in bench_vision): at 5 its training scenes 62000..62399 read 383 of 400 right
against 381, in three quarters of the time, and the streak case's 363 against 361; but the castle's cases
(62000..62059, 480 scenes) read 470 against 472 as taken, and 2 to 8 fewer under each of five conditions of a real
table (a shade 30 % and 50 % darker, a flickering lamp's bands, a camera nudged 2 px, a noisier picture), the
blur case most. Above 6 the real sequence of bench/bench_real_sequence.py (marble radius 8.2 px) read no better:
with the inset gates, all six exact 0.700, 0.729, 0.786 and 0.786 at 6.5, 7, 8 and 8.2 (no scaling)
against 0.786 at 6, gates 0.936 to 0.952 against 0.952, at 2.1 to 3.7 times the time a frame. At 8 on
rendered training scenes (edges voting from 0.0225 log units a working pixel, the same slope a marble
radius as 0.03 at 6), traced glass read 5 scenes better in 300 (62000..62299) and then 4 worse in 400
(62300..62699), rolling marbles 4 worse and then 2 better: no better, for 1.8 times the working pixels."""

RADIUS_PER_REGION_SIDE = 1.0 / 7.0
"""Default marble radius as a fraction of sqrt(median region area) when no radius is given."""


@dataclass(frozen=True)
class Marble:
    """One detected marble: centre and radius in frame pixels, gate 1..6 or None (outside)."""

    x: float
    y: float
    r: float
    gate: int | None

    def to_json(self) -> dict:
        return {"x": round(self.x, 1), "y": round(self.y, 1), "r": round(self.r, 1), "gate": self.gate}


NOT_UNSURE = (False,) * 6


@dataclass(frozen=True)
class Detection:
    """Counts per gate (gate 1 first), marbles outside every region, and the marbles found;
    ``unsure`` per gate (gate 1 first): its count rests on a close decision and needs a person's
    confirmation (ruling D4); ``with_reference``: an empty reference scene was used (without one
    every gate is unsure); ``noisy``: the picture carried far more noise than its reference (every gate
    is unsure); ``overexposed``: the picture is over-exposed over much of the gate area where its reference was not
    (``OVEREXPOSED_SHARE``: every gate is unsure)."""

    counts: tuple[int, int, int, int, int, int]
    outside: int
    marbles: tuple[Marble, ...]
    unsure: tuple[bool, bool, bool, bool, bool, bool] = NOT_UNSURE
    with_reference: bool = True
    noisy: bool = False  # far noisier than its reference (``NOISE_UNSURE``): every gate is unsure
    left: tuple[Marble, ...] = ()  # marbles the reference holds and the picture no longer does: not counted
    overexposed: bool = False  # over-exposed where its reference was not (``OVEREXPOSED_SHARE``): every gate unsure

    @property
    def total(self) -> int:
        return sum(self.counts) + self.outside

    @property
    def is_unsure(self) -> bool:
        """True when any gate's count is unsure."""
        return any(self.unsure)

    def to_json(self) -> dict:
        return {"counts": list(self.counts), "outside": self.outside,
                "marbles": [m.to_json() for m in self.marbles],
                "unsure": list(self.unsure), "with_reference": self.with_reference, "noisy": self.noisy,
                "overexposed": self.overexposed, "left": [m.to_json() for m in self.left]}


def estimate_marble_radius(regions: GateRegions) -> float:
    """Expected marble radius in pixels from the size of the gate regions."""
    areas = sorted(g.area() for g in regions.gates)
    median = 0.5 * (areas[2] + areas[3])
    return max(1.5, math.sqrt(median) * RADIUS_PER_REGION_SIDE)


@dataclass(frozen=True)
class _Tuning:
    """Thresholds of one mode (with or without reference); all relative (log units or fractions)."""

    grad_min: float      # edge strength of the change image that votes (log units per pixel)
    min_score: float     # circle votes + FILL_WEIGHT * disc fill needed for a marble
    highlight: float     # brightest spot near the centre above its surroundings (log units)
    strong_highlight: float  # fraction of ``highlight`` enough at a peak of STRONG_SCORE
    very_strong_highlight: float  # fraction enough at a peak of VERY_STRONG_SCORE or more


WITH_REFERENCE = _Tuning(grad_min=0.03, min_score=0.25, highlight=0.14, strong_highlight=0.7,
                         very_strong_highlight=0.4)
WITHOUT_REFERENCE = _Tuning(grad_min=0.15, min_score=0.4, highlight=0.25, strong_highlight=1.0,
                            very_strong_highlight=1.0)
"""Without a reference a printed symbol's circle is as strong as a marble's: no discount there.
Only strong edges vote (the board's texture and print, compared with its own median, give many
weak ones): chosen on rendered scenes, where 0.1..0.2 form a plateau (exact 0.36 against 0.31 at
0.03), it also reads the real marble-unet photos better and is faster (see bench_real_photos)."""

DARK_WEIGHT = 0.5
"""Weight of pure darkening in the change (a shadow darkens; a marble also changes colour/edges)."""

FILL_WEIGHT = 0.3
"""Weight of the changed fraction of the marble's disc, added to the circle votes."""

FILL_MIN_CHANGE = 0.15
"""Change (log units) above which a pixel counts as changed for the disc fill (raised with noise)."""

PEAK_SEPARATION = 1.7
"""Minimum distance between two marble centres, in radii measured in the frame (touching: 2)."""

HIGHLIGHT_REACH = 0.7
"""The specular highlight is looked for within this many expected radii of a peak."""

STRONG_SCORE = 0.6
"""Score of a clear circle of the marble's size: it needs only ``strong_highlight`` times the
usual highlight (the two evidences add up; a small glare is blurred away at the working size),
and between this and ``VERY_STRONG_SCORE`` the need falls linearly (chosen on training seeds: as
two steps at these scores, traced glass and rolling marbles read 3 scenes in 600 fewer each)."""

CLIPPED_LUM = float(LOG_TABLE[245])
"""Mean log brightness of a clipped (over-exposed) pixel: there a highlight cannot stand out, so
a clipped spot near the centre passes for one."""

VERY_STRONG_SCORE = 0.75
"""A circle this clear needs only ``very_strong_highlight`` times the usual highlight (with a
reference 0.4: a rolling marble smears its glare into a faint streak, real glass under diffuse light
shows a small one, but a changed disc of the marble's size with a clear outline is a marble)."""

SOFT_GLARE = 1.0
"""With a reference, a frame whose clear circles (``VERY_STRONG_SCORE`` or more) show a median new
glare (how much brighter their glare is than the empty scene was there, at most how much it stands
out of the marble) below this fraction of the usual highlight is lit softly: a lamp's glare is far
brighter than the board it lights, while a window or a large shade shows on glass as a reflection
dimmer than the board (it stands out of a dark, tinted marble all the same). Chosen on training
seeds (0.5 to 2.0 read the same); see also ``SOFT_SPOT``."""

SOFT_SPOT = 2.0
"""A softly lit frame's clear circles' glare also stands out of them by less than this many times the
usual highlight (a painted glare can stand out of a dark marble without outshining the board: chosen on
training seeds, where this keeps every ordinary reading and traced glass gains all the same)."""

SOFT_SCORE = 0.45
"""In a softly lit frame a circle of this score or more needs no highlight (chosen on training seeds
of the traced glass case: a plateau from 0.3 to 0.45; the painted cases do not change)."""

RADIUS_SCORE = 0.7
"""Score of the detections whose votes measure the frame's marble radius."""

RADIUS_FLOOR = 0.95
"""A radius given (from the calibration) is never measured below this fraction of it. Chosen on
training seeds (300 per case), against no floor: at 0.9 traced glass reads 2 scenes better; at
0.95 it reads 7 better, with its unsure scenes down from 0.32 to 0.21, and rolling marbles 2 worse;
at 1.0 glass 6 better, rolling marbles 3 and touching pairs 2 worse (the thresholds near 2 radii
were tuned in the smaller radius measured)."""

SHADOW_REACH = 1.9
"""A weaker peak closer than this many radii to a kept marble, on its far side from the light,
is that marble's shadow (a real neighbour's centre is at least 2 radii away). The lamp's own reach
(``_shadow_reach``, up to ``SHADOW_MAX_REACH``) here as well read one traced glass scene in 400 better
(training seeds 62000..62399), less than a pixel's shift of the picture moves the figures (see
tests/vision_fit.py ``measure``): the candidate review decides from 1.55 radii on in any case."""

SHADOW_BEYOND = 0.3
"""A shadow's far part and caustic lie up to this many radii beyond its centre. Traced glass under a low lamp
still reads a caustic 2.4 radii out as a marble now and then (training seed 64327: the glare offsets said its
shadow lies 1.7 radii out). At 0.5 and 0.7, of 1,500 traced glass scenes (63000..64499) 1 and 2 fewer were
read wrong and sure (of 7) for 13 and 21 more flagged, and of 2,800 (62000..62399) none fewer (of 9) for 19
and 38 more; measured from one confident marble's glare instead of two, none fewer for 4 and 11 more."""

SHADOW_MAX_REACH = 2.6
"""Farthest (radii) a marble kept makes its gate unsure for lying in another's shadow. Not when a review
network kept it by more than ``REVIEW_MARGIN`` was tried: of training seeds 62000..62399 (every case) 0.110
of the scenes were flagged against 0.120, none wrong more left unflagged, but held-out traced glass 70042
read an extra marble (a caustic the review kept by a clear margin) with no gate flagged."""

SHADOW_COS = 0.8
"""Cosine of the largest angle between the shadow direction (away from the light) and the peak."""

SEED_SCORE = 0.15
"""Circle evidence (score) that a new highlight needs nearby to count as a marble (see
``_seeded_by_highlights``); lower than ``min_score``, since the highlight is evidence too."""

SEED_AWAY = 1.8
"""A new highlight closer than this many radii to a found marble is its glare or caustic (2.0 while
distances were in the smaller radius measured; in the radius given 2.0 lost a touching marble's glare:
1.8 on training seeds reads one rolling marble in 300 more, the rest the same). A new highlight this
far from every marble that seeds none, made a flag (a roll's smeared glare), flagged none of the
rolling clear marbles read wrong and not flagged on training seeds 63000..63599 (their streak is
dimmer than ``highlight`` or lies next to a marble found), and one more scene in 600 of the others."""

LIGHT_AGREEMENT = 0.7
"""Length of the mean highlight direction (unit vectors) above which the marbles agree on the light."""

LIGHT_SIDE_RATIO = 0.7
"""A peak on the light side of a stronger one it conflicts with replaces it when at least this
fraction as strong (the stronger one being the marble's centre pulled onto its shadow)."""

SHADOW_MAX_CHROMA = 0.15
"""Median colour change (log units) in a disc above which a peak is no shadow (a shadow only darkens)."""


NOISE_EDGE = 3.0
"""With a reference, an edge of the change votes only where its gradient reaches this many times the frame's
noise (``_noise``), if that is more than ``grad_min``: a room gone dim, the camera's gain turned up after the
reference was taken, and the picture carries more sensor noise than the reference. Measured under
``tests.vision_fit.CONDITIONS``' "noise 8 steps more" and "noise 12 steps more" (of 255, before the
camera's own noise and clipping) on training seeds 62000..62099 (every case and ordinary, 800 scenes), six
counts exact / a gate wrong and not flagged / flagged: before, 750 / 15 / 121 and 613 / 34 / 256 (as taken
778 / 10 / 94), almost every wrong marble a new highlight of noise seeding one (``SEED_SCORE`` asks for little
circle evidence); now 766 / 15 / 111 and 729 / 19 / 214. In a first form (the highlight itself raised, as
the review networks read it too), with ``NOISE_GLARE`` alone 767 / 15 / 110 and 712 / 29 / 212, and with this
at 2, 722 / 23 at 12 steps. As taken nothing changed there, and on 62000..62299 (2,400 scenes) the same 2,342
read right and 21 wrong and sure, 318 flagged against 319. Under the other nine conditions (62100..62199,
7,200 scenes) 6,854 read right against 6,834, 109 wrong and sure against 120, 1,368 flagged against 1,369 (a
shade 50 % darker: 766 against 771 right, 10 against 13 wrong and sure; a camera nudged 3 px: 665 against 650,
28 against 35); under the noisier pictures there, 772 / 9 / 142 and 743 / 14 / 213. Without a reference the
board's texture, not noise, is what its own median leaves, so nothing is raised there (the real photos of
bench_real_photos read 0.625 of 40 photos all six exact against 0.750 when it was)."""

NOISE_UNSURE = 0.03
"""A frame whose noise (``_noise``, log units) is above this makes every gate unsure (ruling D4): a picture far
noisier than its reference, as a dim room leaves it, reads wrong and sure too often for any one close decision to
catch. Measured on training seeds 62000..62099 (every case and ordinary, 800 scenes) before it was set. With the
noise smoothed as a camera's own denoising leaves it (``tests.conditions.noisier``'s ``smoothed``, 1 px), 12
steps a pixel read 550 right and 67 wrong and sure, 732 flagged: 389 scenes lie above it, 33 of those 67 among
them, and all but 3 of the 389 were flagged already. Above it too: 20 scenes under 12 steps more unsmoothed noise
(19 flagged already, none wrong and sure) and 22 under 24 steps smoothed to 6.8 (all flagged, 2 wrong and sure).
At 0.02, 42 of the 67 were caught, but under a shade 50 % darker 15 of 400 scenes (62100..62149) lay above it,
9 of them not flagged; at 0.03, none under any other condition of ``tests.vision_fit.CONDITIONS`` (the highest,
0.029, under that shade). As taken the noise reached 0.012 at most, and 0.0033 in the real sequence's frames
(bench_real_sequence).

All six exact / a gate wrong and not flagged / flagged, on the same 800 scenes: noise as a sensor's shot noise (12
steps at mid-grey, growing with the square root of the light) reads as well as uniform noise: 770 / 9 / 112. Noise
smoothed before it reaches the companion, as a camera's own denoising leaves it (Gaussian, 1 px), is what this
answers, in part: from 12 steps before smoothing (3.4 after) 767 / 11 / 113, but from 24 (6.8 after) 715 / 25 /
378, and 6 steps after smoothing 732 / 23 / 287. That noise survives the scaling down to the working image, and
``unexplained.faint_change`` flags most of those scenes (18 of 20 ordinary ones at 12 steps after smoothing).
Measured and not kept: the change smoothed by a Gaussian 1 working pixel wide when the noise is above 0.015 (and
not above this). On 62000..62099 it read 736 / 20 / 235 against 732 / 23 / 287 at 6 steps after smoothing, 574 / 34
/ 630 against 550 / 34 / 735 at 12, and 734 / 19 / 178 against 729 / 19 / 215 under 12 steps unsmoothed; but under
a shade 50 % darker, whose soft edge the light correction leaves behind and ``_noise`` takes for noise (up to
0.029), 2 of the 24 scenes of ``test_a_large_shade_over_the_castle_changes_no_reading`` read otherwise (1 to 2 in
400 under each shade of ``tests.vision_fit.CONDITIONS``). A noise measure from neighbouring pixels' differences,
meant to be blind to such smooth residue, did not tell them apart either (training seeds 62100..62114, ordinary,
traced glass and streaks: up to 0.009 under that shade, a median of 0.008 under 6 steps smoothed)."""

NOISE_GLARE = 8.0
"""With a reference, a glare (and a new highlight that seeds a marble) must stand out this many times the
frame's noise more than it needed (see ``NOISE_EDGE``; in the first form, alone, 4 read 706 right and 34
wrong and sure at 12 steps more against 712 and 29)."""

OVEREXPOSED_SHARE = 0.1
"""A picture over-exposed (a channel at ``CLIPPED_VALUE`` or more) over more than this share of its working image
where its reference was not makes every gate unsure (ruling D4): the light grew brighter on a pale board, whose
clipped pixels no longer tell how much (the light's change is only a lower bound there), and what the board's
print and shadows show against the reference is no longer what a marble would (the streak case's pale tables: a
printed symbol brightened by the light reads as a marble, sure). On training seeds 62000..62399 of the table and
streak cases and 62000..62059 of the castle's cases, as taken and the castle's under five conditions of a real table
(3,680 readings, 35 read wrong and sure, 875 flagged): at 0.1, 7 of the 35 are caught (the streak case's), for 74
readings more flagged (72 of them read right; 57 of the 131 above it were flagged already); at 0.05, 9 for 144;
at 0.15, 1 for 53. Held out (70000..70499, 4,000 scenes, ``python -m tests.vision_fit measure``, measured once, after):
flagged 0.211 against 0.186, a gate wrong and not flagged 0.005 against 0.006 (the streak case 0.022 against
0.026), the six counts as before."""

NEAR_MISS = 0.92
"""A rejected peak whose score reaches this fraction of ``min_score`` and whose highlight reaches
this fraction of the one it needed (or the reverse) makes its gate unsure. An over-exposed spot near its
centre passes for the highlight here as it does for a marble (``CLIPPED_LUM``): clear glass at rest on a
white board the lamp over-exposes shows a faint rim and no glare that can stand out. While the near miss
asked for a highlight that stands out, such a marble was missed and not flagged in 2 of the 23 scenes read
wrong and sure of training seeds 62000..62299 (every case and ordinary, 2,400 scenes; both the streak case's
pale tables): now both are flagged, and no other scene reads otherwise. As taken and under the nine
``tests.vision_fit.FITTED_CONDITIONS`` (62100..62199, 8,000 scenes), 128 against 129 read wrong and sure,
1,488 against 1,486 flagged. Measured and not kept: every peak under ``min_score`` (all reach ``NEAR_MISS`` of it)
far from every marble (``EXPLAINED_RADII``) flagged whatever its glare, over-exposed or not: under the
conditions 126 read wrong and sure, for 1,521 flagged, and on held-out streak scenes (72000..72299) it
flagged one scene read right and caught none."""

NEAR_SAME = review.REVIEW_NEAR
"""A near miss closer than this many radii to a kept marble is a second peak of that marble: no two
marbles are kept closer (the review's nearest), so had it passed, the count would be the same, and it
is no close decision. At 1.0 radius, 0.120 of training scenes were flagged against 0.099, and no gate read
wrong lost its flag (seeds 62000..62399, every case: 2,800 scenes; one rolling-marble scene wrong in a
gate flagged by no rule lost the flag of another, right gate); held out (70000..70499, 3,000 scenes) 0.119
against 0.097 from one frame, 0.111 against 0.097 from three, every wrong reading flagged as before.
Flagging the other way, a peak that passed but was dropped 1.2 to 1.55 radii from a marble kept (where a
rolling marble's peak, pulled toward its neighbour, is dropped unseen) would have caught 9 of the 21
scenes read wrong and sure in 7,000 (62000..62999, ordinary and every case), and flagged 1,375 of them
against 671; from 1.3 radii and a score of 0.35, 7 of them for 954 flagged. Not a rule here. Nor such a peak
(1.2 radii on) moved out along the line from that marble to where the score is highest 1.8 to 2.2 radii from
it, and handed to the review network: kept where the network said so, 7 scenes fewer of 2,800 read right
(62000..62399, every case and ordinary); a flag where it said so caught 5 of the 9 scenes read wrong and sure
there for 13 more flagged, but 1 of 9 for 6 more on 66000..66399, and none of 12 for 15 more held out
(70000..70499)."""

SURE_SCORE = 1.1
"""A kept marble below this many times ``min_score`` makes its gate unsure."""

CLOSE_PAIR = 1.8
"""Two marbles kept closer than this many radii make their gate unsure (a touching pair read as
one smeared marble, or one marble read as two). One marble smeared by its roll is read as two at 1.6 to 2.5
radii now and then, one at each end of its streak (the streak case). Neither the two circles' scores nor the
change between them told those from real pairs: of the pairs kept 1.55 to 2.8 radii apart in training seeds
62000..62199 (streak, touching, rolling and traced glass), 29 were one marble and 758 two, and the change
at the middle against that at the weaker end split them no better than chance (medians 1.9 and 1.1)."""

REVIEW_MARGIN = 1.0
"""A reviewed candidate whose review score (log-odds) lies within this of 0 makes its gate unsure.
Chosen on training seeds (glass 63000..64499, the others 62000..; confirmed on 64500..65199): from 0.5,
traced glass read wrong and not flagged fell from 13 scenes in 1,500 to 10 (and from 4 in 700 to 3),
rolling marbles from 3 in 1,000 to 2 (2 in 700 to 1), for 0.002 to 0.008 more scenes flagged; 1.5
caught one scene more in 1,500 of traced glass and flagged twice as many more."""

UNLIT_MARGIN = 2.0
"""The same for a clear circle without its glare (the unlit network): a score within this of 0 makes
its gate unsure. Most circles that network counts wrong it counts by little: judged on odd training
seeds, fitted on even, 0.78 of them below log-odds 2 (0.48 below 1), and 0.28 of the real marbles it
counts (0.13 below 1). On training seeds 62100..62199 as taken and under the nine
``tests.vision_fit.FITTED_CONDITIONS`` (8,000 scenes), at 2 a gate was read wrong and not flagged in 129
scenes and 1,486 were flagged; at 1, 135 and 1,455."""


UNLIT_SCORE = 1.4
"""With a reference, a peak of this many times ``min_score`` without the highlight it needed,
farther than ``EXPLAINED_RADII`` from every marble kept, makes its gate unsure: a clear changed
circle of the marble's size is a marble whose glare a roll smeared away or no lamp lit, until a
person says otherwise (chosen on training seeds: 1.2 to 1.4 read the same; rolling marbles missed
and not flagged fell from 0.010 to 0.003, other cases as before)."""

BORDER_RADII = 0.25
"""A marble found closer than this many radii to the border between two gates (or between a gate and
the outside) makes both unsure: where it rests is known to about a pixel, and a marble on the line is
either side's (in the castle, walls part the gates and no marble rests there). Where no circle fitted to its
outline holds (``hardware.vision.centre``), its place is the circle votes' peak alone, pulled by its own shadow
and caustic: such a marble makes both unsure within ``FIT_MOVE`` + ``BORDER_RADII`` radii of the border. On the
table case's training scenes (62000..62299), of the resting marbles found within 0.3 radii of a border, the 88 whose
fit held were placed 0.015 radii from where they lay (median; 95th percentile 0.11), the 20 whose fit did not 0.076
(90th percentile 0.41); the one scene read wrong and sure was such a peak, 0.32 radii across a line. With the wider
reach none is (scenes flagged 0.537 against 0.527; ordinary scenes 62000..62149 0.113 against 0.100, clear glass
0.067 against 0.060, traced glass and touching pairs as before); the held-out figures are unchanged (70000..70199)."""

PICTURE_EDGE_RADII = 1.0
"""A marble found closer than this many radii to the picture's edge, whose change reaches that edge, is cut by it: not
wholly in view, so the gate it lies in is unsure (a castle gate that reaches the picture's edge is confirmed by a
tap). Its peak says little of where it lies: the peak cannot leave the picture, and the arc in view pulls it in, by
up to most of a radius for a marble cut through its middle. Rendered scenes cropped so that their edge cuts a marble
(``tests.conditions.cut_by_edge``), every case and ordinary scenes: on training seeds 62200..62299 (694 pictures)
595 read exact, and 8 had a gate wrong and not flagged against 11 when cut within half a radius (578 flagged against
436). Held out (70000..70099, 697 pictures), 604 read exact and 3 were wrong and not flagged (559 flagged); before,
when a marble found within half a radius counted outside at its peak, 473 and 6 (463). The real sequence of
bench/bench_real_sequence.py, with the gates over the whole frame, reads 0.929 of its gates and 0.700 of its frames
exact, against 0.924 and 0.686; its inset gates, which no marble cut by the edge reaches, read as before."""

CUT_PLACED_RADII = 0.5
"""A cut marble found closer than this many radii to the picture's edge is placed one radius short of where
its change ends (``reach_inward``), not at its peak, and counts outside when that lies beyond the edge.
Farther in, its peak places it better: of the training pictures above, 595 read exact, against 588 placed so
within 0.75 radii and 574 within 1 radius."""

CUT_RIM_LEVEL = 0.5
"""Where a marble cut by the picture's edge ends (``reach_inward``): where its change falls below this share of
its median over the radius nearest the edge. Chosen on training seeds 62000..62149 cropped so
(``tests.conditions.cut_by_edge``, every case and ordinary scenes: 427 cut marbles found), by the marbles
within 0.6 radii of the edge placed on the right side of it: 322 of 393, median error 0.80 px; a share of the
highest change instead (a cat's-eye's vane or a glare lifts it) 307 of 381 at 0.4, 288 of 373 at 0.5; the width
of the change fitted to a circle's, or the marble's ring fitted to the edges of the change, no better. (On the
real sequence, with the gates over the whole frame, the highest at 0.4 read 0.938 and 0.729 exact, this 0.929
and 0.700: measured, not chosen.)"""

MOTION_CHANGE = 0.15
"""Change (log units, averaged over a marble's disc) between two frames a moment apart above which something moved
there (``MarbleDetector.moved``: the earlier frame serves as the reference, 3x3 envelope and all, so a move of a
working pixel or less hides in it). Between two frames of the same still scene with fresh sensor noise, rendered
training scenes reached at most 0.104 (62000..62099, ordinary and every hard case, both ways), most 0.02, and
flagged no gate of 1,400 pairs (66000..66199); a simulated castle's marble moved by 6 px (0.4 radii) reached 0.12 to
0.23, by 8 px 0.19 to 0.31. Rendered rolling marbles a radius further on their way (``tests.scenes.make_scene``'s
``rolled``), held out (70000..70499): 466 of their 584 gates seen moving, 2 of the 2,416 others, and the scenes read
wrong with no gate flagged went from 0.004 to 0.000 with these gates flagged; half a radius further, 173 of 584.
Traced glass still rolling fast (the streak case) a radius on: 239 of its 372 gates seen moving, none of the 2,628
others, and the scenes with a gate read wrong and not flagged went from 0.022 in one frame and 0.008 in the
confirmation to 0.006 (``python -m tests.vision_fit rolling``: what is left is clear glass on a pale table whose
streak changes the picture no more than the sensor's noise). The real sequence of bench/bench_real_sequence.py, each
frame against the one before: 0.905 of the gates where a labelled marble moved half a radius flagged, 0.004 of the
others. Without the envelope, rendered rolling marbles half a radius on were seen in 357 gates of 448 against 129
(training seeds 62000..62299, at 0.2, where still pairs flag 1 in 1,050), but the real sequence's still gates were
flagged in 0.124 against 0.004: a real camera's picture changes more from frame to frame."""

CLIPPED_VALUE = 250
"""A channel (of the reference or the frame) at or above this is over-exposed: only a lower bound of
its true value."""


CONTRAST_CACHE = 4096
"""The most places whose reference contrast a detector keeps (``hardware.vision.taken_out``): a marble at rest is read
at the same place frame after frame."""


class MarbleDetector:
    """Reusable detector for one camera set-up (regions, optional empty reference)."""

    def __init__(self, regions: GateRegions, reference: np.ndarray | None = None, *,
                 marble_radius_px: float | None = None, roi_margin_radii: float = ROI_MARGIN_RADII) -> None:
        if marble_radius_px is not None and not 0 < marble_radius_px < math.inf:
            raise ValueError(f"marble_radius_px must be a positive number of pixels, got {marble_radius_px}")
        self.regions = regions
        self.radius_px = float(marble_radius_px) if marble_radius_px else estimate_marble_radius(regions)
        self.scale = min(1.0, WORK_RADIUS / self.radius_px)
        self._step = max(1, int(1.0 / self.scale + 1e-6))  # the integer part of the scaling (area average)
        self.roi_margin_radii = roi_margin_radii
        self._work_r = self.radius_px * self.scale
        self._radius_given = bool(marble_radius_px)
        self._fill_side = max(3, int(round(0.9 * self._work_r * math.sqrt(math.pi))) | 1)  # disc's area
        self._spot_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * int(0.4 * self._work_r) + 1,) * 2)
        self._envelope = np.ones((3, 3), np.uint8)
        self._reference: np.ndarray | None = None
        self._ref_cache: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self._roi_cache: dict[tuple[int, int], tuple[int, int, int, int]] = {}
        self._reference_sides: dict[tuple[int, int], tuple[float, float]] = {}  # the reference by place (taken_out)
        # (features, peak, stronger kept, rules verdict) of reviewed peaks; for fitting
        self.candidate_log: list | None = None
        self.unlit_log: list | None = None  # the same of the glareless circles reviewed
        self.set_reference(reference)

    # ----------------------------------------------------------------- set-up

    def set_reference(self, reference_bgr: np.ndarray | None) -> None:
        """Use ``reference_bgr`` (same camera, no marbles) as the empty scene; None for none.

        A reference of another size than the frames is scaled to the frame size (same aspect
        ratio required; detect raises ValueError otherwise).
        """
        self._ref_cache, self._reference_sides = {}, {}
        if reference_bgr is None:
            self._reference = None
            return
        _check_image(reference_bgr, "reference")
        self._reference = reference_bgr
        h, w = reference_bgr.shape[:2]
        self._prepared_reference(h, w)

    def _prepared_reference(self, h: int, w: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The reference's gate area for frames of h x w: on the light change's log table (``RATIO_TABLE``), and
        its 3x3 min/max envelope (linear pixel values, float32)."""
        key = (h, w)
        if key not in self._ref_cache:
            ref = self._reference
            assert ref is not None
            rh, rw = ref.shape[:2]
            if (rh, rw) != (h, w):
                if abs(rw / rh - w / h) > 0.02 * (w / h):
                    raise ValueError(f"reference image is {rw}x{rh} but frames are {w}x{h}: "
                                     "different aspect ratio, take a new empty reference")
                ref = cv2.resize(ref, (w, h), interpolation=cv2.INTER_AREA if rw > w else cv2.INTER_LINEAR)
            self._ref_cache[key] = self._as_reference(self._prepare(ref))
        return self._ref_cache[key]

    def _as_reference(self, work: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A working image as the earlier picture of a change: on the light change's log table, and its 3x3
        min/max envelope (linear values, float32; an over-exposed channel's high end unknown)."""
        linear = work.astype(np.float32)
        high = cv2.dilate(linear, self._envelope)
        high[high >= CLIPPED_VALUE] = np.float32(1e6)  # over-exposed: the true value is unknown
        return to_log(work, RATIO_TABLE), cv2.erode(linear, self._envelope), high

    def _roi(self, h: int, w: int) -> tuple[int, int, int, int]:
        """Gate area (x0, y0, x1, y1) in frame pixels, clipped to the frame."""
        key = (h, w)
        if key not in self._roi_cache:
            x0, y0, x1, y1 = self.regions.bounds()
            m = self.roi_margin_radii * self.radius_px
            box = (max(0, int(math.floor(x0 - m))), max(0, int(math.floor(y0 - m))),
                   min(w, int(math.ceil(x1 + m))), min(h, int(math.ceil(y1 + m))))
            if box[2] - box[0] < 4 or box[3] - box[1] < 4:
                raise ValueError(f"gate regions lie outside the {w}x{h} frame")
            if min(box[2] - box[0], box[3] - box[1]) < 2 * self.radius_px:
                raise ValueError(f"a marble of radius {self.radius_px:g} px does not fit in the gate area of the "
                                 f"{w}x{h} frame")
            self._roi_cache[key] = box
        return self._roi_cache[key]

    def _prepare(self, img: np.ndarray) -> np.ndarray:
        """Crop to the gate area and scale to the working size (uint8 BGR).

        Scaling is an integer-factor area average (fast, averages the noise) followed, when
        needed, by a bilinear resize of the small remainder. An area-weighted resize of the remainder
        (``INTER_AREA``, no aliasing) read traced glass 0.01 better on training seeds 62000..62399 (over
        three shifts of the crop), but cost 0.9 ms a frame more and read the real sequence of
        bench/bench_real_sequence.py worse (gates 0.943 against 0.952); a Gaussian blur of the remainder's
        scale before the bilinear resize gained nothing."""
        h, w = img.shape[:2]
        x0, y0, x1, y1 = self._roi(h, w)
        crop = img[y0:y1, x0:x1]
        if self.scale < 1.0:
            size = self._work_size(x1 - x0, y1 - y0)
            k = self._step
            if k >= 2:
                cw, ch = (x1 - x0) // k, (y1 - y0) // k
                crop = cv2.resize(crop[:ch * k, :cw * k], (cw, ch), interpolation=cv2.INTER_AREA)
            if crop.shape[1] != size[0] or crop.shape[0] != size[1]:
                crop = cv2.resize(crop, size, interpolation=cv2.INTER_LINEAR)
        return crop

    def _work_size(self, cw: int, ch: int) -> tuple[int, int]:
        """Width and height of the working image of a ``cw`` x ``ch`` crop."""
        return max(1, int(round(cw * self.scale))), max(1, int(round(ch * self.scale)))

    def _to_frame(self, h: int, w: int) -> tuple[float, float, float, float]:
        """The working image's pixel pitch in frame pixels (x, y) and its origin (x0, y0): working
        pixel centre (cx, cy) lies at frame (x0 + (cx + 0.5) * px - 0.5, y0 + (cy + 0.5) * py - 0.5).
        The pitch is the one the resizing gave (the crop's integer part over the rounded working
        size), not 1 / scale: at the far side of a wide gate area the two differ by a pixel."""
        x0, y0, x1, y1 = self._roi(h, w)
        if self.scale >= 1.0:
            return 1.0, 1.0, float(x0), float(y0)
        k = self._step
        sw, sh = self._work_size(x1 - x0, y1 - y0)
        return (x1 - x0) // k * k / sw, (y1 - y0) // k * k / sh, float(x0), float(y0)

    # ----------------------------------------------------------------- detection

    def detect(self, frame_bgr: np.ndarray) -> Detection:
        """Find the marbles in ``frame_bgr`` and count them per gate region."""
        _check_image(frame_bgr, "frame")
        h, w = frame_bgr.shape[:2]
        work = self._prepare(frame_bgr)
        cur = to_log(work)
        over = _over_exposed(work)
        overexposed = False
        if self._reference is not None:
            earlier = self._prepared_reference(h, w)
            diff = self._difference(work, cur, earlier, over)
            overexposed = _newly_over_exposed(over, earlier[2]) > OVEREXPOSED_SHARE
            tuning = WITH_REFERENCE
        else:
            diff = cur - to_log(local_background(work, self._work_r))
            tuning = WITHOUT_REFERENCE
        change, lum_change = change_magnitude(diff, DARK_WEIGHT)
        noise = _noise(lum_change) if self._reference is not None else 0.0  # without one: the board's texture
        votes, per_radius = circle_votes(change, self._work_r, max(tuning.grad_min, NOISE_EDGE * noise))
        t_fill = max(FILL_MIN_CHANGE, 3.0 * float(change[::2, ::2].mean()))
        side = self._fill_side
        fill = cv2.boxFilter((change > t_fill).view(np.uint8), cv2.CV_32F, (side, side), borderType=cv2.BORDER_CONSTANT)
        score = votes + FILL_WEIGHT * fill
        xs, ys = local_maxima(score, NEAR_MISS * tuning.min_score)
        # this frame's close decisions (working pixels), its light and its marble radius: kept here, not on the
        # detector, so that one detector may read frames from several threads at once
        near: list[tuple[int, int]] = []
        smeared: list[tuple[int, int]] = []  # faint streaks taken for a marble: a guess, flagged already
        centres, light, frame_r = (self._select(xs, ys, cur, diff, lum_change, per_radius, score, tuning, noise, near)
                                   if len(xs) else ([], None, self._work_r))
        if self._reference is not None:
            changed = change > UNEXPLAINED_CHANGE * t_fill
            near += unexplained_blobs(changed, centres, frame_r)
            near += leftover_change(changed, centres, frame_r, light)
            mean = disc_mean(change, side)  # the change averaged over a marble's disc
            near += faint_change(mean, centres, frame_r)
            smeared = smeared_marbles(mean, centres, frame_r)
            near += faint_streaks(mean, centres, frame_r)
            near += smeared  # the best guess is a marble there, until a person says
            centres = centres + [(x, y, frame_r, 0.0, 0.0, 0.0) for x, y in smeared]
        frame_xy = self._frame_xy(h, w)
        marbles, left = [], []
        counts = [0] * 6
        outside = 0
        noisy = noise > NOISE_UNSURE
        unsure = [self._reference is None or noisy or overexposed] * 6
        for cx, cy in near:
            gate = self.regions.gate_at(*frame_xy(cx, cy))
            if gate is not None:
                unsure[gate - 1] = True
        reach = BORDER_RADII * self.radius_px
        cut, placed = PICTURE_EDGE_RADII * self.radius_px, CUT_PLACED_RADII * self.radius_px
        # a reference of the frame's own size, read pixel by pixel: a fitted centre for a marble that could fall in
        # another gate or near a border (at most FIT_MOVE radii away), and what the reference held where one was found
        fitted = self._reference is not None and self._reference.shape == frame_bgr.shape
        fit_reach = (FIT_MOVE + BORDER_RADII) * self.radius_px
        for cx, cy, r, *_ in centres:
            fx, fy = frame_xy(*_subpixel(score, cx, cy))
            border = reach
            if fitted and self.regions.borders_within(fx, fy, fit_reach):  # by a border: where it lies decides
                fit = fitted_centre(frame_bgr, self._reference, fx, fy, self.radius_px,  # type: ignore[arg-type]
                                    [frame_xy(c[0], c[1]) for c in centres if c[0] != cx or c[1] != cy])
                if fit is None:  # no outline fit held: the peak alone, known to less (BORDER_RADII)
                    border = fit_reach
                else:
                    fx, fy = fit
            gate = self.regions.gate_at(fx, fy)
            clearance = edge_clearance(fx, fy, fx, fy, w, h)
            cut_centre = None if gate is None or clearance >= cut else self._cut_centre(change, cx, cy, fx, fy, h, w)
            if gate is not None and cut_centre is not None:  # cut by the picture's edge: its gate waits for a tap
                unsure[gate - 1] = True
                if clearance < placed:
                    fx, fy = cut_centre
                    gate = self.regions.gate_at(fx, fy) if edge_clearance(fx, fy, fx, fy, w, h) >= 0 else None
                    if gate is not None:  # placed in another gate, maybe: that one waits too
                        unsure[gate - 1] = True
            for g in self.regions.borders_within(fx, fy, border):  # its own, and the gate across
                unsure[g - 1] = True
            # the reference's marble, gone, or the reference's print under new light: no marble; its gate waits
            if fitted and (kind := self._not_put_in(frame_bgr, fx, fy, guessed=(cx, cy) in smeared)):
                if kind == "taken out":
                    left.append(Marble(fx, fy, r / self.scale, gate))
                if gate is not None:
                    unsure[gate - 1] = True
                continue
            marbles.append(Marble(fx, fy, r / self.scale, gate))
            if gate is None:
                outside += 1
            else:
                counts[gate - 1] += 1
        return Detection(tuple(counts), outside, tuple(marbles), tuple(unsure),  # type: ignore[arg-type]
                         self._reference is not None, noisy, tuple(left), overexposed=overexposed)

    def _not_put_in(self, frame_bgr: np.ndarray, fx: float, fy: float, guessed: bool) -> str | None:
        """With a reference of the frame's size, why the marble found at (fx, fy) was not put in since it was taken
        (``hardware.vision.taken_out``): "taken out" (the reference holds it, the frame shows the board it left),
        "unchanged" (the frame shows the reference's pattern but for the light; not asked of a faint streak
        ``guessed`` to be a marble), else None."""
        reference = self._reference
        assert reference is not None
        from hardware.vision.taken_out import reference_side, taken_out, unchanged

        place = (round(fx), round(fy))  # where it is read, about the nearest pixel: a marble at rest stays
        held = self._reference_sides.get(place)
        if held is None:
            if len(self._reference_sides) > CONTRAST_CACHE:
                self._reference_sides.clear()
            held = self._reference_sides[place] = reference_side(reference, fx, fy, self.radius_px)
        if taken_out(frame_bgr, reference, fx, fy, self.radius_px, held=held):
            return "taken out"
        return "unchanged" if not guessed and unchanged(frame_bgr, reference, fx, fy, self.radius_px) else None

    def flag_squares(self, frame_bgr: np.ndarray, detection: Detection) -> Detection:
        """``detection`` of ``frame_bgr`` with the gate of each sure marble whose outline is square unsure: a die left
        in a gate (``hardware.vision.shapes``). For the camera alone, which no beam contradicts, on the reading it
        reports (0.3 ms a marble: not on every frame it reads); needs a reference of the frame's size."""
        reference = self._reference
        if reference is None or reference.shape != frame_bgr.shape:
            return detection
        from hardware.vision.shapes import looks_square

        unsure = list(detection.unsure)
        for m in detection.marbles:
            if m.gate is not None and not unsure[m.gate - 1] and looks_square(frame_bgr, reference, m.x, m.y,
                                                                              self.radius_px):
                unsure[m.gate - 1] = True
        return replace(detection, unsure=tuple(unsure))  # type: ignore[arg-type]

    def moved(self, earlier: np.ndarray, later: np.ndarray) -> tuple[bool, bool, bool, bool, bool, bool]:
        """Per gate (gate 1 first): the picture changed there from ``earlier`` to ``later`` (two frames of this
        camera, a moment apart) by more than a change of light and the sensor's noise do: a marble still rolling,
        or a hand. Where the change averaged over a marble's disc reaches ``MOTION_CHANGE``."""
        _check_image(earlier, "earlier frame")
        _check_image(later, "later frame")
        if earlier.shape != later.shape:
            raise ValueError(f"frames of different sizes: {earlier.shape[1]}x{earlier.shape[0]} "
                             f"and {later.shape[1]}x{later.shape[0]}")
        h, w = later.shape[:2]
        work = self._prepare(later)
        diff = self._difference(work, to_log(work), self._as_reference(self._prepare(earlier)), _over_exposed(work))
        change, _ = change_magnitude(diff, DARK_WEIGHT)
        frame_xy = self._frame_xy(h, w)
        moving = [False] * 6
        for cx, cy in blob_centres((disc_mean(change, self._fill_side) >= MOTION_CHANGE).view(np.uint8)):
            gate = self.regions.gate_at(*frame_xy(cx, cy))
            if gate is not None:
                moving[gate - 1] = True
        return tuple(moving)  # type: ignore[return-value]

    def _difference(self, work: np.ndarray, cur: np.ndarray,
                    earlier: tuple[np.ndarray, np.ndarray, np.ndarray], over: np.ndarray | None) -> np.ndarray:
        """The log change (``cur``: ``work`` on ``LOG_TABLE``) from an earlier picture (``_as_reference``: the empty
        reference, or a frame a moment ago), the change of light between them removed; ``over``: ``work``'s
        over-exposed pixels (``_over_exposed``)."""
        ratio_ref, lo, hi = earlier
        gain = light_gain(to_log(work, RATIO_TABLE) - ratio_ref, self._work_r, unknown=over)
        # the frame clamped to the lit reference's envelope (linear values; a gain scales light,
        # not the log table's offset, so a channel near black stays near black when the light
        # changes and a saturated printed colour does not seem to change hue)
        lit = cv2.min(cv2.max(work.astype(np.float32), cv2.multiply(lo, gain)), cv2.multiply(hi, gain))
        diff = cv2.subtract(cur, cv2.log(lit + np.float32(LOG_OFFSET)))
        if over is not None:  # an over-exposed frame channel is only a lower bound
            np.maximum(diff, np.float32(0.0), out=diff, where=work >= CLIPPED_VALUE)
        return diff

    def _cut_centre(self, change: np.ndarray, cx: int, cy: int, fx: float, fy: float, h: int,
                    w: int) -> tuple[float, float] | None:
        """Where the centre of a marble cut by the picture's nearest edge lies (frame pixels, maybe beyond that
        edge): its peak at working pixel (cx, cy), found at (fx, fy), moved along that edge's normal to one radius
        short of where its change ends (``reach_inward``); None when its change does not reach that edge (it is
        wholly in view). The peak says little there: it cannot leave the picture, and the votes of the arc in view
        pull it in by up to most of a radius."""
        px, py, ox, oy = self._to_frame(h, w)  # (ox, oy): the working image's corner in the frame
        hw, ww = change.shape
        # each side: its distance from (fx, fy), the change turned so that side is the top, the peak there
        sides = ((fy + 0.5, change, cx, cy), (h - 0.5 - fy, change[::-1], cx, hw - 1 - cy),
                 (fx + 0.5, change.T, cy, cx), (w - 0.5 - fx, change.T[::-1], cy, ww - 1 - cx))
        side = min(range(4), key=lambda i: sides[i][0])
        _, turned, along, row = sides[side]
        reach = reach_inward(turned, along, self._work_r, row)
        if reach is None:
            return None
        pitch = py if side < 2 else px
        # the working image's edge on that side, from the picture's edge (frame pixels)
        gap = (oy, h - oy - hw * py, ox, w - ox - ww * px)[side]
        inside = gap + reach * pitch - self.radius_px - 0.5  # the centre's frame coordinate from that side's edge
        return ((fx, inside), (fx, h - 1 - inside), (inside, fy), (w - 1 - inside, fy))[side]

    def _frame_xy(self, h: int, w: int) -> Callable[[float, float], tuple[float, float]]:
        """Maps a working pixel's centre to frame pixels, for frames of h x w (see ``_to_frame``)."""
        px, py, x0, y0 = self._to_frame(h, w)
        return lambda cx, cy: (x0 + (cx + 0.5) * px - 0.5, y0 + (cy + 0.5) * py - 0.5)

    def _select(self, xs: np.ndarray, ys: np.ndarray, cur: np.ndarray, diff: np.ndarray, lum_change: np.ndarray,
                per_radius: np.ndarray, score: np.ndarray, tuning: _Tuning, noise: float,
                near: list[tuple[int, int]]) -> tuple[list[Peak], tuple[float, float] | None, float]:
        """Peaks (strongest first) with a specular highlight nearby (a small spot brighter than
        its surroundings, or clipped), then greedy non-maximum suppression and the shadow rule,
        with distances in units of the marble radius measured in this frame (see
        ``_frame_radius``). The clearer a peak the weaker the highlight it needs (``_glare_needed``),
        in a softly lit frame (``SOFT_GLARE``) a peak of ``SOFT_SCORE`` none, and with a reference,
        new highlights away from every kept marble seed more marbles. ``lum_change``: the brightness
        change (``diff``'s mean over its channels); ``noise``: the frame's (``_noise``), ``NOISE_GLARE`` times
        which every glare needs on top. Returns the marbles kept, the frame's light direction and marble radius
        (working pixels); its close decisions are added to ``near``."""
        highlight = tuning.highlight
        above_noise = NOISE_GLARE * noise  # what every glare needs on top
        lum = cv2.transform(cur, MEAN3)
        spot = cv2.morphologyEx(lum, cv2.MORPH_TOPHAT, self._spot_kernel)  # lum less its opening
        radius_index = best_radius(per_radius, xs, ys).tolist()
        reach = int(HIGHLIGHT_REACH * self._work_r)
        peaks = []  # x, y, radius index, score, glare (how it stands out), its pixel, clipped
        for x, y, best in zip(xs.tolist(), ys.tolist(), radius_index):
            masked, xa, ya = disc_window(spot, x, y, reach)
            k = int(np.argmax(masked))
            gx, gy = xa + k % masked.shape[1], ya + k // masked.shape[1]
            clipped = lum[ya:ya + masked.shape[0], xa:xa + masked.shape[1]].max() >= CLIPPED_LUM
            peaks.append((x, y, best, float(score[y, x]), float(masked.flat[k]), gx, gy, clipped))
        glares = [(math.inf, math.inf) if clipped else (g, min(g, float(lum_change[gy, gx])))
                  for _, _, _, s, g, gx, gy, clipped in peaks if s >= VERY_STRONG_SCORE]
        soft = self._reference is not None and _soft_light(glares, highlight)
        cands: list[Peak] = []
        unlit: list[Peak] = []  # clear enough, but without the glare needed
        misses: list[tuple[int, int]] = []  # nearly a marble: its gate is unsure
        for x, y, best, s, g, gx, gy, clipped in peaks:
            needed = highlight * (0.0 if soft and s >= SOFT_SCORE else _glare_needed(s, tuning)) + above_noise
            lit = g >= needed or clipped
            peak = (x, y, self._work_r * RADIUS_FACTORS[best], s, float(gx - x), float(gy - y))
            if s < tuning.min_score or not lit:
                if (s >= tuning.min_score or lit) and (g >= NEAR_MISS * needed or clipped):
                    misses.append((x, y))
                if s >= tuning.min_score:
                    unlit.append(peak)
                continue
            cands.append(peak)
        first = self._suppress(cands, self._work_r, None)
        radius = self._frame_radius(first, per_radius)
        confident = self._suppress(cands, radius, None)
        light = _light_direction(confident, radius)
        kept = self._suppress(cands, radius, diff, light)
        if self._reference is not None:
            kept += _seeded_by_highlights(spot, lum_change, score, kept, radius, highlight + above_noise)
            kept = self._review(cands, kept, diff, spot, lum_change, radius, light, highlight, near)
            kept = self._review_unlit(unlit, kept, diff, spot, lum_change, radius, light, highlight, soft, near)
            far2 = (EXPLAINED_RADII * radius) ** 2  # a clear circle without its glare, far from every marble
            near += [(c[0], c[1]) for c in unlit if c[3] >= UNLIT_SCORE * tuning.min_score
                     and all((c[0] - k[0]) ** 2 + (c[1] - k[1]) ** 2 >= far2 for k in kept)]
        same2 = (NEAR_SAME * radius) ** 2  # a near miss this close to a kept marble is that marble
        near += [(x, y) for x, y in misses if all((x - k[0]) ** 2 + (y - k[1]) ** 2 >= same2 for k in kept)]
        near += [(k[0], k[1]) for k in kept if k[3] < SURE_SCORE * tuning.min_score]
        shadows = _shadow_reach(confident, radius)
        if shadows > SHADOW_REACH:  # a low lamp: a marble kept where another's shadow and caustic fall
            near += [(k[0], k[1]) for k in kept if _in_shadow(k, kept, radius, light, shadows)]
        close2 = (CLOSE_PAIR * radius) ** 2  # two peaks this close: a touching pair or one smeared marble
        near += [(a[0], a[1]) for i, a in enumerate(kept) for b in kept[i + 1:]
                 if (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 < close2]
        return kept, light, radius

    def _review(self, cands: list[Peak], kept: list[Peak], diff: np.ndarray, spot: np.ndarray,
                lum_change: np.ndarray, radius: float, light: tuple[float, float] | None,
                highlight: float, near: list[tuple[int, int]]) -> list[Peak]:
        """Strongest first, a candidate whose nearest stronger marble kept lies
        ``review.REVIEW_NEAR``..``review.REVIEW_FAR`` radii away is kept or rejected by the
        network of ``hardware.vision.candidates``; every other keeps the rules' verdict,
        except that a peak closer than ``REVIEW_NEAR`` to a marble only the model kept is dropped."""
        was = {id(k) for k in kept}
        order = sorted({id(c): c for c in cands + kept}.values(), key=lambda c: -c[3])
        final: list[Peak] = []
        near2, far2 = (review.REVIEW_NEAR * radius) ** 2, (review.REVIEW_FAR * radius) ** 2
        for c in order:
            verdict = id(c) in was
            if final:
                d2 = [(c[0] - k[0]) ** 2 + (c[1] - k[1]) ** 2 for k in final]
                i = int(np.argmin(d2))
                if d2[i] < near2 and id(final[i]) not in was:
                    verdict = False  # the model's marble already claims this peak
                elif near2 <= d2[i] < far2:
                    f = review.features(c, final[i], diff, spot, lum_change, radius, light, highlight,
                                        FILL_MIN_CHANGE, DARK_WEIGHT)
                    if self.candidate_log is not None:
                        self.candidate_log.append((f, c, list(final), verdict))
                    if review.OUTPUT_WEIGHTS.any():
                        verdict = _verdict(c, review.log_odds(f), near, REVIEW_MARGIN)
            if verdict:
                final.append(c)
        return final

    def _review_unlit(self, unlit: list[Peak], kept: list[Peak], diff: np.ndarray, spot: np.ndarray,
                      lum_change: np.ndarray, radius: float, light: tuple[float, float] | None,
                      highlight: float, soft: bool, near: list[tuple[int, int]]) -> list[Peak]:
        """Strongest first, a clear circle without the glare it needed, at least ``REVIEW_NEAR``
        radii from every marble kept, is added or left out by the unlit network of
        ``hardware.vision.candidates`` (clear glass under soft light, a marble whose glare a roll
        smeared)."""
        kept = list(kept)
        near2 = (review.REVIEW_NEAR * radius) ** 2
        for c in sorted(unlit, key=lambda c: -c[3]):
            if any((c[0] - k[0]) ** 2 + (c[1] - k[1]) ** 2 < near2 for k in kept):
                continue
            f = review.unlit_features(c, kept, diff, spot, lum_change, radius, light, highlight, soft,
                                      FILL_MIN_CHANGE, DARK_WEIGHT)
            if self.unlit_log is not None:
                self.unlit_log.append((f, c, list(kept), False))
            if review.UNLIT_OUTPUT_WEIGHTS.any() and _verdict(c, review.unlit_log_odds(f), near, UNLIT_MARGIN):
                kept.append(c)
        return kept

    def _frame_radius(self, marbles: list[Peak],
                      per_radius: np.ndarray) -> float:
        """The marble radius in this frame (working pixels): where the pooled circle votes of the
        confident detections (score ``RADIUS_SCORE`` or more) peak (parabolic interpolation between the
        voted radii); the expected radius when there is no clear detection. A radius given (measured in
        the calibration) is never measured below ``RADIUS_FLOOR`` of it: the votes of glass peak inside
        its outline, on the dark rim its refraction shows (traced glass measured a median 0.93 of its
        radius), and distances in too small a radius put a low lamp's shadow and caustic out of the
        shadow rule's reach."""
        strong = [m for m in marbles if m[3] >= RADIUS_SCORE]
        if not strong:
            return self._work_r
        least = RADIUS_FLOOR * self._work_r if self._radius_given else 0.0
        xs = np.array([m[0] for m in strong])
        ys = np.array([m[1] for m in strong])
        pooled = neighbourhood_votes(per_radius, xs, ys).sum(axis=1)
        k = int(np.argmax(pooled))
        if k == 0:  # votes still rising below the voted range: inner structure, no measurement
            return self._work_r
        f = RADIUS_FACTORS[k]
        if 0 < k < len(pooled) - 1:
            a, b, c = pooled[k - 1], pooled[k], pooled[k + 1]
            den = a - 2 * b + c
            if den < 0:
                f += 0.5 * (a - c) / den * (RADIUS_FACTORS[k + 1] - RADIUS_FACTORS[k])
        return max(least, self._work_r * f)

    def _suppress(self, cands: list[Peak], radius: float, diff: np.ndarray | None,
                  light: tuple[float, float] | None = None) -> list[Peak]:
        """Greedy: keep a peak unless it lies within ``PEAK_SEPARATION`` radii of a kept one or
        (given the log difference image ``diff``) in the shadow of a kept one; ``light`` is the
        frame's light direction (see ``_light_direction``), else each marble's own highlight.

        With a known light, a weaker peak close to exactly one kept peak that lies from it away
        from the light (a marble and its shadow merge into one blob whose votes peak on the
        shadow side) replaces that peak when it is not much weaker (``LIGHT_SIDE_RATIO``).
        Otherwise a close peak is dropped here; with a reference, one ``review.REVIEW_NEAR`` radii
        or more from the stronger marble (a touching neighbour, its votes peak pulled toward it) is
        judged again by ``_review``.

        Two rules once here are gone (measured on 2,800 training and 3,500 held-out scenes and the real
        sequence's frames): a close peak kept as a touching neighbour when its own part of the disc
        changed and did more than darken changed no reading with a reference (the review decided every
        such peak) and without one read 4 held-out scenes fewer right; a replacing peak refused in
        another marble's shadow changed no reading, with a reference or without."""
        kept: list[Peak] = []
        sep2 = (PEAK_SEPARATION * radius) ** 2
        for c in cands:
            x, y = c[0], c[1]
            close = [k for k in kept if (x - k[0]) ** 2 + (y - k[1]) ** 2 < sep2]
            if close:
                if diff is not None and light is not None and len(close) == 1 \
                        and _shadow_shifted(close[0], c, light) and c[3] >= LIGHT_SIDE_RATIO * close[0][3]:
                    kept = [k for k in kept if k is not close[0]] + [c]
                continue
            if diff is not None and _in_shadow(c, kept, radius, light) and not self._coloured(c, diff, radius):
                continue
            kept.append(c)
        return kept

    @staticmethod
    def _coloured(c: Peak, diff: np.ndarray, radius: float) -> bool:
        """True when the disc of peak ``c`` changed colour (median chroma of the log difference
        above ``SHADOW_MAX_CHROMA``): a shadow only darkens, a tinted or opaque marble recolours."""
        x, y = c[0], c[1]
        k = max(1, int(0.8 * radius))
        patch = diff[max(0, y - k):y + k + 1, max(0, x - k):x + k + 1].reshape(-1, 3)
        chroma = np.sqrt(np.maximum((patch * patch).sum(axis=1) - patch.sum(axis=1) ** 2 / 3.0, 0.0))
        return median(chroma) > SHADOW_MAX_CHROMA


def _verdict(c: Peak, log_odds: float, near: list[tuple[int, int]], margin: float) -> bool:
    """A network's verdict on peak ``c`` (a marble when ``log_odds`` is above 0); a margin under
    ``margin`` makes its gate unsure (added to ``near``, the frame's close decisions)."""
    if abs(log_odds) < margin:
        near.append((c[0], c[1]))
    return log_odds > 0.0


def _in_shadow(c: Peak, kept: list[Peak], radius: float, light: tuple[float, float] | None = None,
               reach: float = SHADOW_REACH) -> bool:
    """True when peak ``c`` lies on the far side from the light of another marble of ``kept``,
    closer than ``reach`` radii: its shadow, with the caustic a glass marble focuses into it. The light's
    direction is ``light`` (unit vector) when the frame's marbles agree on one, else where the kept
    marble's highlight sits relative to its centre; a shadow falls the opposite way."""
    for k in kept:
        vx, vy = c[0] - k[0], c[1] - k[1]
        d = math.hypot(vx, vy)
        hx, hy = review.toward_light(k, light, radius)
        if (hx or hy) and 0 < d < reach * radius and -(vx * hx + vy * hy) / d > SHADOW_COS:
            return True
    return False


def _shadow_reach(marbles: list[Peak], radius: float) -> float:
    """How far (radii) a marble's shadow and caustic reach under this frame's lamp: its shadow's
    centre (``candidates.shadow_distance``, from the lamp's height that a sphere's glare offset
    gives) and ``SHADOW_BEYOND`` more for its far part. From the median glare
    offset of the confident marbles (score ``RADIUS_SCORE`` or more, at least two), else
    ``SHADOW_REACH``; never less than that nor more than ``SHADOW_MAX_REACH``."""
    offsets = sorted(math.hypot(m[4], m[5]) / radius for m in marbles if m[3] >= RADIUS_SCORE)
    if len(offsets) < 2:
        return SHADOW_REACH
    shadow = review.shadow_distance(offsets[len(offsets) // 2])
    return max(SHADOW_REACH, min(SHADOW_MAX_REACH, SHADOW_BEYOND + shadow))


def reach_inward(change: np.ndarray, along: int, radius: float, peak_row: int = 0) -> float | None:
    """How far (pixels) a marble cut by the top edge of ``change`` reaches down from that edge, about column
    ``along``: to where the change, the most across half a ``radius`` either side, falls below ``CUT_RIM_LEVEL``
    of its median over the rows within a radius of the edge (linearly between two rows); no farther than 2.2 radii
    (a marble that long is not alone). None when the change does not hold from the edge to ``peak_row`` (where
    the marble was found): the board shows between them, and nothing there is cut."""
    half = max(1, int(round(0.5 * radius)))
    profile = change[:int(math.ceil(2.2 * radius)) + 2, max(0, along - half):along + half + 1].max(axis=1)
    head = profile[:max(1, int(radius))]
    middle = float(np.median(head))
    if middle <= 0.0 and (head > 0).any():  # a cap shorter than half a radius on a noiseless picture: its rows
        middle = float(np.median(head[head > 0]))
    level = CUT_RIM_LEVEL * middle
    below = np.flatnonzero(profile < level)
    if level <= 0.0 or (len(below) and below[0] <= peak_row):
        return None
    if not len(below):
        return float(len(profile))
    e = int(below[0])
    return e - 0.5 + float((profile[e - 1] - level) / (profile[e - 1] - profile[e]))


def _over_exposed(work: np.ndarray) -> np.ndarray | None:
    """Where a channel of the working image ``work`` is over-exposed (uint8, 255 there, 0 elsewhere); None where none
    is."""
    unclipped = cv2.inRange(work, (0, 0, 0), (CLIPPED_VALUE - 1,) * 3)
    return None if cv2.countNonZero(unclipped) == unclipped.size else cv2.bitwise_not(unclipped)


def _newly_over_exposed(over: np.ndarray | None, high: np.ndarray) -> float:
    """The share of the working image over-exposed (``over``: ``_over_exposed``) where the empty reference was not,
    nor next to it: its 3x3 envelope's high end (``high``, ``MarbleDetector._as_reference``) is known."""
    if over is None:
        return 0.0
    known = cv2.inRange(high, (0, 0, 0), (CLIPPED_VALUE - 1,) * 3)  # 255 where no channel was over-exposed
    return cv2.countNonZero(cv2.bitwise_and(known, over)) / over.size


def _noise(lum_change: np.ndarray) -> float:
    """The frame's noise: the robust standard deviation (1.4826 times the median absolute deviation) of the
    brightness change, on every fourth pixel of every fourth row (marbles cover too little of the gate area to
    move it; on every second, the castle's frame took 0.15 ms more, the two medians' partial sorts)."""
    sample = lum_change[::4, ::4]
    return 1.4826 * median(np.abs(sample - median(sample)))


def _glare_needed(score: float, tuning: _Tuning) -> float:
    """The fraction of the usual highlight a peak of ``score`` needs: falling linearly with the score
    through ``strong_highlight`` at ``STRONG_SCORE`` and ``very_strong_highlight`` at
    ``VERY_STRONG_SCORE``, never above 1 nor below the latter (a clearer circle needs less glare)."""
    slope = (tuning.strong_highlight - tuning.very_strong_highlight) / (VERY_STRONG_SCORE - STRONG_SCORE)
    return min(1.0, max(tuning.very_strong_highlight, tuning.strong_highlight - (score - STRONG_SCORE) * slope))


def _soft_light(glares: list[tuple[float, float]], highlight: float) -> bool:
    """True when the frame is lit softly (see ``SOFT_GLARE``, ``SOFT_SPOT``): the very clear circles'
    ``glares`` (each: how much it stands out of its marble, how much it brightened the scene;
    infinite when over-exposed, a lamp's) hardly brightened the scene and do not stand out much."""
    if not glares:
        return False
    stands, new = (statistics.median(column) for column in zip(*glares))
    return new < SOFT_GLARE * highlight and stands < SOFT_SPOT * highlight


def _light_direction(marbles: list[Peak], radius: float) -> tuple[float, float] | None:
    """The frame's light direction (unit vector in the image plane, toward the light) when the
    confident marbles (score ``RADIUS_SCORE`` or more, highlight off-centre:
    ``candidates.toward_light``) agree on one: the mean of their highlight directions, if at least
    ``LIGHT_AGREEMENT`` long. One lamp lights the whole table, so the consensus is steadier than any
    single marble's highlight (which a neighbour's glare or a caustic can pull aside)."""
    units = [u for u in (review.toward_light(m, None, radius) for m in marbles if m[3] >= RADIUS_SCORE) if u[0] or u[1]]
    if len(units) < 2:
        return None
    sx, sy = sum(u[0] for u in units) / len(units), sum(u[1] for u in units) / len(units)
    n = math.hypot(sx, sy)
    return (sx / n, sy / n) if n >= LIGHT_AGREEMENT else None


def _seeded_by_highlights(spot: np.ndarray, lum_change: np.ndarray, score: np.ndarray,
                          kept: list[Peak], radius: float, highlight: float) -> list[Peak]:
    """Marbles found from new highlights: a specular spot (``spot`` at least ``highlight``) that
    the empty reference lacks (brightened by at least as much, ``lum_change``), farther than
    ``SEED_AWAY`` radii from every kept marble (so neither a kept marble's own highlight nor the
    caustic in its shadow), with circle evidence of at least ``SEED_SCORE`` within
    ``HIGHLIGHT_REACH`` radii of it. This finds clear glass that looks like the board it rests
    on: its rim is faint, but its glare is new. Returns the added peaks (at the best score)."""
    new = cv2.copyTo(spot, (lum_change > highlight).view(np.uint8))  # 0 elsewhere
    sx, sy = local_maxima(new, highlight)
    reach = int(math.ceil(HIGHLIGHT_REACH * radius))
    added: list[Peak] = []
    for x, y in zip(sx.tolist(), sy.tolist()):
        found = kept + added
        if any((x - k[0]) ** 2 + (y - k[1]) ** 2 < (SEED_AWAY * radius) ** 2 for k in found):
            continue
        masked, xa, ya = disc_window(score, x, y, reach)
        k = int(np.argmax(masked))
        if masked.flat[k] < SEED_SCORE:
            continue
        cy, cx = ya + k // masked.shape[1], xa + k % masked.shape[1]
        if any((cx - q[0]) ** 2 + (cy - q[1]) ** 2 < (PEAK_SEPARATION * radius) ** 2 for q in found):
            continue
        added.append((cx, cy, radius, float(masked.flat[k]), float(x - cx), float(y - cy)))
    return added


def _shadow_shifted(k: Peak, c: Peak, light: tuple[float, float]) -> bool:
    """True when peak ``k`` lies from peak ``c`` away from the light (within the shadow cone)."""
    vx, vy = k[0] - c[0], k[1] - c[1]
    d = math.hypot(vx, vy)
    return d > 0 and -(vx * light[0] + vy * light[1]) / d > SHADOW_COS


def _subpixel(score: np.ndarray, x: int, y: int) -> tuple[float, float]:
    """The centre of the score peak at (x, y) to a fraction of a pixel: the vertex of the parabola
    through it and its two neighbours, along each axis (the peak itself on the image's border or
    where the score does not bend down), at most half a pixel away. A working pixel is 1.4 frame
    pixels and more: whole pixels would put a marble resting by a line between gates on its wrong
    side."""
    h, w = score.shape

    def vertex(lo: float, mid: float, hi: float) -> float:
        bend = lo - 2.0 * mid + hi
        return max(-0.5, min(0.5, 0.5 * (lo - hi) / bend)) if bend < 0.0 else 0.0

    dx = vertex(*score[y, x - 1:x + 2].tolist()) if 0 < x < w - 1 else 0.0
    dy = vertex(*score[y - 1:y + 2, x].tolist()) if 0 < y < h - 1 else 0.0
    return x + dx, y + dy


def _check_image(img: object, what: str) -> None:
    if not isinstance(img, np.ndarray) or img.ndim != 3 or img.shape[2] != 3 or img.dtype != np.uint8:
        desc = f"array {img.dtype} {img.shape}" if isinstance(img, np.ndarray) else type(img).__name__
        raise ValueError(f"{what} must be a BGR uint8 image (h, w, 3), got {desc}")


def count_marbles(frame_bgr: np.ndarray, regions: GateRegions, reference: np.ndarray | None = None) -> Detection:
    """One-off detection (builds a detector each call; reuse MarbleDetector for a stream)."""
    return MarbleDetector(regions, reference).detect(frame_bgr)
