#!/usr/bin/env python3
"""Fails when README.md or docs/*.md links to a missing file or heading, or names a missing source file.

Checked: every relative markdown link `[text](path#anchor)` (the file must exist; the anchor must be a heading of
the target, slugged as GitHub does), and every path in prose or in a `code span` that names a repository file (`src/...`, `include/...`,
`jit/...`, `tests/...`, ... or an include path `memjit/...`), which must exist. Usage: check_links.py REPO_ROOT
"""
import re
import sys
from pathlib import Path

ROOTS = ("src/", "include/", "jit/", "tests/", "tools/", "bench/", "examples/", "cmake/", "docs/")
LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)\)")
CODE_SPAN = re.compile(r"`([^`\n]+)`")
BARE_PATH = re.compile(r"(?<![\w/.<-])((?:%s)[\w./-]*\.\w+)(?![\w/{<*])" % "|".join(re.escape(r) for r in ROOTS))


def prose_lines(text):
    """(line number, line) outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.split("\n"), 1):
        marker = re.match(r"^\s*(```|~~~)", line)
        if marker:
            if fence is None:
                fence = marker.group(1)
            elif marker.group(1) == fence:
                fence = None
            continue
        if fence is None:
            yield number, line


def slug(heading):
    """GitHub's anchor for a heading: markup dropped, lowercase, punctuation but '-' and '_' dropped, spaces to '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen, found = {}, set()
        for _, line in prose_lines(path.read_text(encoding="utf-8")):
            heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if heading:
                base = slug(heading.group(1))
                count = seen.get(base, 0)
                seen[base] = count + 1
                found.add(base if count == 0 else f"{base}-{count}")
        cache[path] = found
    return cache[path]


def check(root):
    documents = [root / "README.md"] + sorted((root / "docs").glob("*.md"))
    problems = []
    for doc in documents:
        for number, line in prose_lines(doc.read_text(encoding="utf-8")):
            where = f"{doc.relative_to(root)}:{number}"
            for target in LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                    continue
                file_part, _, anchor = target.partition("#")
                linked = (doc.parent / file_part).resolve() if file_part else doc
                if not linked.exists():
                    problems.append(f"{where}: link to missing file '{file_part}'")
                elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
                    problems.append(f"{where}: link to missing heading '#{anchor}' in {linked.relative_to(root)}")
            prose = re.sub(r"\]\([^)]*\)", "]", line)
            for path in BARE_PATH.findall(CODE_SPAN.sub(" ", prose)):
                path = path.rstrip(".")
                if not (root / path).exists():
                    problems.append(f"{where}: names missing file '{path}'")
            for span in CODE_SPAN.findall(prose):
                span = span.strip().rstrip(":,")
                if re.search(r"[\s*<>{}$]|\.\.\.", span) or span.endswith("/"):
                    continue
                if span.startswith(ROOTS) and "." in span.rsplit("/", 1)[-1]:
                    if not (root / span).exists():
                        problems.append(f"{where}: names missing file '{span}'")
                elif span.startswith("memjit/") and span.endswith(".h"):
                    if not (root / "include" / span).exists():
                        problems.append(f"{where}: names missing header '{span}' (include/{span})")
    return problems


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    problems = check(root)
    for problem in problems:
        print(problem)
    print(f"{len(problems)} broken link(s) or path(s) in README.md and docs/*.md")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
