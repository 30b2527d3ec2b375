"""The SQLite search log: sliding 600 s windows per member (5) and per chat (20), kept on disk."""

from __future__ import annotations

from lastword.websearch.ratelimit import Limits, SearchLog


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_sixth_search_by_one_member_in_the_window_is_refused(tmp_path):
    clock = Clock()
    log = SearchLog(tmp_path / "s.sqlite", Limits(5, 20, 600), clock)
    for i in range(5):
        assert log.admit("m1", "c1", "brave", f"q{i}").admitted
        clock.now += 10
    sixth = log.admit("m1", "c1", "brave", "q5")
    assert not sixth.admitted and sixth.limited_by == "member" and sixth.used == 5
    assert sixth.retry_after_s == 600 - 50
    assert log.admit("m2", "c1", "brave", "other member").admitted
    # the window slides: 600 s after the first search, one slot is free again
    clock.now = 1_000_000.0 + 600
    assert log.admit("m1", "c1", "brave", "q6").admitted
    assert not log.admit("m1", "c1", "brave", "q7").admitted


def test_twenty_first_search_in_one_chat_is_refused(tmp_path):
    clock = Clock()
    log = SearchLog(tmp_path / "s.sqlite", Limits(5, 20, 600), clock)
    for i in range(20):
        assert log.admit(f"m{i // 5}", "c1", "brave", "q").admitted
        clock.now += 1
    refused = log.admit("m9", "c1", "brave", "q")
    assert refused.limited_by == "chat" and refused.used == 20
    assert log.admit("m9", "c2", "brave", "q").admitted


def test_limits_survive_a_restart_and_every_search_is_recorded(tmp_path):
    clock = Clock()
    path = tmp_path / "s.sqlite"
    first = SearchLog(path, Limits(5, 20, 600), clock)
    for i in range(5):
        admitted = first.admit("m1", "c1", "serper", f"query {i}")
        first.finish(admitted.search_id, "ok", 3)
    restarted = SearchLog(path, Limits(5, 20, 600), clock)
    assert not restarted.admit("m1", "c1", "serper", "again").admitted
    records = restarted.records()
    assert [r.query for r in records] == [f"query {i}" for i in range(5)]
    assert {(r.provider, r.result_count, r.outcome) for r in records} == {("serper", 3, "ok")}
    assert all(r.at == clock.now for r in records)
