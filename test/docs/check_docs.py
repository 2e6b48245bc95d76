#!/usr/bin/env python3
"""Checks the project's Markdown pages (README.md, docs/*.md, bench/README.md and any other
*.md outside build folders) against the tree they describe.

  check_docs.py links <source dir>   every relative link resolves: the file or folder exists
                                     and a #anchor names a heading of the target page
                                     (GitHub's slugs) or an explicit <a id/name>
  check_docs.py paths <source dir>   every project path the text names (`ompi/...`,
                                     `tools/...`, `test/...`, a bare `file.h`, ...) exists,
                                     so that moved or renamed files leave no stale reference;
                                     and every docs/<page>.md a source file's comment cites

Each problem is printed as <file>:<line>: ..., and the exit status is 1 if there is any.
"""
import fnmatch
import glob
import os
import re
import sys

# Folders of this project whose paths the pages name.
PROJECT_ROOTS = ('ompi', 'opal', 'tools', 'test', 'bench', 'scripts', 'cmake', 'examples', 'docs', '.ci')
# Paths written relative to ompi/mca/, of our components only (e.g.
# `osc/monitoring/wait_states/shadow_setup.cpp`; not Open MPI's `osc/rdma`).
MCA_RELATIVE = r'(?:pml|coll|osc|common|io)/(?:monitoring|splittree)'
# Paths in Open MPI's own tree that the pages cite; they are not ours to check.
EXTERNAL = {'test/monitoring', 'test/monitoring/monitoring_test.c'}
# Paths our scripts create when they run (not in the tree).
GENERATED = {'test/fuzz/corpus/dumps/found'}
# Pages that code on main already cites and that a branch being merged adds (issue 19's
# architecture page, the Open MPI 5 page): reported, not failed, while they are missing.
# Remove an entry once its page is on main.
PENDING_PAGES = set()
# Source-like extensions for bare file names (`atomic_file.h`): such a name must exist somewhere.
SOURCE_EXT = ('.h', '.hpp', '.cpp', '.c', '.f90', '.py', '.supp', '.cmake', '.map')
SKIP_DIRS = {'.git', 'node_modules'}
# Source files whose comments may cite docs pages.
CODE_EXT = ('.h', '.hpp', '.cpp', '.c', '.f90', '.py', '.sh', '.cmake', '.txt', '.map', '.in')


def project_dirs(dirs):
    """The folders of the tree worth reading: no build folders, no hidden ones but .ci."""
    return sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith('build') and
                  (not d.startswith('.') or d == '.ci'))


def markdown_files(root):
    for here, dirs, files in os.walk(root):
        dirs[:] = project_dirs(dirs)
        for f in sorted(files):
            if f.endswith('.md'):
                yield os.path.join(here, f)


def prose_lines(path):
    """(line number, text, inside a fenced code block) for every line of a page."""
    fence = None
    with open(path, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            stripped = line.lstrip()
            m = re.match(r'(`{3,}|~{3,})', stripped)
            if m:
                if fence is None:
                    fence = m.group(1)[0] * len(m.group(1))
                    yield number, line, True
                    continue
                if stripped.startswith(fence):
                    fence = None
                    yield number, line, True
                    continue
            yield number, line.rstrip('\n'), fence is not None


def github_slug(heading):
    """The anchor GitHub gives a heading (github-slugger): lower case, punctuation but '-'
    and '_' dropped, spaces to '-'. Link texts count, their targets do not."""
    text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', heading.strip())
    text = re.sub(r'<[^>]+>', '', text).lower()
    text = ''.join(c for c in text if c.isalnum() or c in '-_ ' or (not c.isascii() and c.isalpha()))
    return text.replace(' ', '-')


def anchors_of(path, cache={}):
    if path not in cache:
        seen, found = {}, set()
        for _, line, fenced in prose_lines(path):
            if fenced:
                continue
            m = re.match(r'#{1,6}\s+(.*?)\s*#*\s*$', line)
            if m:
                slug = github_slug(m.group(1))
                n = seen.get(slug, 0)
                seen[slug] = n + 1
                found.add(slug if n == 0 else f'{slug}-{n}')
            for a in re.findall(r'<a\s+(?:id|name)="([^"]+)"', line):
                found.add(a)
        cache[path] = found
    return cache[path]


def without_code_spans(line):
    return re.sub(r'(`+)(?:(?!\1).)+?\1', '', line)


LINK = re.compile(r'!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)')
REFERENCE = re.compile(r'^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)')


def check_links(root):
    problems = []
    for page in markdown_files(root):
        rel = os.path.relpath(page, root)
        for number, line, fenced in prose_lines(page):
            if fenced:
                continue
            text = without_code_spans(line)
            targets = LINK.findall(text) + REFERENCE.findall(text)
            for target in targets:
                if re.match(r'^[a-zA-Z][a-zA-Z0-9+.-]*:', target):  # http:, https:, mailto:
                    continue
                file_part, _, anchor = target.partition('#')
                dest = os.path.normpath(os.path.join(os.path.dirname(page), file_part)) if file_part else page
                if os.path.commonpath([root, dest]) != root:
                    problems.append(f'{rel}:{number}: link outside the project ({target})')
                    continue
                shown = os.path.relpath(dest, root)
                if not os.path.exists(dest):
                    problems.append(f'{rel}:{number}: broken link ({target}): {shown} does not exist')
                    continue
                if anchor and dest.endswith('.md') and anchor not in anchors_of(dest):
                    problems.append(f'{rel}:{number}: broken link ({target}): no heading #{anchor} in {shown}')
    return problems


def project_files(root):
    names = set()
    for here, dirs, files in os.walk(root):
        dirs[:] = project_dirs(dirs)
        names.update(files)
    return names


_SEGMENT = r'[\w.+*{},-]*'
_ROOTS = '|'.join(re.escape(r) + '/' + _SEGMENT for r in PROJECT_ROOTS)
PATH_TOKEN = re.compile(rf'(?<![\w./-])((?:{_ROOTS}|{MCA_RELATIVE})(?:/{_SEGMENT})*)')
CITED_PAGE = re.compile(r'(?<![\w./-])((?:docs/[\w.-]+|bench/README)\.md)')


def check_paths(root, counter):
    problems = []
    basenames = project_files(root)
    for page in markdown_files(root):
        rel = os.path.relpath(page, root)
        for number, line, fenced in prose_lines(page):
            # Link targets are the link check's; what a link shows as its text is checked here.
            text = re.sub(r'\]\([^)]*\)', ']', line)
            candidates = [m.group(1) for m in PATH_TOKEN.finditer(text)]
            if '../shared/' in text:
                problems.append(f'{rel}:{number}: names a file outside the project (../shared/)')
            if not fenced:
                candidates += [s for s in re.findall(r'`([^`\s]+)`', text) if '/' not in s and s.endswith(SOURCE_EXT)]
            for token in candidates:
                token = token.rstrip('.,;:)')
                if token.rstrip('/') in EXTERNAL | GENERATED or '...' in token:
                    continue
                counter[0] += 1
                if '/' not in token:  # a bare file name: it must exist somewhere in the tree
                    if not any(fnmatch.fnmatch(b, token) for b in basenames):
                        problems.append(f'{rel}:{number}: no file named {token} in the project')
                    continue
                if re.match(MCA_RELATIVE, token):
                    path = os.path.join(root, 'ompi', 'mca', token)
                else:
                    path = os.path.join(root, token)
                if any(c in path for c in '*{'):
                    ok = bool(glob_expand(path))
                else:
                    ok = os.path.exists(path.rstrip('/'))
                if not ok:
                    problems.append(f'{rel}:{number}: {token} does not exist')
    return problems


def check_pages_cited_by_code(root, counter):
    """Comments point at docs/ pages (not README headings): each page they name must exist."""
    problems = []
    for here, dirs, files in os.walk(root):
        dirs[:] = project_dirs(dirs)
        for f in sorted(files):
            path = os.path.join(here, f)
            if not (f.endswith(CODE_EXT) or f == 'run') or os.path.samefile(path, __file__):
                continue
            try:
                with open(path, encoding='utf-8') as text:
                    lines = text.readlines()
            except UnicodeDecodeError:
                continue
            rel = os.path.relpath(path, root)
            for number, line in enumerate(lines, 1):
                for page in CITED_PAGE.findall(line):
                    counter[0] += 1
                    if os.path.exists(os.path.join(root, page)):
                        continue
                    if page in PENDING_PAGES:
                        print(f'{rel}:{number}: cites {page}: pending (not failed), see PENDING_PAGES')
                    else:
                        problems.append(f'{rel}:{number}: cites {page}, which does not exist')
    return problems


def glob_expand(pattern):
    """glob with {a,b} alternatives (`osc_monitoring_{comm,sync}.h`)."""
    m = re.search(r'\{([^}]*)\}', pattern)
    if not m:
        return glob.glob(pattern)
    head, tail = pattern[:m.start()], pattern[m.end():]
    return [p for alt in m.group(1).split(',') for p in glob_expand(head + alt + tail)]


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ('links', 'paths'):
        print(__doc__, file=sys.stderr)
        return 2
    root = os.path.abspath(sys.argv[2])
    pages = len(list(markdown_files(root)))
    if sys.argv[1] == 'links':
        problems = check_links(root)
        summary = f'{len(problems)} broken links in {pages} pages'
    else:
        counter = [0]
        problems = check_paths(root, counter) + check_pages_cited_by_code(root, counter)
        summary = (f'{len(problems)} of {counter[0]} project paths named in {pages} pages '
                   '(and docs pages cited by the code) do not exist')
    for p in problems:
        print(p)
    print(f'check_docs.py {sys.argv[1]}: {summary}')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
