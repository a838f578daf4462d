#!/usr/bin/env python3
"""The story's path is the occupancy ranking's top, in every JSON report of
a directory (issue 36): run it on tools/compare_reports.sh's NEW/ reports.

Usage: check_story_agrees.py DIR
Prints the reports that disagree and "N reports with a story, M agree";
exit 1 when any disagrees or none has a story.
"""
import glob
import json
import os
import sys


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-3], file=sys.stderr)
        return 2
    n = agree = 0
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
        story, ranking = report.get("story"), report.get("row_occupancy") or []
        if not story or not ranking:
            continue
        n += 1
        if story.get("code_path") == ranking[0].get("code_path"):
            agree += 1
        else:
            print(f"{os.path.basename(path)}: story {story.get('code_path')!r},"
                  f" ranking's top {ranking[0].get('code_path')!r}")
    print(f"{n} reports with a story, {agree} agree")
    return 0 if n and agree == n else 1


if __name__ == "__main__":
    sys.exit(main())
