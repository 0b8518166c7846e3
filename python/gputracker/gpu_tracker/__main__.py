"""``python -m gputracker.gpu_tracker``: the gpu-tracker command, as
``python -m gpu_tracker`` runs gpu_tracker's."""
from .._cli import main

if __name__ == '__main__':
    main()
