"""The documents a new user reads first: the README starts with the point
(under 300 lines; the two commands and the three ways in on its first
screen, 40 lines), and every relative link of README.md, python/README.md
and docs/ names a file of the clone and, with a #fragment, a heading of it:
nothing reaches outside the repository.

usage: python3 test_docs.py SOURCE_DIR"""
import os
import re
import sys

root = os.path.realpath(sys.argv[1])
failures = []


def fail(message):
    failures.append(message)


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def without_code(text):
    return re.sub(r'```.*?```', '', text, flags=re.S)


def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces
    made dashes."""
    heading = re.sub(r'[^\w\- ]', '', heading.strip().lower())
    return heading.replace(' ', '-')


readme = read(os.path.join(root, 'README.md')).split('\n')
if len(readme) >= 300:
    fail(f'README.md has {len(readme)} lines; aim under 300')
first_screen = '\n'.join(readme[:40])
for needed in ('make demo', 'make check', 'Wrap a command', 'From Python', 'A Slurm job'):
    if needed not in first_screen:
        fail(f"README.md's first 40 lines lack {needed!r}")

documents = ['README.md', 'python/README.md'] + sorted(
    os.path.join('docs', name) for name in os.listdir(os.path.join(root, 'docs'))
    if name.endswith('.md'))
anchors = {}
for doc in documents:
    text = without_code(read(os.path.join(root, doc)))
    anchors[os.path.join(root, doc)] = {slug(h) for h in re.findall(r'^#+ (.*)$', text, re.M)}
links = 0
for doc in documents:
    text = without_code(read(os.path.join(root, doc)))
    for link in re.findall(r'\]\(([^)\s]+)\)', text):
        if re.match(r'[a-z]+://', link) or link.startswith('mailto:'):
            continue
        links += 1
        path, _, fragment = link.partition('#')
        target = os.path.realpath(os.path.join(root, os.path.dirname(doc), path)) if path \
            else os.path.join(root, doc)
        if os.path.commonpath([root, target]) != root:
            fail(f'{doc}: {link} reaches outside the clone')
        elif not os.path.exists(target):
            fail(f'{doc}: {link} names no file of the clone')
        elif fragment and target.endswith('.md') and fragment not in anchors.get(target, ()):
            fail(f'{doc}: {link}: no heading #{fragment} there')

for message in failures:
    print('test_docs:', message)
print(f'test_docs: {len(documents)} documents, {links} links, {len(failures)} failures')
sys.exit(1 if failures else 0)
