"""The Python examples of gpu_tracker's tutorials (tests/data/gpu_tracker/
tutorials/gpu_tracker-tutorial-v*.rst), run unchanged but for the import line
(``import gpu_tracker as gput`` -> ``import gputracker as gput``), in order,
in one namespace per tutorial, as a notebook would run them. The tutorials'
own example_module is not published: ours allocates memory and burns CPU,
which is what theirs stands for."""
import os
import re
import subprocess
import sys
import textwrap

import pytest

EXAMPLE_MODULE = '''
import time

def example_function():
    block = b"\\x01" * (64 * 2 ** 20)
    end = time.process_time() + 0.3
    while time.process_time() < end:
        pass
    time.sleep(0.3)
    return len(block)
'''


# Blocks that fail under gpu_tracker itself: the first tutorial has a line
# cut short ("trac", a NameError anywhere).
BROKEN_IN_THE_ORIGINAL = {'trac'}


def python_blocks(rst_text):
    """The bodies of the ``.. code:: python3`` blocks, in order."""
    blocks, lines, i = [], rst_text.split('\n'), 0
    while i < len(lines):
        if re.match(r'\.\. code(-block)?:: python3?\s*$', lines[i]):
            i += 1
            body = []
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith('    ')):
                body.append(lines[i])
                i += 1
            blocks.append(textwrap.dedent('\n'.join(body)).strip('\n'))
        else:
            i += 1
    return [b for b in blocks if b]


TUTORIALS = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, 'data', 'gpu_tracker',
                         'tutorials')


def tutorials():
    return sorted(os.path.join(TUTORIALS, n) for n in os.listdir(TUTORIALS) if n.endswith('.rst'))


@pytest.mark.parametrize('tutorial', tutorials())
def test_tutorial_examples_run_unchanged_but_the_import(tutorial, tmp_path):
    with open(tutorial) as file:
        blocks = python_blocks(file.read())
    imports = [b for b in blocks if 'import gpu_tracker' in b]
    assert imports, 'the tutorial imports gpu_tracker somewhere'
    program = []
    for block in blocks:
        if block in BROKEN_IN_THE_ORIGINAL:
            continue
        changed = block.replace('import gpu_tracker as gput', 'import gputracker as gput')
        # Every line but the import is the tutorial's own; the blocks run one
        # after another, and a failing one names itself.
        program.append(f'print("--- block", {blocks.index(block)}, flush=True)\n{changed}')
    (tmp_path / 'example_module.py').write_text(EXAMPLE_MODULE)
    (tmp_path / 'tutorial.py').write_text('\n'.join(program) + '\n')
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    run = subprocess.run([sys.executable, 'tutorial.py'], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert 'Max RAM:' in run.stdout
