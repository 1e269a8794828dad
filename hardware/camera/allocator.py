"""Camera frames are large, short-lived arrays: have the C allocator give their memory back when they are freed.

glibc's malloc maps blocks of 128 KiB and more on their own, but raises that threshold each time such a block is
freed, up to 32 MiB. After a few frames every frame-sized array comes from the heap of the thread that made it
(the camera thread, the vision thread, ...), and each heap keeps the most it ever held: tens of MB that the
companion never uses again. Fixing the threshold turns the raise off, so a freed frame goes straight back to the
system. Elsewhere than glibc (musl, macOS) there is no such setting and nothing is done.
"""
from __future__ import annotations

import ctypes
import logging

log = logging.getLogger(__name__)

M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter number (malloc.h)
#: Blocks at least this large are mapped on their own and unmapped when freed: float32 planes and frames (a 640x480
#: float32 grey plane is 1.2 MiB, a BGR one 3.6 MiB). Smaller ones (a 640x480 BGR frame is 900 KiB, a grey one
#: 300 KiB), reused frame after frame, stay in the heaps: mapping each anew would double the cost of a vision frame.
FRAME_BLOCK_BYTES = 1024 * 1024

_done = False


def release_freed_frames() -> bool:
    """Fix glibc's mmap threshold at ``FRAME_BLOCK_BYTES`` for this process (once); False where unsupported."""
    global _done
    if _done:
        return True
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # no mallopt: not glibc
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    _done = bool(mallopt(M_MMAP_THRESHOLD, FRAME_BLOCK_BYTES))
    if not _done:
        log.info("the C allocator keeps freed frames (mallopt refused)")
    return _done
