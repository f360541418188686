"""``nshash`` command: encodings, workbooks, paths, locked indexes, hostile JSONL, progress, file modes, logging."""

from __future__ import annotations

import csv
import json
import logging
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import nshash
from nshash.cli import main

ARTICLE = "第一句话足够长，可以作为指纹使用。第二句也一样长，内容完全不同。第三句话也很长很长。"
COPY = "记者 张三\n" + ARTICLE
OTHER = "完全没有关系的另一篇文章写在这里。它的第二句话也足够长了吧。最后一句话也很长。"
ROWS = [{"title": "甲", "content": ARTICLE}, {"title": "乙", "content": OTHER}, {"title": "丙", "content": COPY}]


def run(*args: str, cwd: Path, umask: int | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "nshash", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        preexec_fn=None if umask is None else (lambda: os.umask(umask)),
    )


def error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def ids_of(path: Path) -> list[int]:
    return [json.loads(line)["similar_id"] for line in path.read_text(encoding="utf-8").splitlines()]


# -- --encoding -------------------------------------------------------------------------------
def write_csv(path: Path, encoding: str) -> None:
    with open(path, "w", encoding=encoding, newline="") as handle:
        writer = csv.DictWriter(handle, ["title", "content"])
        writer.writeheader()
        writer.writerows(ROWS)


@pytest.mark.parametrize("encoding", ["gb18030", "gbk", "utf-16", "utf-8-sig"])
@pytest.mark.parametrize("kind", ["csv", "jsonl"])
def test_encoding_of_csv_and_jsonl(tmp_path: Path, kind: str, encoding: str) -> None:
    source = tmp_path / f"in.{kind}"
    if kind == "csv":
        write_csv(source, encoding)
    else:
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in ROWS)
        source.write_bytes(text.encode(encoding))
    result = run("dedup", source.name, "-o", "out.jsonl", "--encoding", encoding, "-q", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert ids_of(tmp_path / "out.jsonl") == [1, 2, 1]
    titles = [json.loads(line)["title"] for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert titles == ["甲", "乙", "丙"]  # output is UTF-8


def test_gb18030_read_as_utf8_names_the_line_and_the_fix(tmp_path: Path) -> None:
    write_csv(tmp_path / "in.csv", "gb18030")
    result = run("dedup", "in.csv", cwd=tmp_path)
    assert result.returncode == 1
    assert "in.csv line 2: not valid UTF-8" in error_line(result)


def test_a_bad_byte_in_the_given_encoding_names_its_line(tmp_path: Path) -> None:
    lines = [json.dumps(row, ensure_ascii=False).encode("gb18030") for row in ROWS]
    lines[1] = lines[1][:20] + b"\x80\xff" + lines[1][20:]
    (tmp_path / "in.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    result = run("dedup", "in.jsonl", "--encoding", "gb18030", cwd=tmp_path)
    assert result.returncode == 1
    assert error_line(result).startswith("nshash: error: in.jsonl line 2: not valid gb18030")


def test_auto_detects_gb18030(tmp_path: Path) -> None:
    pytest.importorskip("charset_normalizer")
    rows = [{"title": "标题", "content": ARTICLE * 3}, {"title": "标题二", "content": COPY * 3}] * 5
    (tmp_path / "in.jsonl").write_bytes(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("gb18030")
    )
    result = run("dedup", "in.jsonl", "-o", "out.jsonl", "--encoding", "auto", "-q", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert set(ids_of(tmp_path / "out.jsonl")) == {1}


def test_unknown_encoding_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "in.jsonl").write_text("{}\n")
    result = run("dedup", "in.jsonl", "--encoding", "klingon", cwd=tmp_path)
    assert result.returncode == 2
    assert "unknown encoding 'klingon'" in error_line(result)


# -- workbooks --------------------------------------------------------------------------------
def test_every_sheet_of_a_workbook_is_read_and_written_back_under_its_name(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    pytest.importorskip("openpyxl")
    with pd.ExcelWriter(tmp_path / "news.xlsx") as writer:
        pd.DataFrame(ROWS[:2]).to_excel(writer, sheet_name="国内", index=False)
        pd.DataFrame([{"content": COPY, "site": "x.cn"}]).to_excel(writer, sheet_name="转载", index=False)
    result = run("dedup", "news.xlsx", "-o", "out.xlsx", "-q", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    sheets = pd.read_excel(tmp_path / "out.xlsx", sheet_name=None)
    assert list(sheets) == ["国内", "转载"]
    assert list(sheets["国内"].columns) == ["title", "content", "similar_id"]
    assert list(sheets["转载"].columns) == ["content", "site", "similar_id"]
    assert sheets["国内"]["similar_id"].tolist() == [1, 2] and sheets["转载"]["similar_id"].tolist() == [1]
    # Written as one table, each row says which sheet it came from.
    assert run("dedup", "news.xlsx", "-o", "out.jsonl", "-q", cwd=tmp_path).returncode == 0
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [(row["sheet"], row["similar_id"]) for row in rows] == [("国内", 1), ("国内", 2), ("转载", 1)]


def test_a_one_sheet_workbook_keeps_its_sheet_name(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    pytest.importorskip("openpyxl")
    pd.DataFrame(ROWS).to_excel(tmp_path / "in.xlsx", sheet_name="新闻", index=False)
    assert run("dedup", "in.xlsx", "-o", "in.xlsx", "-q", cwd=tmp_path).returncode == 0
    assert list(pd.read_excel(tmp_path / "in.xlsx", sheet_name=None)) == ["新闻"]


def test_a_bad_cell_is_named_by_sheet_and_row(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    pytest.importorskip("openpyxl")
    with pd.ExcelWriter(tmp_path / "news.xlsx") as writer:
        pd.DataFrame(ROWS).to_excel(writer, sheet_name="a", index=False)
        pd.DataFrame([{"content": ARTICLE, "site": "x"}, {"content": None, "site": "y"}]).to_excel(
            writer, sheet_name="b", index=False
        )
    result = run("dedup", "news.xlsx", cwd=tmp_path)
    assert result.returncode == 1
    assert "news.xlsx sheet 'b' row 3: field 'content' is missing" in error_line(result)


# -- paths ------------------------------------------------------------------------------------
def test_explain_of_a_missing_file_is_an_error_and_text_needs_text(tmp_path: Path) -> None:
    assert run("dedup", "-", "--name", "news", "-q", cwd=tmp_path).returncode == 0  # an empty index
    result = run("explain", "articel.txt", "--name", "news", cwd=tmp_path)
    assert result.returncode == 1
    assert "articel.txt: no such file (to explain the text itself: nshash explain --text articel.txt" in error_line(
        result
    )
    as_text = run("explain", "--text", ARTICLE, "--name", "news", cwd=tmp_path)
    assert as_text.returncode == 0 and "would start a new cluster" in as_text.stdout
    (tmp_path / "doc.txt").write_bytes(ARTICLE.encode("gb18030"))
    from_file = run("explain", "doc.txt", "--encoding", "gb18030", "--name", "news", cwd=tmp_path)
    assert from_file.returncode == 0 and "第一句话足够长" in from_file.stdout


@pytest.mark.parametrize("command", ["dedup", "explain"])
def test_a_directory_as_input_is_named_as_such(tmp_path: Path, command: str) -> None:
    (tmp_path / "pages").mkdir()
    assert run("dedup", "-", "--name", "news", "-q", cwd=tmp_path).returncode == 0
    args = ["dedup", "pages"] if command == "dedup" else ["explain", "pages", "--name", "news"]
    result = run(*args, cwd=tmp_path)
    assert result.returncode == 1
    assert "pages: is a directory" in error_line(result)


def test_a_directory_as_output_is_named_as_such(tmp_path: Path) -> None:
    (tmp_path / "in.jsonl").write_text(json.dumps({"content": ARTICLE}) + "\n", encoding="utf-8")
    (tmp_path / "out.jsonl").mkdir()
    result = run("dedup", "in.jsonl", "-o", "out.jsonl", cwd=tmp_path)
    assert result.returncode == 1
    assert "out.jsonl: is a directory; give the output file's name" in error_line(result)


@pytest.mark.parametrize("store", ["memory", "leveldb"])
def test_stats_on_an_index_another_process_holds(tmp_path: Path, store: str) -> None:
    held = nshash.NSHash(str(tmp_path / "news"), hashdb=store)
    try:
        held.get_similar(ARTICLE)
        held.flush()
        result = run("stats", "--name", "news", "--store", store, cwd=tmp_path)
    finally:
        held.close()
    assert result.returncode == 4
    line = error_line(result)
    assert "is already open" in line or "is open in another process" in line
    assert "another process has the index open (a crawl?): stop it first" in line
    assert run("stats", "--name", "news", "--store", store, cwd=tmp_path).returncode == 0  # once it is released


# -- hostile JSONL (issue 13, item 8) ----------------------------------------------------------
HOSTILE = {
    "lone-surrogate": (
        '{"content": "\\ud800 half a pair"}',
        "invalid JSON: a \\ud800-\\udfff escape that is not part of a pair",
    ),
    "5000-digits": (
        '{"content": "ok", "n": ' + "9" * 5000 + "}",
        "invalid JSON: an integer of more than 4300 digits",
    ),
    "deep-nesting": (
        '{"content": "ok", "n": ' + "[" * 100_000 + "]" * 100_000 + "}",
        "invalid JSON: nested too deeply",
    ),
    "missing-colon": ('{"content" "x"}', "invalid JSON: Expecting ':' delimiter at column 12"),
    "unterminated": ('{"content": "no end', "invalid JSON: Unterminated string starting at column 13"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_jsonl_is_bad_input_with_file_and_line(tmp_path: Path, case: str) -> None:
    line, problem = HOSTILE[case]
    (tmp_path / "in.jsonl").write_text(json.dumps({"content": ARTICLE}) + "\n" + line, encoding="utf-8")
    result = run("dedup", "in.jsonl", cwd=tmp_path)
    assert result.returncode == 1
    assert error_line(result) == f"nshash: error: in.jsonl line 2: {problem}"


# -- --progress in every mode -------------------------------------------------------------------
@pytest.mark.parametrize("mode", [[], ["--online"], ["--name", "news"]])
def test_progress_is_shown_in_every_mode(tmp_path: Path, mode: list[str]) -> None:
    pytest.importorskip("tqdm")
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS * 20))
    shown = run("dedup", "in.jsonl", "-o", "out.jsonl", "--progress", "-q", *mode, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "60/60" in shown.stderr
    hidden = run("dedup", "in.jsonl", "-o", "out.jsonl", "--no-progress", "-q", *mode, cwd=tmp_path)
    assert hidden.stderr == ""


@pytest.mark.parametrize("mode", [[], ["--online"], ["--name", "news"]])
def test_progress_without_tqdm_names_the_extra_in_every_mode(
    tmp_path: Path, mode: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A module that fails to import shadows an installed tqdm: what a user without the extra sees.
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "tqdm.py").write_text("raise ImportError('No module named tqdm')\n", encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(shadow), os.environ.get("PYTHONPATH")])))
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS))
    result = run("dedup", "in.jsonl", "-o", "out.jsonl", "--progress", *mode, cwd=tmp_path)
    assert result.returncode == 3
    assert "pip install 'nshash[progress]'" in error_line(result)
    assert run("dedup", "in.jsonl", "-o", "out.jsonl", "--no-progress", "-q", *mode, cwd=tmp_path).returncode == 0


# -- output files respect the umask (issue 13, item 10) -------------------------------------------
@pytest.mark.parametrize("umask", [0o022, 0o027, 0o002])
@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_outputs_respect_the_umask(tmp_path: Path, umask: int, suffix: str) -> None:
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    (tmp_path / "in.jsonl").write_text(json.dumps({"content": ARTICLE}) + "\n", encoding="utf-8")
    result = run("dedup", "in.jsonl", "-o", f"out{suffix}", "-q", cwd=tmp_path, umask=umask)
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE((tmp_path / f"out{suffix}").stat().st_mode) == 0o666 & ~umask


def test_rewriting_an_output_keeps_its_mode(tmp_path: Path) -> None:
    (tmp_path / "in.jsonl").write_text(json.dumps({"content": ARTICLE}) + "\n", encoding="utf-8")
    (tmp_path / "out.jsonl").write_text("")
    os.chmod(tmp_path / "out.jsonl", 0o640)
    assert run("dedup", "in.jsonl", "-o", "out.jsonl", "-q", cwd=tmp_path, umask=0o022).returncode == 0
    assert stat.S_IMODE((tmp_path / "out.jsonl").stat().st_mode) == 0o640


# -- logging ------------------------------------------------------------------------------------
def test_the_cli_logs_the_index_it_opens_and_saves_and_never_prints_logs(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.jsonl").write_text(json.dumps({"content": ARTICLE}) + "\n", encoding="utf-8")
    with caplog.at_level(logging.INFO, logger="nshash"):
        assert main(["dedup", "in.jsonl", "-o", "out.jsonl", "--name", "news", "-q"]) == 0
    messages = [record.getMessage() for record in caplog.records if record.name.startswith("nshash")]
    assert any(m.startswith("opened ") and "new index" in m for m in messages), messages
    assert any(m.startswith("saved and closed ") for m in messages), messages
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""  # logs go to handlers, not to the terminal


def test_import_nshash_prints_no_log_output() -> None:
    code = "import logging, nshash.log; logging.getLogger('nshash.x').warning('hidden')"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stderr == ""
