"""help() that helps: every public class, function and method of the
package has a docstring; Tracker's __init__ has a :param line for each of
its parameters (gpu_tracker's have one, and ours has more: max_ram,
on_limit, carbon_intensity, pue, ...); %%track? says what the magic takes;
the package is typed (py.typed) with a stub for the C extension."""
import inspect
import os

import gputracker
import gputracker.gpu_tracker
import gputracker.resource_tracker


def public_members(module):
    for name in getattr(module, '__all__', ()):
        yield f'{module.__name__}.{name}', getattr(module, name)


def test_every_public_name_has_a_docstring():
    missing = []
    for module in (gputracker, gputracker.gpu_tracker, gputracker.resource_tracker):
        for qualified, obj in public_members(module):
            if not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue
            if not inspect.getdoc(obj):
                missing.append(qualified)
            if inspect.isclass(obj):
                for name, member in vars(obj).items():
                    if name.startswith('_') or not (inspect.isfunction(member) or isinstance(member, property)):
                        continue
                    if not inspect.getdoc(member):
                        missing.append(f'{qualified}.{name}')
    assert missing == []


def test_tracker_init_documents_every_parameter():
    doc = inspect.getdoc(gputracker.Tracker.__init__) or ''
    params = [p for p in inspect.signature(gputracker.Tracker.__init__).parameters if p != 'self']
    assert [p for p in params if f':param {p}:' not in doc] == []
    for name in ('max_ram', 'on_limit', 'carbon_intensity', 'pue'):
        assert name in params


def test_track_magic_has_help():
    registered = {}

    class Shell:
        def register_magic_function(self, func, magic_kind, magic_name):
            registered[magic_name] = (magic_kind, func)
    gputracker.load_ipython_extension(Shell())
    kind, func = registered['track']
    assert kind == 'cell'
    assert func.__doc__.startswith('Track the resources this cell uses')
    assert '--st' in func.__doc__ and '-f, --format text|json' in func.__doc__


def test_the_package_is_typed():
    here = os.path.dirname(gputracker.__file__)
    assert os.path.isfile(os.path.join(here, 'py.typed'))
    with open(os.path.join(here, '_native.pyi')) as f:
        stub = f.read()
    # every function of the C module is described
    from gputracker import _native
    names = [n for n in dir(_native) if not n.startswith('_') and callable(getattr(_native, n))]
    assert [n for n in names if f'def {n}(' not in stub and f'class {n}' not in stub] == []
