#!/usr/bin/env python3
"""Keeps the C and C++ code in README.md and docs/*.md true to the code.

Every ```cpp (or c++, cxx, cc) and ```c block must be preceded by one of two HTML comments:

  <!-- include: examples/foo.cpp -->        the block is that whole file, byte for byte;
  <!-- include: examples/foo.cpp#name -->   the block is the region between `// [docs:name]` and `// [docs:end]`
                                            in that file (the marker lines themselves excluded);
  <!-- snippet: CONTEXT -->                 the block is compiled by the memjit_doc_snippets target, as the body
                                            of a function in namespace docs_context::CONTEXT of
                                            tests/docs/snippet_contexts.h (which declares what the snippet uses;
                                            `<!-- snippet -->` for none). `#include` lines move to the top of the
                                            generated file. A ```c block is compiled as C, its CONTEXT being a
                                            section of tests/docs/snippet_contexts_c.h.

Output listings, pseudo-code and shell sessions are fenced as something else (```text, ```sh, ```cmake).

  docs_code.py check ROOT               fails on a block that is marked neither way or whose include differs
  docs_code.py generate ROOT OUT.cpp OUT.c   writes the snippets as translation units
  docs_code.py sync ROOT                rewrites every included block from its file (after editing an example)
"""
import re
import sys
from pathlib import Path

CPP = {"cpp", "c++", "cxx", "cc", "h", "hpp"}
MARK = re.compile(r"^<!--\s*(include|snippet)(?::\s*(\S+))?\s*-->\s*$")


def documents(root):
    return [root / "README.md"] + sorted((root / "docs").glob("*.md"))


def blocks(path):
    """(line number of the fence, language, mark kind, mark argument, body) for every fenced block."""
    lines = path.read_text(encoding="utf-8").split("\n")
    i = 0
    while i < len(lines):
        fence = re.match(r"^(```+|~~~+)\s*([\w+-]*)", lines[i])
        if not fence:
            i += 1
            continue
        start, ticks, language = i, fence.group(1), fence.group(2).lower()
        i += 1
        while i < len(lines) and not lines[i].startswith(ticks):
            i += 1
        body = "\n".join(lines[start + 1:i]) + "\n"
        previous = next((lines[j] for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        mark = MARK.match(previous.strip())
        yield start + 1, language, mark.group(1) if mark else None, mark.group(2) if mark else None, body
        i += 1


def region(root, spec):
    """The text an include mark names, or raises ValueError saying why it cannot."""
    file_part, _, name = spec.partition("#")
    path = root / file_part
    if not path.is_file():
        raise ValueError(f"included file '{file_part}' does not exist")
    text = path.read_text(encoding="utf-8")
    if not name:
        return text
    lines = text.split("\n")
    starts = [i for i, line in enumerate(lines) if line.strip() == f"// [docs:{name}]"]
    if len(starts) != 1:
        raise ValueError(f"'{file_part}' has {len(starts)} '// [docs:{name}]' markers, expected 1")
    end = next((i for i in range(starts[0] + 1, len(lines)) if lines[i].strip() == "// [docs:end]"), None)
    if end is None:
        raise ValueError(f"'{file_part}': '// [docs:{name}]' has no '// [docs:end]' after it")
    return "\n".join(lines[starts[0] + 1:end]) + "\n"


def check(root):
    problems, counts = [], {"include": 0, "snippet": 0}
    for doc in documents(root):
        for line, language, kind, argument, body in blocks(doc):
            if language not in CPP and language != "c":
                continue
            where = f"{doc.relative_to(root)}:{line}"
            if kind is None:
                problems.append(f"{where}: ```{language} block is neither included (<!-- include: examples/FILE#NAME -->) "
                                f"nor compiled (<!-- snippet: CONTEXT -->); fence output or pseudo-code as ```text")
                continue
            counts[kind] += 1
            if kind == "include":
                try:
                    expected = region(root, argument or "")
                except ValueError as e:
                    problems.append(f"{where}: {e}")
                    continue
                if body != expected:
                    first = next(i for i, (a, b) in enumerate(zip(body.split("\n") + [None], expected.split("\n") + [None]))
                                 if a != b)
                    problems.append(f"{where}: block differs from {argument} at its line {first + 1}: "
                                    f"the document has {body.split(chr(10))[first:first + 1]}, "
                                    f"the file {expected.split(chr(10))[first:first + 1]}")
    return problems, counts


def generate(root, out_cpp, out_c):
    cpp_includes, cpp_bodies, c_bodies, c_names = [], [], [], []
    for doc in documents(root):
        for line, language, kind, argument, body in blocks(doc):
            if kind != "snippet" or (language not in CPP and language != "c"):
                continue
            where = f"{doc.relative_to(root).as_posix()}:{line}"
            code = []
            for text in body.rstrip("\n").split("\n"):
                if text.startswith("#include"):
                    cpp_includes.append(text)
                else:
                    code.append(text)
            number = len(cpp_bodies) + len(c_bodies)
            directive = f'#line {line + 1} "{where.rsplit(":", 1)[0]}"'
            if language == "c":
                c_names.append(f"docs_snippet_{number}")
                c_bodies.append(f"// {where}\nstatic void {c_names[-1]}(void) {{\n{directive}\n" +
                                "\n".join(code) + "\n}\n")
            else:
                using = f"using namespace docs_context::{argument};\n" if argument else ""
                cpp_bodies.append(f"// {where}\nnamespace docs_snippet_{number} {{\n{using}"
                                  f"[[maybe_unused]] memjit::Error snippet() {{\n{directive}\n" + "\n".join(code) +
                                  "\n  return memjit::Error::success();\n}\n}  // namespace\n")
    header = "// Generated by tests/docs/docs_code.py from README.md and docs/*.md: do not edit.\n"
    Path(out_cpp).write_text(header + "\n".join(dict.fromkeys(cpp_includes)) +
                             '\n#include "snippet_contexts.h"\n\n' + "\n".join(cpp_bodies), encoding="utf-8")
    # The table keeps the static functions referenced; C before C23 allows no empty initialiser list.
    table = (f"void (*const docs_c_snippets[])(void) = {{{', '.join(c_names)}}};\n" if c_names
             else "typedef int docs_no_c_snippets;\n")
    Path(out_c).write_text(header + '#include "snippet_contexts_c.h"\n\n' + "\n".join(c_bodies) + "\n" + table,
                           encoding="utf-8")


def sync(root):
    for doc in documents(root):
        lines = doc.read_text(encoding="utf-8").split("\n")
        out, i = [], 0
        while i < len(lines):
            out.append(lines[i])
            mark = MARK.match(lines[i].strip())
            if mark and mark.group(1) == "include" and i + 1 < len(lines) and lines[i + 1].startswith("```"):
                end = next(j for j in range(i + 2, len(lines)) if lines[j].startswith("```"))
                out.append(lines[i + 1])
                out.extend(region(root, mark.group(2)).rstrip("\n").split("\n"))
                i = end
                continue
            i += 1
        doc.write_text("\n".join(out), encoding="utf-8")


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "check":
        problems, counts = check(Path(sys.argv[2]).resolve())
        for problem in problems:
            print(problem)
        print(f"{counts['include']} included and {counts['snippet']} compiled code blocks; {len(problems)} problem(s)")
        return 1 if problems else 0
    if len(sys.argv) == 5 and sys.argv[1] == "generate":
        generate(Path(sys.argv[2]).resolve(), sys.argv[3], sys.argv[4])
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == "sync":
        sync(Path(sys.argv[2]).resolve())
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
