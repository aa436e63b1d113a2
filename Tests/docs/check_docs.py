"""Checks the Markdown documentation: README.md and docs/*.md.

* Every relative link points at a file of the repository (and a heading
  anchor, when it names one, at a heading of that file).
* Every guide in docs/ is reachable from docs/README.md, the index.
* Every code block marked with ``<!-- test: run -->`` on the line before its
  fence runs: C (``c``) is compiled with -Wall -Wextra -Werror against the
  build's libquartzite.so and run, C++ (``cpp``) the same as C++17, Python
  (``python``) runs against the checkout's package. A block passes when it
  compiles and exits 0 (the examples check their own results).

Usage: check_docs.py REPO BUILD_DIR. Prints one line per check and
"N passed, N failed" at the end.
"""
import os
import re
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```(\w*)\s*$")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#+\s+(.*?)\s*(\{#[\w-]+\})?\s*$")
MARKER = "<!-- test: run -->"


def anchor(title):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes."""
    title = re.sub(r"[`*_]", "", title.strip().lower())
    return re.sub(r"[^\w\- ]", "", title).replace(" ", "-")


def blocks(text):
    """(language, code, marked, line) of each fenced block."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m:
            start = i
            i += 1
            body = []
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            marked = start > 0 and lines[start - 1].strip() == MARKER
            yield m.group(1), "\n".join(body) + "\n", marked, start + 1
        i += 1


def headings(text):
    found, in_code = set(), False
    for line in text.split("\n"):
        if line.startswith("```"):
            in_code = not in_code
        m = HEADING.match(line) if not in_code else None
        if m:
            found.add(anchor(m.group(1)))
    return found


def main(repo, build):
    results = []
    files = [os.path.join(repo, "README.md")] + sorted(
        os.path.join(repo, "docs", f) for f in os.listdir(os.path.join(repo, "docs")) if f.endswith(".md"))
    texts = {f: open(f, encoding="utf-8").read() for f in files}

    # Links
    for path, text in texts.items():
        prose = re.sub(r"```.*?```", "", text, flags=re.S)
        for target in LINK.findall(prose):
            if re.match(r"^[a-z]+:", target):
                continue
            file_part, _, fragment = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            rel = os.path.relpath(path, repo)
            if not os.path.exists(resolved):
                results.append((False, f"{rel}: link to {target}: no such file"))
            elif fragment and resolved.endswith(".md"):
                if fragment not in headings(open(resolved, encoding="utf-8").read()):
                    results.append((False, f"{rel}: link to {target}: no such heading"))
    results.append((not any(not ok for ok, _ in results), "relative links resolve"))

    # The index reaches every guide.
    index = os.path.join(repo, "docs", "README.md")
    linked = set(LINK.findall(texts.get(index, "")))
    for path in files:
        name = os.path.basename(path)
        if os.path.dirname(path).endswith("docs") and name not in ("README.md", "api-reference.md"):
            results.append((name in linked, f"docs/README.md links to {name}"))

    # Marked examples
    python = os.path.join(repo, ".venv", "bin", "python")
    python = python if os.path.exists(python) else sys.executable
    lib = os.path.join(build, "lib")
    env = dict(os.environ, PYTHONPATH=os.path.join(repo, "bindings", "python"),
               QUARTZITE_LIBRARY=os.path.join(lib, "libquartzite.so"))
    for path, text in texts.items():
        for language, code, marked, line in blocks(text):
            if not marked:
                continue
            where = f"{os.path.relpath(path, repo)}:{line} ({language})"
            with tempfile.TemporaryDirectory() as tmp:
                if language in ("c", "cpp"):
                    source = os.path.join(tmp, "example." + language)
                    with open(source, "w") as f:
                        f.write(code)
                    compiler = ["cc", "-std=c11"] if language == "c" else ["c++", "-std=c++17", "-pedantic"]
                    exe = os.path.join(tmp, "example")
                    build_cmd = compiler + ["-Wall", "-Wextra", "-Werror", "-I" + os.path.join(repo, "include"),
                                            source, "-o", exe, "-L" + lib, "-lquartzite", "-lm",
                                            "-Wl,-rpath," + lib]
                    done = subprocess.run(build_cmd, capture_output=True, text=True)
                    if done.returncode != 0:
                        results.append((False, f"{where}: does not compile:\n{done.stderr}"))
                        continue
                    run = [exe]
                elif language == "python":
                    source = os.path.join(tmp, "example.py")
                    with open(source, "w") as f:
                        f.write(code)
                    run = [python, source]
                else:
                    results.append((False, f"{where}: marked, but {language!r} examples cannot be run"))
                    continue
                done = subprocess.run(run, capture_output=True, text=True, cwd=tmp, env=env, timeout=120)
                ok = done.returncode == 0
                results.append((ok, f"{where}: runs" + ("" if ok else f" (exit {done.returncode}):\n"
                                                         f"{done.stdout}{done.stderr}")))

    for ok, message in results:
        print(("ok   " if ok else "FAIL ") + message)
    failed = sum(1 for ok, _ in results if not ok)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
