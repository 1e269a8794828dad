"""Camera frames are large, short-lived arrays: have the C allocator give their memory back when they are freed.

glibc's malloc maps blocks of 128 KiB and more on their own, but raises that threshold each time such a block is
freed, up to 32 MiB. After a few frames every frame-sized array comes from the heap of the thread that made it
(the camera thread, the vision thread, ...), and each heap keeps the most it ever held: tens of MB that the
companion never uses again. Fixing the threshold turns the raise off, so a freed frame goes straight back to the
system; a heap keeps a little free memory at its top, so that a vision reading does not fault its working memory in
anew every frame. Elsewhere than glibc (musl, macOS) there are no such settings and nothing is done.
"""
from __future__ import annotations

import ctypes
import logging

log = logging.getLogger(__name__)

M_TRIM_THRESHOLD = -1  # glibc's mallopt parameter numbers (malloc.h)
M_MMAP_THRESHOLD = -3
#: Blocks at least this large are mapped on their own and unmapped when freed: whole float32 BGR frames (3.6 MiB at
#: 640x480) and larger pictures. Smaller ones, reused frame after frame, stay in the heaps: a 640x480 BGR frame (900
#: KiB), a float32 grey plane (1.2 MiB), and the planes and circle-vote stacks of a vision reading (about 1 MiB for
#: the castle's gate area).
FRAME_BLOCK_BYTES = 4 * 1024 * 1024
#: A heap gives back the free memory at its top once more than this is free there. Fixing the mmap threshold leaves
#: this at 128 KiB, and a thread's heap then shrinks after every vision reading and faults the same pages in again
#: for the next. Read on a thread of their own, as the camera hub reads, bench_vision's 30 scenes of the castle's row
#: of gates faulted in a median 1,145 fresh pages a frame and took 3.22 ms with the thresholds at 1 MiB and 128 KiB;
#: with these two none, and 1.23 ms (1.26 ms with neither set; at 4 MiB each, 1,026 pages a frame still). The
#: companion in simulation faulted in 1,837 pages a second at rest, now none. The cost: 94.9 MB resident after start
#: in simulation against 90.3 to 90.5, 97.5 MB with the Camera page open against 92.1 to 93.7 (bench_memory; with 8
#: MiB here, 101.1 and 103.7 MB).
HEAP_TOP_KEEP_BYTES = 6 * 1024 * 1024

_done = False


def release_freed_frames() -> bool:
    """Fix glibc's mmap threshold at ``FRAME_BLOCK_BYTES`` and its trim threshold at ``HEAP_TOP_KEEP_BYTES`` for this
    process (once); False where unsupported."""
    global _done
    if _done:
        return True
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # no mallopt: not glibc
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    _done = bool(mallopt(M_MMAP_THRESHOLD, FRAME_BLOCK_BYTES)) and bool(mallopt(M_TRIM_THRESHOLD, HEAP_TOP_KEEP_BYTES))
    if not _done:
        log.info("the C allocator keeps freed frames (mallopt refused)")
    return _done
