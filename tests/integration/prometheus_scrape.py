"""Scrapes a Prometheus endpoint and parses it with the official Prometheus Python client's
parser (Debian's python3-prometheus-client), independent of Stampede's writer. Prints the
families as JSON on stdout: {name: {"type": ..., "samples": [{"name", "labels", "value"}]}}.

    /usr/bin/python3 prometheus_scrape.py http://127.0.0.1:9464/metrics

Run with the interpreter the Debian package is installed for. Beyond the parser's own
checks, it fails on what a Prometheus server rejects: a family declared twice, a sample
outside the family declared before it, or a Content-Type other than text format 0.0.4.
Exit 0 when valid, 1 otherwise."""
import json
import re
import sys
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

SUFFIXES = {"summary": ("", "_sum", "_count"), "histogram": ("_bucket", "_sum", "_count")}


def structure_problems(text):
    problems, declared, family, kind = [], set(), None, None
    for number, line in enumerate(text.split("\n"), 1):
        if not line:
            continue
        m = re.fullmatch(r"# TYPE (\S+) (\S+)", line)
        if m:
            family, kind = m.groups()
            if family in declared:
                problems.append(f"line {number}: family {family} declared twice")
            declared.add(family)
            continue
        if line.startswith("#"):
            continue
        name = re.match(r"[^{ ]+", line).group(0)
        if family is None or name not in [family + s for s in SUFFIXES.get(kind, ("",))]:
            problems.append(f"line {number}: sample {name} outside its family ({family})")
    return problems


def main():
    with urllib.request.urlopen(sys.argv[1], timeout=5) as response:
        content_type = response.headers.get("Content-Type", "")
        text = response.read().decode("utf-8")
    if not content_type.startswith("text/plain; version=0.0.4"):
        sys.exit(f"invalid exposition: content-type {content_type!r}")
    problems = structure_problems(text)
    if problems:
        sys.exit("invalid exposition:\n" + "\n".join(problems))
    families = {}
    try:
        for family in text_string_to_metric_families(text):
            families[family.name] = {
                "type": family.type,
                "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in family.samples],
            }
    except ValueError as e:
        sys.exit(f"invalid exposition: {e}")
    json.dump(families, sys.stdout)


if __name__ == "__main__":
    main()
