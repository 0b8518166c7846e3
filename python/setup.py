"""Builds gputracker._native: python/src/native*.c with libgputracker's
sources (src/lib) and the gpu-tracker command's (src/cli) compiled in, so
that the package needs nothing installed but json-c, which the library links,
and zlib, libcsv and SQLite, which it loads when a snapshot, a CSV file or a
.sqlite file needs them (Debian: libjson-c-dev, and zlib1g-dev's, libcsv-dev's,
libsqlite3-dev's and libmicrohttpd-dev's headers to build; zlib1g, libcsv3,
libsqlite3-0 and libmicrohttpd12 at run time)."""
import os

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def relative(path):
    # setuptools refuses absolute paths; objects of ../src land in build/src.
    return os.path.relpath(path, HERE)


def sources(folder, leave_out=()):
    # The same list CMakeLists.txt builds from: FOLDER/sources.txt, one
    # source a line relative to FOLDER ('#' starts a comment).
    with open(os.path.join(ROOT, folder, 'sources.txt'), encoding='utf-8') as listing:
        names = [line.strip() for line in listing]
    return [relative(os.path.join(ROOT, folder, name)) for name in names
            if name.endswith('.c') and not name.startswith('#') and name not in leave_out]


if not os.path.isfile(os.path.join(ROOT, 'include', 'gpu_tracker.h')):
    raise SystemExit('gputracker: build from the gpu-tracker source tree (python/ beside src/ and '
                     'include/): ' + ROOT + ' has no include/gpu_tracker.h')

native = Extension(
    'gputracker._native',
    sources=[os.path.join('src', name) for name in ('native.c', 'native_tracker.c',
                                                 'native_snapshot.c')] +
    sources('src/lib') +
    sources('src/cli', leave_out=('entry.c',)),
    include_dirs=[relative(os.path.join(ROOT, d)) for d in ('include', 'src/lib', 'src/cli')],
    libraries=['json-c', 'pthread', 'dl', 'm'],  # zlib, libcsv, SQLite: dlopen'ed
    extra_compile_args=['-std=gnu11', '-fvisibility=hidden', '-Wno-missing-field-initializers'],
)

os.chdir(HERE)  # the relative paths above are from here
setup(ext_modules=[native])
