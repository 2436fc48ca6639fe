#!/usr/bin/env python3
"""Summarize a CSV file: row count, per-column type, missing values, ranges, top values.

Usage: summarize.py FILE [--delimiter D] [--encoding E] [--top N] [--json]
Only the standard library is used; the file is streamed row by row.
"""

import argparse
import collections
import csv
import datetime
import json
import math
import sys

MISSING = {"", "na", "n/a", "null", "none", "nan", "-"}
BOOLEANS = {"true", "false", "yes", "no", "y", "n", "0", "1"}
DATE_FORMATS = ("%Y-%m-%d", "%d/%m/%Y", "%m/%d/%Y", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S")


def parse_number(s):
    try:
        return int(s)
    except ValueError:
        pass
    try:
        f = float(s)
    except ValueError:
        return None
    return f if math.isfinite(f) else None


def is_date(s):
    for fmt in DATE_FORMATS:
        try:
            datetime.datetime.strptime(s, fmt)
            return True
        except ValueError:
            continue
    return False


class Column:
    def __init__(self, name):
        self.name = name
        self.count = 0
        self.missing = 0
        self.ints = self.floats = self.dates = self.bools = 0
        self.minimum = self.maximum = None
        self.total = 0.0
        self.values = collections.Counter()

    def add(self, raw):
        self.count += 1
        s = raw.strip()
        if s.lower() in MISSING:
            self.missing += 1
            return
        if len(self.values) < 10000 or s in self.values:
            self.values[s] += 1
        if s.lower() in BOOLEANS:
            self.bools += 1
        n = parse_number(s)
        if n is not None:
            if isinstance(n, int):
                self.ints += 1
            else:
                self.floats += 1
            self.total += n
            self.minimum = n if self.minimum is None else min(self.minimum, n)
            self.maximum = n if self.maximum is None else max(self.maximum, n)
        elif is_date(s):
            self.dates += 1

    def kind(self):
        present = self.count - self.missing
        if present == 0:
            return "empty"
        if self.bools == present and len(self.values) <= 2:
            return "boolean"
        if self.ints == present:
            return "integer"
        if self.ints + self.floats == present:
            return "float"
        if self.dates == present:
            return "date"
        return "text"

    def summary(self, top):
        present = self.count - self.missing
        out = {
            "name": self.name,
            "type": self.kind(),
            "missing": self.missing,
            "missing_pct": round(100.0 * self.missing / self.count, 1) if self.count else 0.0,
            "distinct": len(self.values),
        }
        if out["type"] in ("integer", "float"):
            out["min"] = self.minimum
            out["max"] = self.maximum
            out["mean"] = round(self.total / present, 4)
        else:
            out["top"] = self.values.most_common(top)
        return out


def summarize(path, delimiter, encoding, top):
    with open(path, newline="", encoding=encoding) as f:
        if delimiter is None:
            sample = f.read(64 * 1024)
            f.seek(0)
            try:
                delimiter = csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
            except csv.Error:
                delimiter = ","
        reader = csv.reader(f, delimiter=delimiter)
        header = next(reader, None)
        if header is None:
            return {"file": path, "rows": 0, "columns": []}
        columns = [Column(name or "column_%d" % (i + 1)) for i, name in enumerate(header)]
        rows = ragged = 0
        for row in reader:
            if not row:
                continue
            rows += 1
            if len(row) != len(columns):
                ragged += 1
            for col, raw in zip(columns, row):
                col.add(raw)
            for col in columns[len(row):]:
                col.add("")
    return {
        "file": path,
        "delimiter": delimiter,
        "rows": rows,
        "ragged_rows": ragged,
        "columns": [c.summary(top) for c in columns],
    }


def print_text(result):
    print("%s: %d rows, %d columns (delimiter %r)" % (
        result["file"], result["rows"], len(result["columns"]), result.get("delimiter", ",")))
    if result.get("ragged_rows"):
        print("warning: %d rows have a different number of fields than the header" % result["ragged_rows"])
    for c in result["columns"]:
        line = "  %-24s %-8s missing %5.1f%%  distinct %d" % (
            c["name"][:24], c["type"], c["missing_pct"], c["distinct"])
        if "mean" in c:
            line += "  range %s..%s  mean %s" % (c["min"], c["max"], c["mean"])
        else:
            line += "  top " + ", ".join("%s (%d)" % (v, n) for v, n in c["top"])
        print(line)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("file")
    p.add_argument("--delimiter", default=None)
    p.add_argument("--encoding", default="utf-8")
    p.add_argument("--top", type=int, default=5)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    result = summarize(args.file, args.delimiter, args.encoding, args.top)
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
    else:
        print_text(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
