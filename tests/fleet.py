"""Real parts for the concurrency, crash and benchmark runs.

A redis-server in a temp dir, labelled corpora (articles and their reprints),
a Redis store that logs the order of its commits, and the ARI.

Shared by ``tests/`` and ``benchmarks/redis_concurrency.py`` so both exercise
the same server setup and the same kind of documents.
"""

from __future__ import annotations

import math
import random
import shutil
import signal
import socket
import subprocess
import time
from collections import Counter
from collections.abc import Hashable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from nshash.stores.redis import HashDBRedis

#: Ports a first start tries when another process takes the one it chose before its server binds it.
_PORT_ATTEMPTS = 3


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RedisServer:
    """A real ``redis-server`` on a free local port, its files (log, AOF) in ``directory``.

    ``appendonly=True`` fsyncs every write to the AOF, so a server killed with
    SIGKILL and started again still has every acknowledged write.
    """

    def __init__(self, directory: Path, *, appendonly: bool = False) -> None:
        if shutil.which("redis-server") is None:
            raise RuntimeError("redis-server is not installed: run scripts/test.sh or apt-get install redis-server")
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.appendonly = appendonly
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self._started = False  # once started, the port is the server's: restarts keep it

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 20.0) -> None:
        """Start the server (again, on the same port and files) and wait until it answers.

        A first start whose port another process took meanwhile (a parallel
        test run's own server) tries a new port, and only the server this
        object started counts as answering: never another one on the port.
        """
        for attempt in range(_PORT_ATTEMPTS):
            if self._start(timeout):
                self._started = True
                return
            if self._started or attempt == _PORT_ATTEMPTS - 1:
                break
            self.port = free_port()
        log = (self.directory / "redis.log").read_text(errors="replace")[-2000:]
        raise RuntimeError(f"redis-server on port {self.port} did not start:\n{log}")

    def _start(self, timeout: float) -> bool:
        """Whether the server started here answers on ``self.port`` (``False``: it exited or never answered)."""
        import redis

        args = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.directory)]
        args += ["--save", "", "--logfile", "redis.log", "--daemonize", "no"]
        args += ["--appendonly", "yes" if self.appendonly else "no", "--appendfsync", "always"]
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = redis.Redis(port=self.port, socket_connect_timeout=1)
        deadline = time.monotonic() + timeout
        try:
            while self.process.poll() is None and time.monotonic() < deadline:
                try:
                    if int(client.info("server")["process_id"]) == self.process.pid:
                        return True
                except (redis.ConnectionError, redis.TimeoutError):
                    pass
                time.sleep(0.02)
            self.stop()
            return False
        finally:
            client.close()

    def _end(self, sig: int) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(timeout=30)
        self.process = None

    def stop(self) -> None:
        """Shut the server down cleanly (SIGTERM)."""
        self._end(signal.SIGTERM)

    def kill(self) -> None:
        """Kill the server with SIGKILL, as a crash or an OOM killer would."""
        self._end(signal.SIGKILL)

    def __enter__(self) -> RedisServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


# -- a labelled corpus: articles and their reprints --------------------------------
_SYLLABLES = [a + b for a in "bcdfghjklmnprstvwz" for b in "aeiou"]


def _sentence(rng: random.Random) -> str:
    words = ["".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(1, 4))) for _ in range(rng.randint(10, 22))]
    return " ".join(words).capitalize() + "."


def article(rng: random.Random) -> str:
    """A news-like article of distinct random text: a title and 6-12 sentences in paragraphs."""
    sentences = [_sentence(rng) for _ in range(rng.randint(6, 12))]
    paragraphs = [" ".join(sentences[i : i + 3]) for i in range(0, len(sentences), 3)]
    return _sentence(rng)[:-1].title() + "\n\n" + "\n\n".join(paragraphs)


def edit_characters(text: str, rng: random.Random, edits: int = 3) -> str:
    """``text`` with ``edits`` of its letters changed, each at most once."""
    chars = list(text)
    letters = [i for i, char in enumerate(chars) if char.isalpha()]
    for i in rng.sample(letters, edits):
        chars[i] = rng.choice("xyzq")
    return "".join(chars)


REPRINTS = ("byline", "edited", "site")


def reprint(text: str, kind: str, rng: random.Random) -> str:
    """``text`` as another site would reprint it.

    ``byline``: a new title line and byline; ``edited``: three letters changed;
    ``site``: wrapped in a site's header and footer, paragraphs re-flowed.
    """
    if kind == "byline":
        body = text.split("\n\n", 1)[1]
        return f"Reprinted: {_sentence(rng)[:30]}\nBy {rng.choice(_SYLLABLES).title()} Staff\n\n{body}"
    if kind == "edited":
        return edit_characters(text, rng)
    if kind == "site":
        header = f"Home | News | Sports | {rng.choice(_SYLLABLES).title()} Daily"
        return f"{header}\n{text.replace(chr(10) * 2, chr(10))}\nShare this story. Copyright Daily."
    raise ValueError(kind)


def labelled_corpus(articles: int, seed: int = 0, reprints: Sequence[str] = REPRINTS) -> tuple[list[str], list[int]]:
    """``articles`` distinct articles, each followed by one reprint of every kind in ``reprints``.

    Returns the documents and their true labels (the article number).  The
    versions of one article are adjacent, so ``docs[k::len(reprints) + 1]``
    gives process ``k`` its own version of every article at the same moment.
    """
    rng = random.Random(seed)
    docs: list[str] = []
    labels: list[int] = []
    for label in range(articles):
        original = article(rng)
        docs.append(original)
        docs.extend(reprint(original, kind, rng) for kind in reprints)
        labels.extend([label] * (len(reprints) + 1))
    return docs, labels


def site_corpus(articles: int, seed: int = 0) -> tuple[list[str], list[int]]:
    """Articles, each followed by two reprints carrying the long footer of one of three sites.

    The footers are site boilerplate, longer than most article sentences, so
    the clusters found depend on the order documents arrive in (boilerplate
    detection learns as it goes): good for checking that a concurrent run
    equals a serial one in the same order.
    """
    rng = random.Random(seed)
    footers = [f"{_sentence(rng)} {_sentence(rng)}\n{_sentence(rng)}" for _ in range(3)]
    docs: list[str] = []
    labels: list[int] = []
    for label in range(articles):
        original = article(rng)
        docs += [original, f"{original}\n{rng.choice(footers)}", f"{original}\n{rng.choice(footers)}"]
        labels += [label] * 3
    return docs, labels


class LoggedStore(HashDBRedis):
    """The real Redis store, plus one RPUSH of :attr:`doc` in every commit (MULTI/EXEC or conditional write).

    The list ``{prefix}:commits`` then holds the exact order in which the
    server committed the documents (read-only ones too: they end with an
    empty MULTI/EXEC or a checked guess).  One extra command per commit, on a
    key nobody watches.
    """

    doc = -1

    def _commit_extras(self) -> list[Any]:
        return [("RPUSH", self._keys.tag + ":commits", self.doc)]

    def commits(self) -> list[int]:
        """The logged documents, in commit order."""
        with self._lock:
            raw = self._roundtrip([("LRANGE", self._keys.tag + ":commits", 0, -1)])[0]
        return [int(i) for i in raw if int(i) >= 0]


def commit_order(finished: list[int], committed: list[int]) -> list[int]:
    """``finished`` (documents by the time their call returned) with the committed ones in commit order.

    Documents that never reached the server's EXEC (no fingerprint to look
    up) keep their place by finish time: they read and wrote nothing but the
    id counter, so no other document's result depends on where they are.
    """
    logged = set(committed)
    exact = iter(committed)
    return [next(exact) if i in logged else i for i in finished]


def adjusted_rand_index(truth: Sequence[Hashable], found: Sequence[Hashable]) -> float:
    """Hubert-Arabie adjusted Rand index of two clusterings, from their contingency table.

    >>> adjusted_rand_index([1, 1, 2, 2], ["a", "a", "b", "b"])
    1.0
    """
    if len(truth) != len(found):
        raise ValueError("clusterings of different lengths")

    def pairs(counts: Any) -> float:
        return float(sum(math.comb(count, 2) for count in counts))

    cells = pairs(Counter(zip(truth, found)).values())
    rows = pairs(Counter(truth).values())
    cols = pairs(Counter(found).values())
    total = math.comb(len(truth), 2)
    expected = rows * cols / total if total else 0.0
    best = (rows + cols) / 2
    if best == expected:  # both clusterings trivial (all singletons or one cluster)
        return 1.0 if rows == cols else 0.0
    return (cells - expected) / (best - expected)
