#!/usr/bin/env python3
"""Checks that every docs/data file the documentation cites exists (a missing one fails).

Usage: check_doc_references.py REPO_ROOT. Citations are `data/NAME` in README.md, CHANGELOG.md,
python/README.md and docs/*.md, where NAME may hold one {a,b,...} group and * wildcards. A path
in git's history (`git show REV:docs/data/NAME`, `git log -- docs/data/NAME`) is not checked.
"""
import glob
import re
import sys
from pathlib import Path

CITATION = re.compile(r"data/[A-Za-z0-9_.*{},-]*[A-Za-z0-9_*}]")
HISTORY = re.compile(r"(:|-- )docs/$")


def expand(citation):
    """The paths a citation names: one per alternative of its {a,b} group."""
    group = re.search(r"\{([^}]*)\}", citation)
    if not group:
        return [citation]
    return [citation[:group.start()] + choice + citation[group.end():]
            for choice in group.group(1).split(",")]


def missing_citations(root):
    """(document, line number, path) of each cited docs/data path that matches no file."""
    documents = [root / "README.md", root / "CHANGELOG.md", root / "python" / "README.md"]
    documents += sorted((root / "docs").glob("*.md"))
    for document in documents:
        for number, line in enumerate(document.read_text().splitlines(), 1):
            for match in CITATION.finditer(line):
                if HISTORY.search(line[:match.start()]):
                    continue
                for path in expand(match.group()):
                    if not glob.glob(str(root / "docs" / path)):
                        yield document.relative_to(root), number, path


def main():
    root = Path(sys.argv[1])
    missing = list(missing_citations(root))
    for document, number, path in missing:
        print(f"{document}:{number}: cites docs/{path}, which does not exist")
    print(f"{len(missing)} missing" if missing else "every cited docs/data file exists")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
