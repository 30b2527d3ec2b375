"""2 MB pages under an index's memory: advice only, so values never change, and only memory
that is new and large is asked for."""

from __future__ import annotations

import mmap
from pathlib import Path

import numpy as np

from lastword.store import pages


def huge_kb(address: int) -> int:
    """AnonHugePages (kB) of this process's mapping that holds ``address``."""
    inside = False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()[0]
        if "-" in head and ":" not in head:
            low, high = (int(x, 16) for x in head.split("-"))
            inside = low <= address < high
        elif inside and head == "AnonHugePages:":
            return int(line.split()[1])
    return 0


def test_huge_pages_leave_the_memory_as_it_was():
    big = np.arange(3 * pages.HUGE_PAGE // 8, dtype=np.int64)
    copy = big.copy()
    if pages.huge_pages(big):  # collapsed: the aligned part now holds 2 MB pages
        aligned = -(-big.ctypes.data // pages.HUGE_PAGE) * pages.HUGE_PAGE
        assert huge_kb(aligned) >= 2048
    assert np.array_equal(big, copy)
    assert pages.huge_pages(np.zeros(16, dtype=np.int64)) is False


def test_only_new_large_mappings_are_asked_for():
    before = pages.anonymous_mappings()
    assert before  # Linux: the heap at least
    small = mmap.mmap(-1, 4 << 20)  # new but small (unless the kernel merges it with large)
    small.write(b"x" * len(small))
    large = mmap.mmap(-1, pages.MIN_MAPPING + pages.HUGE_PAGE)
    large.write(b"y" * len(large))
    done = pages.new_mappings_on_huge_pages(before)
    assert done in (0, 1)  # the large one, if this kernel collapses at all
    view = np.frombuffer(large, dtype=np.uint8)
    if done:
        aligned = -(-view.ctypes.data // pages.HUGE_PAGE) * pages.HUGE_PAGE
        assert huge_kb(aligned) >= 2048
    assert view[0] == ord("y") and view[-1] == ord("y") and small[:1] == b"x"
    del view
    small.close()
    large.close()
