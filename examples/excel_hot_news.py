"""Hot news from a spreadsheet: the stories reprinted most, as the original nshash example did.

    python examples/excel_hot_news.py [pages.jsonl] [report.xlsx]

Needs ``pip install 'nshash[excel]'``.  The bundled sample is first saved as
an Excel sheet (standing in for the spreadsheet an editor would have); the
report is written to a temporary directory unless a path is given.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pandas as pd

import nshash

SAMPLE = Path(__file__).parent / "data" / "news_sample.jsonl"


def main(source: Path, report: Path | None) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        sheet = Path(tmp) / "news.xlsx"
        pd.read_json(source, lines=True, dtype={"label": str}).to_excel(sheet, index=False)

        news = pd.read_excel(sheet)
        news["similar_id"] = nshash.similar_ids(news["content"])
        hot = (
            news.groupby("similar_id")
            .agg(title=("title", "first"), reprints=("id", "size"), stories=("label", "nunique"))
            .sort_values(["reprints", "title"], ascending=[False, True])
            .head(10)
        )
        out = report or Path(tmp) / "hot_news.xlsx"
        with pd.ExcelWriter(out) as writer:
            hot.to_excel(writer, sheet_name="hot news")
            news.to_excel(writer, sheet_name="all pages", index=False)
        written = pd.read_excel(out, sheet_name="hot news")

    print(f"{len(news)} pages, {news['similar_id'].nunique()} stories; the hottest:")
    for rank, row in enumerate(written.itertuples(index=False), 1):
        print(f"{rank:>2}. {row.reprints:>3} pages  {str(row.title)[:50]}")
    mixed = int((hot["stories"] > 1).sum())
    print(f"top clusters holding more than one labelled story: {mixed} of {len(hot)}")
    print(f"report: {report}" if report else "report written to a temporary file (pass a path to keep it)")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else SAMPLE, Path(sys.argv[2]) if len(sys.argv) > 2 else None))
