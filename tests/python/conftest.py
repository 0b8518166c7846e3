"""The gputracker package under test is the one installed in the virtual
environment that runs pytest (tests/test_python.sh builds it); gpu_tracker's
conformance pairs are the source tree's (tests/data/gpu_tracker)."""
import os

import pytest

# gpu_tracker's own test data, copied into the tree (its README says whence).
DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, 'data', 'gpu_tracker')


@pytest.fixture
def conformance_dir():
    return os.path.join(DATA_DIR, 'conformance')
