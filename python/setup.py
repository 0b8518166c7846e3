"""Builds gputracker._native: python/src/native*.c linked with the objects
CMake builds of libgputracker (src/lib), the tools (src/tools) and the
gpu-tracker command (src/cli), with the flags the command gets
(CMakeLists.txt, target gputracker_python), so that the package needs
nothing installed but what the library links: json-c,
zlib, SQLite and libcsv (Debian: cmake, libjson-c-dev, zlib1g-dev,
libsqlite3-dev, libcsv-dev and libmicrohttpd-dev's headers to build;
libmicrohttpd12 at run time for the exporter, loaded when it is asked
for)."""
import hashlib
import os
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def relative(path):
    # setuptools refuses absolute paths; objects of ../src land in build/src.
    return os.path.relpath(path, HERE)


class BuildWithCMake(build_ext):
    """Builds the library's, the tools' and the command's objects with CMake
    first (one build, one set of flags: the command's), then the module's
    own sources with Python's, linked against them."""

    def run(self):
        # One CMake tree per source tree: pip builds in python/build, and a
        # copy of the checkout (the tests', a moved clone) carries that
        # directory along; CMake refuses a cache made for another source
        # ("CMakeCache.txt directory ... is different").
        digest = hashlib.sha256(ROOT.encode()).hexdigest()[:16]
        tree = os.path.join(os.path.abspath(self.build_temp), 'cmake-' + digest)
        jobs = str(len(os.sched_getaffinity(0)))
        subprocess.check_call(['cmake', '-S', ROOT, '-B', tree, '-DCMAKE_BUILD_TYPE=RelWithDebInfo',
                               '-DGT_BUILD_TESTS=OFF'], stdout=subprocess.DEVNULL)
        subprocess.check_call(['cmake', '--build', tree, '--target', 'gputracker_python',
                               '-j', jobs], stdout=subprocess.DEVNULL)
        for ext in self.extensions:
            ext.extra_objects = [os.path.join(tree, 'libgputracker_python.a')]
        super().run()


def missing_build_requirements():
    """What building the package needs and this Python lacks, each with where
    to get it: pip's own message for a missing wheel package is "invalid
    command 'bdist_wheel'", which names nothing."""
    import importlib.util
    import shutil
    import sysconfig
    import setuptools
    missing = []
    version = tuple(int(p) for p in setuptools.__version__.split('.')[:2] if p.isdigit())
    if version < (70, 1) and importlib.util.find_spec('wheel') is None:
        missing.append(f"the 'wheel' package (setuptools {setuptools.__version__} cannot make a "
                       "wheel without it): 'pip install wheel' with an index, Debian's "
                       "python3-wheel, or setuptools 70.1 or later")
    headers = sysconfig.get_paths().get('include') or ''
    if not os.path.isfile(os.path.join(headers, 'Python.h')):
        missing.append(f"Python's C headers (no Python.h in {headers}): Debian's python3-dev, "
                       "or a Python installed with its headers")
    if shutil.which('cmake') is None:
        missing.append("cmake on the PATH (Debian: cmake)")
    return missing


_missing = missing_build_requirements()
if _missing:
    raise SystemExit(f'gputracker: cannot build with {sys.executable}: it lacks '
                     + '; and '.join(_missing) + ' (python/README.md, "Which Python")')

if not os.path.isfile(os.path.join(ROOT, 'CMakeLists.txt')):
    raise SystemExit('gputracker: build from the gpu-tracker source tree (python/ beside src/, '
                     'include/ and CMakeLists.txt): ' + ROOT + ' has no CMakeLists.txt')

native = Extension(
    'gputracker._native',
    sources=[os.path.join('src', name) for name in ('native.c', 'native_tracker.c',
                                                 'native_snapshot.c')],
    include_dirs=[relative(os.path.join(ROOT, d)) for d in ('include', 'src/cli', 'src')],
    libraries=['json-c', 'z', 'sqlite3', 'csv', 'pthread', 'dl', 'm'],
    extra_compile_args=['-std=gnu11', '-fvisibility=hidden', '-Wno-missing-field-initializers'],
)

os.chdir(HERE)  # the relative paths above are from here
sys.path.insert(0, HERE)
from setup_version import project_version  # noqa: E402 (beside this file)

setup(version=project_version(), ext_modules=[native], cmdclass={'build_ext': BuildWithCMake})
