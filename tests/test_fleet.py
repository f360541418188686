"""The real parts other tests stand on (``tests/fleet.py``), where they could fool those tests."""

from __future__ import annotations

from pathlib import Path

import redis

from tests.fleet import RedisServer


def test_a_server_whose_port_was_taken_starts_on_another(tmp_path: Path) -> None:
    # Parallel test runs (pytest -n) each start servers: a port chosen free can be taken before the
    # server binds it, and the other server then answered in its place (a test would run on it).
    with RedisServer(tmp_path / "first") as first:
        second = RedisServer(tmp_path / "second")
        second.port = first.port
        with second:
            assert second.port != first.port
            for server in (first, second):
                assert server.process is not None
                client = redis.Redis(port=server.port)
                assert int(client.info("server")["process_id"]) == server.process.pid
                client.close()
