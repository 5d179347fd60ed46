#!/usr/bin/python3
"""Every relative link and #anchor in README.md and docs/**/*.md resolves: the file exists and, for a
Markdown target, a heading gives the anchor (GitHub's rule: lower case, punctuation dropped, spaces
as hyphens, -1, -2, ... for repeats). Links inside code spans and fences are not links.
Then, in a scratch tree, a missing file and a missing anchor are each reported.
Usage: doc_links_test.py SOURCE_DIR [WORK_DIR]"""
import pathlib
import re
import sys
import tempfile
import urllib.parse


def anchors(path):
    out, seen, fence = set(), {}, False
    text = path.read_text()
    for line in text.split("\n"):
        if line.startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        heading = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(2))
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    out.update(re.findall(r'<a\s+(?:name|id)="([^"]+)"', text))
    return out


def broken(root):
    root = pathlib.Path(root).resolve()
    files = [root / "README.md"] + sorted((root / "docs").rglob("*.md"))
    out, cache = [], {}
    for f in files:
        text = re.sub(r"```.*?```", "", f.read_text(), flags=re.S)
        text = re.sub(r"`[^`\n]*`", "", text)
        for m in re.finditer(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", text):
            target = m.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            path, _, frag = target.partition("#")
            dest = (f.parent / urllib.parse.unquote(path)).resolve() if path else f
            where = f"{f.relative_to(root)}: {target}"
            if not dest.exists():
                out.append(f"{where}: no such file")
            elif frag and dest.suffix == ".md":
                if dest not in cache:
                    cache[dest] = anchors(dest)
                if urllib.parse.unquote(frag).lower() not in cache[dest]:
                    out.append(f"{where}: no heading gives #{frag}")
    return out, len(files)


def main(argv):
    failures = 0
    bad, n = broken(argv[1])
    for b in bad:
        print("FAIL: " + b)
    failures += len(bad)
    with tempfile.TemporaryDirectory(dir=argv[2] if len(argv) > 2 else None) as work:
        w = pathlib.Path(work)
        (w / "docs").mkdir()
        (w / "docs" / "a.md").write_text("# A page\n\n## Two words (`code`)\n\n## Two words (`code`)\n")
        (w / "README.md").write_text("[ok](docs/a.md#two-words-code-1) [ok](#top) `[no](x.md)`\n# Top\n"
                                     "[gone](docs/b.md) [bad](docs/a.md#three-words)\n")
        got, _ = broken(w)
        want = ["README.md: docs/b.md: no such file", "README.md: docs/a.md#three-words: no heading gives #three-words"]
        if got != want:
            print(f"FAIL: the scratch tree gave {got}, not {want}")
            failures += 1
    if failures:
        print(f"doc_links: {failures} failed")
        return 1
    print(f"doc_links: all passed ({n} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
