"""The gpu-tracker console script: the C command, compiled into the package."""
import sys

from . import _native


def main():
    sys.exit(_native.cli_main(sys.argv))
