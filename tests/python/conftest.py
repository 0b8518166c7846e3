"""The gputracker package under test is the one installed in the virtual
environment that runs pytest (tests/test_python.sh builds it); the source
tree's conformance pairs are found through GT_SHARED_DIR."""
import os

import pytest


@pytest.fixture
def conformance_dir():
    shared = os.environ.get('GT_SHARED_DIR', '')
    path = os.path.join(shared, 'conformance', 'gpu_tracker')
    if not os.path.isdir(path):
        pytest.skip(f'no conformance pairs at {path} (GT_SHARED_DIR: ../shared beside the checkout)')
    return path
