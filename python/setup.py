"""Builds gputracker._native: python/src/native*.c with libgputracker's
sources (src/lib), the tools' (src/tools) and the gpu-tracker command's
(src/cli) compiled in, so
that the package needs nothing installed but what the library links: json-c,
zlib, SQLite and libcsv (Debian: libjson-c-dev, zlib1g-dev, libsqlite3-dev,
libcsv-dev and libmicrohttpd-dev's headers to build; libmicrohttpd12 at run
time for the exporter, loaded when it is asked for)."""
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
    sources('src/tools') +
    sources('src/cli', leave_out=('entry.c',)),
    include_dirs=[relative(os.path.join(ROOT, d))
                  for d in ('include', 'src/lib', 'src/tools', 'src/cli')],
    libraries=['json-c', 'z', 'sqlite3', 'csv', 'pthread', 'dl', 'm'],
    extra_compile_args=['-std=gnu11', '-fvisibility=hidden', '-Wno-missing-field-initializers'],
)

os.chdir(HERE)  # the relative paths above are from here
setup(ext_modules=[native])
