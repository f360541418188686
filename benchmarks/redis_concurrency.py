"""Throughput of one Redis index shared by 1, 2, 4 and 8 crawler processes.

    python benchmarks/redis_concurrency.py [--articles 1000] [--clients 1 2 4 8] [--repeat 3]
        [--data benchmarks/data/zh-heldout.jsonl ...] [--limit 4000] [--appendonly] [--out DIR]

Starts its own ``redis-server`` (a free local port, files in a temp dir).
For every corpus and every client count, a fresh index gets the same
documents: client k of c inserts ``docs[k::c]`` with ``get_similar``, all
clients starting together.  Reported per row: documents per second (all
clients together, median of ``--repeat`` runs), speedup over one client,
the median and 99th-percentile latency of one ``get_similar``, the share of
documents committed on their first guess in one round trip (see
``HashDBRedis.transaction``), the share of transactions retried after a
conflict, and two ARIs of the final clustering
(1.0 = the same clusters): against the one-client run, and against one
in-memory process inserting the documents in the order the server committed
them.  The first mixes in the algorithm's sensitivity to arrival order
(boilerplate detection learns as it goes); the second checks that the
concurrent run equals a serial one.  The commit order is logged by the
server itself (an RPUSH inside each MULTI/EXEC); documents that wrote
nothing are placed by the time their call returned.

Then, per corpus, one client's costs per page into a fresh index: round
trips, commands sent, client CPU and server CPU (``INFO cpu``), with the
store guessing first (the default) and reading first (``guess = False``).

Corpora: ``synthetic`` (always; ``--articles`` random articles with three
reprints each, from ``tests/fleet.py``, shuffled with a fixed seed so that
reprints arrive spread over the crawl) and each ``--data`` JSONL file (its
``text`` field, in file order, as written by ``benchmarks/make_corpus.py``).
Writes ``redis_concurrency.md`` to ``--out`` (default ``benchmarks/results``).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402

import nshash  # noqa: E402
from nshash.stores.redis import HashDBRedis  # noqa: E402
from tests.fleet import LoggedStore, RedisServer, adjusted_rand_index, commit_order, labelled_corpus  # noqa: E402

CONTEXT = multiprocessing.get_context("fork")


def _client(url: str, prefix: str, docs: list[tuple[int, str]], barrier: Any, queue: Any) -> None:
    store = LoggedStore(url, prefix=prefix)
    nsh = nshash.NSHash(hashdb=store)
    ids: list[tuple[int, int]] = []
    latencies: list[float] = []
    done: list[tuple[int, int]] = []
    barrier.wait()
    for i, doc in docs:
        store.doc = i
        start = time.perf_counter_ns()  # CLOCK_MONOTONIC: comparable across processes
        similar_id = nsh.get_similar(doc)
        end = time.perf_counter_ns()
        latencies.append((end - start) / 1e9)
        ids.append((i, similar_id))
        done.append((end, i))
    queue.put((ids, latencies, store.conflicts, done, store.guessed_right))
    store.close()


def run_once(url: str, docs: list[str], clients: int) -> dict[str, Any]:
    """Insert ``docs`` from ``clients`` processes into a fresh index; measure."""
    prefix = f"bench:{uuid.uuid4().hex[:12]}"
    nshash.NSHash(prefix, hashdb="redis", store_options={"url": url}).close()  # create the index first
    barrier = CONTEXT.Barrier(clients + 1)
    queue = CONTEXT.Queue()
    numbered = list(enumerate(docs))
    workers = [
        CONTEXT.Process(target=_client, args=(url, prefix, numbered[k::clients], barrier, queue))
        for k in range(clients)
    ]
    for worker in workers:
        worker.start()
    barrier.wait()
    start = time.perf_counter()
    results = [queue.get(timeout=3600) for _ in workers]
    elapsed = time.perf_counter() - start
    for worker in workers:
        worker.join()
    ids = dict(pair for part, *_ in results for pair in part)
    latencies = sorted(latency for _, part, *_ in results for latency in part)
    conflicts = sum(result[2] for result in results)
    guessed = sum(result[4] for result in results)
    finished = [i for _, i in sorted(pair for result in results for pair in result[3])]
    with LoggedStore(url, prefix=prefix) as store:
        committed = store.commits()
        nsh = nshash.NSHash(hashdb=store)
        resolved = nsh.resolve_many([ids[i] for i in range(len(docs))])
        fingerprints = nsh.stats()["fingerprints"]
    client = redis.Redis.from_url(url)
    for key in client.scan_iter(match="{" + prefix + "}:*", count=1000):
        client.unlink(key)
    client.close()
    return {
        "docs_per_s": len(docs) / elapsed,
        "p50_ms": latencies[len(latencies) // 2] * 1000,
        "p99_ms": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000,
        "retried": conflicts / len(docs),
        "guessed": guessed / len(docs),
        "resolved": resolved,
        "serial": serial_clusters(docs, commit_order(finished, committed)),
        "fingerprints": fingerprints,
    }


def serial_clusters(docs: list[str], order: list[int]) -> list[int]:
    """The clustering one process gets inserting ``docs`` in ``order``, per document."""
    nsh = nshash.NSHash()
    ids = {i: nsh.get_similar(docs[i]) for i in order}
    return nsh.resolve_many([ids[i] for i in range(len(docs))])


def measure(url: str, docs: list[str], client_counts: list[int], repeat: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    reference: list[int] | None = None
    for clients in client_counts:
        runs = [run_once(url, docs, clients) for _ in range(repeat)]
        best = sorted(runs, key=lambda run: run["docs_per_s"])[len(runs) // 2]  # the median run
        if reference is None:
            reference = best["resolved"]
        rows.append(
            {
                "clients": clients,
                "docs_per_s": best["docs_per_s"],
                "p50_ms": best["p50_ms"],
                "p99_ms": best["p99_ms"],
                "retried": statistics.mean(run["retried"] for run in runs),
                "guessed": statistics.mean(run["guessed"] for run in runs),
                "ari": min(adjusted_rand_index(reference, run["resolved"]) for run in runs),
                "ari_serial": min(adjusted_rand_index(run["serial"], run["resolved"]) for run in runs),
                "fingerprints": best["fingerprints"],
            }
        )
        print(f"  {clients} client(s): {best['docs_per_s']:.0f} docs/s", flush=True)
    return rows


def memory_baseline(docs: list[str]) -> float:
    nsh = nshash.NSHash()
    start = time.perf_counter()
    for doc in docs:
        nsh.get_similar(doc)
    return len(docs) / (time.perf_counter() - start)


class CountingStore(HashDBRedis):
    """The real store, counting round trips and the commands sent in them."""

    roundtrips = 0
    commands = 0

    def _roundtrip(self, commands: list[Any]) -> list[Any]:
        self.roundtrips += 1
        self.commands += len(commands)
        return super()._roundtrip(commands)


def per_page_costs(url: str, docs: list[str], guess: bool) -> dict[str, Any]:
    """One client into a fresh index: round trips, commands and CPU (client and server) per page."""
    admin = redis.Redis.from_url(url)

    def server_cpu() -> float:
        info = admin.info("cpu")
        return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])

    prefix = f"bench:{uuid.uuid4().hex[:12]}"
    store = CountingStore(url, prefix=prefix)
    store.guess = guess
    nsh = nshash.NSHash(hashdb=store)
    pages: Counter[int] = Counter()
    store.roundtrips = store.commands = 0
    server_before, cpu_before, start = server_cpu(), time.process_time(), time.perf_counter()
    for doc in docs:
        before = store.roundtrips
        nsh.get_similar(doc)
        pages[store.roundtrips - before] += 1
    elapsed, cpu, server = time.perf_counter() - start, time.process_time() - cpu_before, server_cpu() - server_before
    roundtrips, commands = store.roundtrips, store.commands
    nsh.close()
    for key in admin.scan_iter(match="{" + prefix + "}:*", count=1000):
        admin.unlink(key)
    admin.close()
    return {
        "guess": guess,
        "docs_per_s": len(docs) / elapsed,
        "roundtrips": roundtrips / len(docs),
        "commands": commands / len(docs),
        "client_us": cpu / len(docs) * 1e6,
        "server_us": server / len(docs) * 1e6,
        "pages": ", ".join(f"{count}: {share / len(docs):.0%}" for count, share in sorted(pages.items())),
    }


def costs_table(rows: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| one client | docs/s | round trips/page | commands/page | client CPU µs/page | server CPU µs/page "
        "| pages by round trips |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for row in rows:
        mode = "guess first (default)" if row["guess"] else "read first (`store.guess = False`)"
        lines.append(
            f"| {mode} | {row['docs_per_s']:.0f} | {row['roundtrips']:.2f} | {row['commands']:.1f} | "
            f"{row['client_us']:.0f} | {row['server_us']:.0f} | {row['pages']} |"
        )
    return lines


def bytes_per_fingerprint(url: str, docs: list[str]) -> float:
    """Growth of the server's used_memory per stored fingerprint, one client."""
    client = redis.Redis.from_url(url)
    before = int(client.info("memory")["used_memory"])
    prefix = f"bench:{uuid.uuid4().hex[:12]}"
    with nshash.NSHash(prefix, hashdb="redis", store_options={"url": url}) as nsh:
        for doc in docs:
            nsh.get_similar(doc)
        fingerprints = nsh.stats()["fingerprints"]
    grown = int(client.info("memory")["used_memory"]) - before
    for key in client.scan_iter(match="{" + prefix + "}:*", count=1000):
        client.unlink(key)
    client.close()
    return grown / fingerprints


def load_jsonl(path: Path, limit: int) -> list[str]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line)["text"] for line, _ in zip(handle, range(limit))]


def table(rows: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| clients | docs/s | speedup | p50 ms | p99 ms | guessed right | retried | ARI vs 1 client "
        "| ARI vs 1 process, same order |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    base = rows[0]["docs_per_s"]
    for row in rows:
        lines.append(
            f"| {row['clients']} | {row['docs_per_s']:.0f} | {row['docs_per_s'] / base:.2f}x | "
            f"{row['p50_ms']:.2f} | {row['p99_ms']:.2f} | {row['guessed']:.1%} | {row['retried']:.1%} | "
            f"{row['ari']:.4f} | "
            f"{row['ari_serial']:.4f} |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--articles", type=int, default=1000, help="synthetic articles (4 documents each)")
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, nargs="*", default=[], help="JSONL corpora to run as well")
    parser.add_argument("--limit", type=int, default=4000, help="documents taken from each --data file")
    parser.add_argument("--appendonly", action="store_true", help="server fsyncs every write (appendfsync always)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args()

    synthetic = labelled_corpus(args.articles, seed=1)[0]
    random.Random(1).shuffle(synthetic)
    corpora = {"synthetic": synthetic}
    for path in args.data:
        corpora[path.name] = load_jsonl(path, args.limit)

    report = [
        "# Redis store: one index, many crawler processes",
        "",
        "Command: `python benchmarks/redis_concurrency.py " + " ".join(sys.argv[1:]).replace(str(ROOT) + "/", "") + "`",
        "",
    ]
    with tempfile.TemporaryDirectory() as directory, RedisServer(Path(directory), appendonly=args.appendonly) as server:
        version = redis.Redis.from_url(server.url).info("server")["redis_version"]
        report += [
            f"Machine: {os.cpu_count()} CPU cores ({platform.processor() or platform.machine()}), shared by the "
            f"redis-server and every client; Python {platform.python_version()}, redis-py {redis.__version__}, "
            f"Redis {version} on localhost TCP, "
            + ("AOF with appendfsync always." if args.appendonly else "no persistence (measures the store, not disk).")
            + f" Median of {args.repeat} runs per row, each into a fresh index."
            f" Load average when starting: {os.getloadavg()[0]:.1f}.",
            "",
            "With the server and all clients on the same few cores, more clients cannot add much",
            "throughput here: read the tables for what concurrency costs (latency, retried",
            "transactions) and for correctness (the last column), and measure scaling on a machine",
            "with more cores, or with the server on its own host.",
            "",
        ]
        for name, docs in corpora.items():
            print(f"{name}: {len(docs)} documents", flush=True)
            rows = measure(server.url, docs, args.clients, args.repeat)
            memory = memory_baseline(docs)
            per_fp = bytes_per_fingerprint(server.url, docs)
            costs = [per_page_costs(server.url, docs, guess) for guess in (True, False)]
            report += [f"## {name}: {len(docs)} documents, {rows[0]['fingerprints']} fingerprints stored", ""]
            report += table(rows)
            report += [
                "",
                f"For scale: the in-process memory store, one process: {memory:.0f} docs/s. "
                f"Redis memory per stored fingerprint (all tables, used_memory growth): {per_fp:.0f} bytes.",
                "",
                *costs_table(costs),
                "",
            ]
            print("\n".join(table(rows) + costs_table(costs)), flush=True)
    report.append(f"Load average when done: {os.getloadavg()[0]:.1f}.")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "redis_concurrency.md").write_text("\n".join(report), encoding="utf-8")
    print(f"wrote {args.out / 'redis_concurrency.md'}")


if __name__ == "__main__":
    main()
