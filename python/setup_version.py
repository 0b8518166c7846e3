"""The package's version: the project's own, from the project() line of the
CMakeLists.txt beside python/ (one version, from one place: tests/
test_versions.sh)."""
import os
import re


def project_version():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, 'CMakeLists.txt'), encoding='utf-8') as f:
        m = re.search(r'^project\(gpu_tracker VERSION ([0-9][0-9.]*) ', f.read(), re.M)
    if not m:
        raise SystemExit('gputracker: no version in the project() line of ' +
                         os.path.join(root, 'CMakeLists.txt'))
    return m.group(1)
