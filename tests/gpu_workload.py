"""Real-GPU workload for tests/test_gpu_real.sh: allocates MIB MiB on the
first CUDA device and keeps a kernel busy for SECONDS.

    python3 gpu_workload.py MIB SECONDS
"""
import sys
import time

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
