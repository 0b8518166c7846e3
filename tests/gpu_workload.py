"""Real-GPU workload for tests/test_gpu_real.sh.

    python3 gpu_workload.py MIB SECONDS
        allocates MIB MiB on the first CUDA device and keeps a kernel busy
        for SECONDS
    python3 gpu_workload.py spawn MIB SECONDS
        runs the above as a child, between two pauses: under a long
        sampling interval the child lives and ends between two samples
"""
import subprocess
import sys
import time

if sys.argv[1] == "spawn":
    time.sleep(0.5)
    subprocess.run([sys.executable, __file__, sys.argv[2], sys.argv[3]], check=True)
    time.sleep(0.5)
    sys.exit(0)

import torch

mib, seconds = int(sys.argv[1]), float(sys.argv[2])
held = torch.ones(mib * 2**20, dtype=torch.uint8, device="cuda")
a = torch.randn(4096, 4096, device="cuda")
end = time.time() + seconds
while time.time() < end:
    a = a @ a
    a = a / a.norm()
    torch.cuda.synchronize()
print(f"held {held.numel() >> 20} MiB", flush=True)
