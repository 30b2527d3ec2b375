"""2 MB pages under the memory an approximate search reads at random (Linux, best effort).

A walk through a graph at 1M reads rows and link lists at random addresses across hundreds of
MB to GB; on 4 KB pages nearly every such read also misses the TLB. Linux backs anonymous
memory with 2 MB pages where a process asks for it (``madvise`` ``MADV_HUGEPAGE``, honoured
when /sys/kernel/mm/transparent_hugepage/enabled is ``always`` or ``madvise``), and collapses
memory already written into them on request (``MADV_COLLAPSE``, Linux 6.1+). Measured at 1M,
ef 128, in one process each (docs/scale.md, stop 24): hnswlib's graph 1.64 -> 1.24-1.38 ms
thread CPU a search; faiss's 8-bit codes 1.21 -> 0.85 ms. Collapsing takes a few seconds
per GB, once per loaded index. Elsewhere (another OS, THP off, an older kernel) nothing
changes and nothing fails.
"""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

import numpy as np

#: Linux madvise advice: back with 2 MB pages from now on / collapse the pages there now
MADV_HUGEPAGE, MADV_COLLAPSE = 14, 25
HUGE_PAGE = 2 << 20
#: anonymous mappings at least this large that appear while an index loads are its memory
MIN_MAPPING = 64 << 20


def huge_pages(array: np.ndarray) -> bool:
    """Ask Linux to back ``array``'s memory with 2 MB pages; False if refused or too small."""
    return huge_pages_at(array.ctypes.data, array.ctypes.data + array.nbytes)


def huge_pages_at(start: int, stop: int) -> bool:
    """The same for the addresses start..stop (the whole 2 MB pages inside them)."""
    first = -(-start // HUGE_PAGE) * HUGE_PAGE
    last = stop // HUGE_PAGE * HUGE_PAGE
    if last <= first or not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    except (OSError, AttributeError):
        return False
    libc.madvise(first, last - first, MADV_HUGEPAGE)
    return libc.madvise(first, last - first, MADV_COLLAPSE) == 0


def anonymous_mappings() -> set[tuple[int, int]]:
    """This process's anonymous memory mappings (start, stop); empty where /proc is not."""
    try:
        lines = Path("/proc/self/maps").read_text().splitlines()
    except OSError:
        return set()
    found = set()
    for line in lines:
        parts = line.split()
        if len(parts) == 5 and "-" in parts[0]:  # no path: anonymous (heap, mmap'd malloc)
            start, stop = (int(x, 16) for x in parts[0].split("-"))
            found.add((start, stop))
    return found


def new_mappings_on_huge_pages(before: set[tuple[int, int]]) -> int:
    """Put the memory mapped since ``before`` (what a library such as hnswlib allocated while
    loading an index) on 2 MB pages, where at least ``MIN_MAPPING`` of it is new in one place;
    a mapping that grew (the kernel merges neighbours) counts only its new part, so the heap is
    left alone. The number of regions collapsed."""
    stop_of = dict(before)
    start_of = {stop: start for start, stop in before}
    done = 0
    for start, stop in anonymous_mappings() - before:
        if start in stop_of:  # grew upwards: only the part above the old end is new
            start = stop_of[start]
        elif stop in start_of:  # grew downwards
            stop = start_of[stop]
        if stop - start >= MIN_MAPPING:
            done += huge_pages_at(start, stop)
    return done
