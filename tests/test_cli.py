"""The ``nshash`` command, run as a user runs it: in a subprocess, on real files of each format."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import nshash

pd = pytest.importorskip("pandas")

STORY_A = "第一句话足够长，可以作为指纹。第二句也一样长，内容完全不同。第三句话讲述了另外一件事情。"
STORY_B = "The second story starts here and runs long. It has another long sentence too. And a third one."
STORY_C = "第三个故事和前两个毫无关系。它的句子也都足够长度了。最后一句话结束了这个故事。"


def make_rows() -> list[dict[str, Any]]:
    """Three stories, two of them reprinted with a byline and a site footer."""
    return [
        {"id": 1, "title": "A", "content": STORY_A},
        {"id": 2, "title": "B", "content": STORY_B},
        {"id": 3, "title": "A again", "content": "记者 张三\n" + STORY_A + "\n本文来自某某网"},
        {"id": 4, "title": "C", "content": STORY_C},
        {"id": 5, "title": "B copy", "content": "<p>" + STORY_B + "</p>"},
        {"id": 6, "title": "A third time", "content": STORY_A.replace("，", ",")},
    ]


def texts() -> list[str]:
    return [row["content"] for row in make_rows()]


def online_ids(docs: list[str]) -> list[int]:
    return nshash.NSHash().get_similar_many(docs)


def run(*args: str, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "nshash", *args], cwd=cwd, input=stdin, capture_output=True, env=env, timeout=120
    )


def err(result: subprocess.CompletedProcess[bytes]) -> str:
    return result.stderr.decode("utf-8")


# -- writing and reading each format ------------------------------------------------------------
def write(path: Path, rows: list[dict[str, Any]]) -> None:
    suffix = path.suffix
    if suffix == ".jsonl":
        path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    elif suffix == ".csv":
        with open(path, "w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    elif suffix == ".parquet":
        pd.DataFrame(rows).to_parquet(path, index=False)
    else:
        pd.DataFrame(rows).to_excel(path, index=False)


def read(path: Path) -> list[dict[str, Any]]:
    suffix = path.suffix
    if suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    if suffix == ".csv":
        with open(path, encoding="utf-8", newline="") as handle:
            return list(csv.DictReader(handle))
    frame = pd.read_parquet(path) if suffix == ".parquet" else pd.read_excel(path)
    return list(frame.to_dict("records"))


FORMATS = [".jsonl", ".csv", ".parquet", ".xlsx"]


@pytest.mark.parametrize("suffix", FORMATS)
def test_dedup_adds_similar_id_and_keeps_every_column(suffix: str, tmp_path: Path) -> None:
    write(tmp_path / f"in{suffix}", make_rows())
    result = run("dedup", f"in{suffix}", "-o", f"out{suffix}", "--online", cwd=tmp_path)
    assert result.returncode == 0, err(result)
    out = read(tmp_path / f"out{suffix}")
    expected = online_ids(texts())
    assert [int(row["similar_id"]) for row in out] == expected
    assert len(set(expected)) == 3  # the stories, whatever the reprint changed
    assert [row["content"] for row in out] == texts()
    assert [str(row["title"]) for row in out] == [row["title"] for row in make_rows()]
    assert "6 documents, 3 clusters, 3 duplicates" in err(result)


def test_the_summary_counts_one_in_the_singular(tmp_path: Path) -> None:
    line = json.dumps({"content": "A long enough first sentence of the story here. And its second one."}) + "\n"
    result = run("dedup", "-", cwd=tmp_path, stdin=line.encode())
    assert result.returncode == 0, err(result)
    assert "nshash: 1 document, 1 cluster, 0 duplicates -> standard output" in err(result)
    result = run("dedup", "-", "--drop-duplicates", cwd=tmp_path, stdin=(line * 2).encode())
    assert "nshash: 2 documents, 1 cluster, 1 duplicate, 1 row written -> standard output" in err(result)


@pytest.mark.parametrize(("source", "target"), [(".jsonl", ".parquet"), (".xlsx", ".csv"), (".csv", ".xlsx")])
def test_dedup_converts_between_formats(source: str, target: str, tmp_path: Path) -> None:
    write(tmp_path / f"in{source}", make_rows())
    result = run("dedup", f"in{source}", "-o", f"out{target}", "--online", "-q", cwd=tmp_path)
    assert result.returncode == 0, err(result)
    assert result.stderr == b""
    out = read(tmp_path / f"out{target}")
    assert [int(row["similar_id"]) for row in out] == online_ids(texts())
    assert [str(row["content"]) for row in out] == texts()


def test_stdin_to_stdout_as_jsonl(tmp_path: Path) -> None:
    write(tmp_path / "in.jsonl", make_rows())
    result = run("dedup", "-", "--online", "-q", cwd=tmp_path, stdin=(tmp_path / "in.jsonl").read_bytes())
    assert result.returncode == 0, err(result)
    out = [json.loads(line) for line in result.stdout.decode("utf-8").splitlines()]
    assert [row["similar_id"] for row in out] == online_ids(texts())


def test_drop_duplicates_keeps_the_first_of_each_cluster(tmp_path: Path) -> None:
    write(tmp_path / "in.jsonl", make_rows())
    result = run("dedup", "in.jsonl", "-o", "out.jsonl", "--online", "--drop-duplicates", cwd=tmp_path)
    assert result.returncode == 0, err(result)
    out = read(tmp_path / "out.jsonl")
    ids = online_ids(texts())
    firsts = [i for i, sid in enumerate(ids) if sid not in ids[:i]]
    assert [row["id"] for row in out] == [make_rows()[i]["id"] for i in firsts]
    assert "3 rows written" in err(result)


def test_field_option_and_replacing_an_existing_id_column(tmp_path: Path) -> None:
    rows = [{"text": row["content"], "similar_id": 999} for row in make_rows()]
    write(tmp_path / "in.csv", rows)
    result = run("dedup", "in.csv", "-o", "out.csv", "--field", "text", "--online", cwd=tmp_path)
    assert result.returncode == 0, err(result)
    out = read(tmp_path / "out.csv")
    assert list(out[0]) == ["text", "similar_id"]
    assert [int(row["similar_id"]) for row in out] == online_ids(texts())


def test_batch_mode_is_the_default_without_a_name(tmp_path: Path) -> None:
    write(tmp_path / "in.jsonl", make_rows())
    result = run("dedup", "in.jsonl", "-o", "out.jsonl", "-O", "n=4", cwd=tmp_path)
    assert result.returncode == 0, err(result)
    out = read(tmp_path / "out.jsonl")
    assert [row["similar_id"] for row in out] == list(nshash.similar_ids(texts(), n=4))
    # From a pipe, the same ids as from the file.
    piped = run("dedup", "-", "-O", "n=4", cwd=tmp_path, stdin=(tmp_path / "in.jsonl").read_bytes())
    assert [json.loads(line)["similar_id"] for line in piped.stdout.decode().splitlines()] == [
        row["similar_id"] for row in out
    ]
    # With workers computing the features: the same ids, and no note that they were ignored.
    pooled = run("dedup", "in.jsonl", "-o", "pooled.jsonl", "-O", "n=4", "--workers", "2", cwd=tmp_path)
    assert pooled.returncode == 0, err(pooled)
    assert "--workers" not in err(pooled)
    assert read(tmp_path / "pooled.jsonl") == out


def test_console_script_is_installed(tmp_path: Path) -> None:
    script = shutil.which("nshash")
    if script is None:
        pytest.skip("the nshash console script is not on PATH (package not pip-installed)")
    result = subprocess.run([script, "--version"], capture_output=True, timeout=60)
    assert result.returncode == 0
    assert result.stdout.decode().strip() == f"nshash {nshash.__version__} ({nshash._accel.describe()})"


def test_progress_bar_on_stderr(tmp_path: Path) -> None:
    write(tmp_path / "in.jsonl", make_rows())
    result = run("dedup", "in.jsonl", "-o", "out.jsonl", "--online", "--progress", cwd=tmp_path)
    assert result.returncode == 0, err(result)
    assert "6/6" in err(result)


# -- a named index: continue it, explain, stats ------------------------------------------------------
@pytest.mark.parametrize("store", ["memory", "leveldb"])
def test_continue_a_named_index_then_stats_and_explain(store: str, tmp_path: Path) -> None:
    rows = make_rows()
    write(tmp_path / "a.jsonl", rows[:3])
    write(tmp_path / "b.jsonl", rows[3:])
    common = ["--name", "news", "--store", store]
    first = run("dedup", "a.jsonl", "-o", "a.out.jsonl", *common, "-O", "n=4", cwd=tmp_path)
    assert first.returncode == 0, err(first)
    # The second run finds the options the index was built with (n=4) by itself.
    second = run("dedup", "b.jsonl", "-o", "b.out.jsonl", *common, "--workers", "2", cwd=tmp_path)
    assert second.returncode == 0, err(second)
    reference = nshash.NSHash(n=4)
    expected_a = reference.get_similar_many(texts()[:3])
    expected_b = reference.get_similar_many(texts()[3:])
    assert [row["similar_id"] for row in read(tmp_path / "a.out.jsonl")] == expected_a
    assert [row["similar_id"] for row in read(tmp_path / "b.out.jsonl")] == expected_b

    stats = run("stats", *common, "--json", cwd=tmp_path)
    assert stats.returncode == 0, err(stats)
    report = json.loads(stats.stdout)
    assert report["documents"] == 6
    assert report["clusters"] == 3
    assert report["fingerprints"] == reference.stats()["fingerprints"]
    assert report["options"]["n"] == 4
    assert report["algorithm"] == "nshash"
    assert report["implementation"] == nshash._accel.describe()  # the subprocess has this process's environment
    table = run("stats", *common, cwd=tmp_path).stdout.decode()
    assert "documents        6" in table
    assert f"implementation   {nshash._accel.describe()}" in table
    assert "n=4" in table

    (tmp_path / "doc.txt").write_text(rows[4]["content"], encoding="utf-8")
    explained = run("explain", "doc.txt", *common, cwd=tmp_path)
    assert explained.returncode == 0, err(explained)
    output = explained.stdout.decode()
    for row in reference.explain(rows[4]["content"]):
        fingerprints = row.get("keys", [row.get("fingerprint")])
        assert all(f"{fingerprint:016x}" in output for fingerprint in fingerprints)
    assert f"stored clusters matched: {expected_b[1]} (" in output
    why = reference.explain_decision(rows[4]["content"])
    assert f"decision: cluster {why['similar_id']} (containment {why['score']:.3f})" in output
    assert all(c["rule"] in output for c in why["candidates"])
    assert "same site" in output
    as_json = json.loads(run("explain", "-", *common, "--json", cwd=tmp_path, stdin=rows[0]["content"].encode()).stdout)
    assert as_json == reference.explain(rows[0]["content"])


def test_explain_a_new_document_given_as_text(tmp_path: Path) -> None:
    write(tmp_path / "a.jsonl", make_rows())
    assert run("dedup", "a.jsonl", "-o", "out.jsonl", "--name", "news", cwd=tmp_path).returncode == 0
    result = run(
        "explain", "--text", "完全没有见过的一句很长的话。另一句也是新的很长的话。", "--name", "news", cwd=tmp_path
    )
    assert result.returncode == 0, err(result)
    assert "would start a new cluster" in result.stdout.decode()


def test_other_options_than_the_index_was_built_with(tmp_path: Path) -> None:
    write(tmp_path / "a.jsonl", make_rows())
    index = ["--name", "news", "--store", "leveldb"]
    assert run("dedup", "a.jsonl", "-o", "o.jsonl", *index, cwd=tmp_path).returncode == 0
    result = run("dedup", "a.jsonl", "-o", "o.jsonl", *index, "-O", "n=3", cwd=tmp_path)
    assert result.returncode == 4
    assert "n: stored 5, given 3" in err(result)


@pytest.mark.parametrize("command", ["stats", "explain"])
def test_reading_an_index_that_does_not_exist(command: str, tmp_path: Path) -> None:
    args = [command, *(["--text", "some text"] if command == "explain" else []), "--name", "nope", "--store", "leveldb"]
    result = run(*args, cwd=tmp_path)
    assert result.returncode == 4
    assert "no nshash index 'nope'" in err(result)
    assert not (tmp_path / "nope.hashdb").exists()  # looking did not create it


# -- bad input: one line, the line number, an exit code -------------------------------------------
def one_line_error(result: subprocess.CompletedProcess[bytes]) -> str:
    lines = err(result).splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("nshash: error: ")
    return lines[0]


def test_missing_file(tmp_path: Path) -> None:
    result = run("dedup", "nope.jsonl", "--online", cwd=tmp_path)
    assert result.returncode == 1
    assert one_line_error(result) == "nshash: error: nope.jsonl: no such file"


@pytest.mark.parametrize("suffix", FORMATS)
def test_missing_column(suffix: str, tmp_path: Path) -> None:
    write(tmp_path / f"in{suffix}", make_rows())
    result = run("dedup", f"in{suffix}", "--field", "body", "--online", cwd=tmp_path)
    assert result.returncode == 1
    assert "'body'" in one_line_error(result)
    assert "'content'" in one_line_error(result)  # the columns that do exist


@pytest.mark.parametrize("suffix", FORMATS)
def test_missing_default_field_names_the_flag_and_a_likely_column(suffix: str, tmp_path: Path) -> None:
    rows = [{"id": row["id"], "text": row["content"]} for row in make_rows()]
    write(tmp_path / f"in{suffix}", rows)
    result = run("dedup", f"in{suffix}", "--online", cwd=tmp_path)
    assert result.returncode == 1
    assert one_line_error(result).endswith("name the text's with --field, e.g. --field text")
    assert "no field 'content' (fields: 'id', 'text')" in one_line_error(result)
    rerun = run("dedup", f"in{suffix}", "--online", "--field", "text", "-o", f"out{suffix}", cwd=tmp_path)
    assert rerun.returncode == 0, rerun.stderr


def test_bad_json_lines_are_reported_with_their_numbers(tmp_path: Path) -> None:
    good = [json.dumps(row, ensure_ascii=False) for row in make_rows()]
    lines = [good[0], "", good[1], '{"content": "unterminated', good[2], "[1, 2]", good[3]]
    (tmp_path / "in.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run("dedup", "in.jsonl", "-o", "out.jsonl", "--online", cwd=tmp_path)
    assert result.returncode == 1
    message = one_line_error(result)
    assert "in.jsonl line 4: invalid JSON" in message
    assert "also bad: line 6" in message
    assert not (tmp_path / "out.jsonl").exists()  # nothing half-done is written


def test_rows_without_text_are_reported_not_skipped(tmp_path: Path) -> None:
    rows: list[dict[str, Any]] = [*make_rows(), {"id": 7, "content": None}, {"id": 8}, {"id": 9, "content": 5}]
    write(tmp_path / "in.jsonl", rows)
    result = run("dedup", "in.jsonl", "--online", cwd=tmp_path)
    assert result.returncode == 1
    message = one_line_error(result)
    assert "line 7: field 'content' is missing" in message
    assert "also bad: line 8, line 9" in message


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_undecodable_bytes_name_their_line(suffix: str, tmp_path: Path) -> None:
    write(tmp_path / f"in{suffix}", make_rows())
    data = (tmp_path / f"in{suffix}").read_bytes().splitlines(keepends=True)
    data.insert(2, b'{"id": 0, "content": "caf\xe9"}\n' if suffix == ".jsonl" else b"0,caf\xe9,x\n")
    (tmp_path / f"in{suffix}").write_bytes(b"".join(data))
    result = run("dedup", f"in{suffix}", "--online", cwd=tmp_path)
    assert result.returncode == 1
    assert f"in{suffix} line 3: not valid UTF-8" in one_line_error(result)


def test_csv_row_with_the_wrong_number_of_fields(tmp_path: Path) -> None:
    (tmp_path / "in.csv").write_text('id,content\n1,"multi\nline text"\n2,a,b\n3,fine\n', encoding="utf-8")
    result = run("dedup", "in.csv", "--online", cwd=tmp_path)
    assert result.returncode == 1
    assert one_line_error(result) == "nshash: error: in.csv line 4: 3 fields, the header has 2"


def test_excel_cells_are_named_by_their_sheet_row(tmp_path: Path) -> None:
    rows = make_rows()
    rows[2]["content"] = None
    write(tmp_path / "in.xlsx", rows)
    result = run("dedup", "in.xlsx", "--online", cwd=tmp_path)
    assert result.returncode == 1
    assert "in.xlsx row 4: field 'content' is missing" in one_line_error(result)


@pytest.mark.parametrize("suffix", [".parquet", ".xlsx"])
def test_corrupt_binary_files(suffix: str, tmp_path: Path) -> None:
    (tmp_path / f"in{suffix}").write_bytes(b"not a real file")
    result = run("dedup", f"in{suffix}", "--online", cwd=tmp_path)
    assert result.returncode == 1
    assert f"in{suffix}: not a readable" in one_line_error(result)


def test_unknown_extension_and_bad_options(tmp_path: Path) -> None:
    write(tmp_path / "in.jsonl", make_rows())
    unknown = run("dedup", "in.jsonl", "-o", "out.txt", "--online", cwd=tmp_path)
    assert unknown.returncode == 1
    assert "unknown file type '.txt'" in one_line_error(unknown)
    bad_option = run("dedup", "in.jsonl", "--online", "-O", "colour=blue", cwd=tmp_path)
    assert bad_option.returncode == 2
    assert "unknown option(s) colour" in one_line_error(bad_option)
    bad_value = run("dedup", "in.jsonl", "--online", "-O", "n=0", cwd=tmp_path)
    assert bad_value.returncode == 2
    assert "n must be an int from 1 to 64" in one_line_error(bad_value)
    no_name = run("dedup", "in.jsonl", "--store", "leveldb", cwd=tmp_path)
    assert no_name.returncode == 2
    assert "--store leveldb needs --name" in one_line_error(no_name)


def test_missing_optional_dependency_names_the_extra(tmp_path: Path) -> None:
    write(tmp_path / "in.jsonl", make_rows())
    code = (
        "import sys; sys.modules['pyarrow'] = None; from nshash.cli import main; "
        "sys.exit(main(['dedup', 'in.jsonl', '-o', 'out.parquet', '--online']))"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, timeout=60)
    assert result.returncode == 3, err(result)
    assert "pip install 'nshash[parquet]'" in one_line_error(result)
