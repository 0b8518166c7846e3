"""Real-GPU workloads for tests/test_gpu_real.sh and tests/gpu_validation.py.

    python3 gpu_workload.py MIB SECONDS
        allocates MIB MiB on the first CUDA device and keeps a kernel busy
        for SECONDS; prints "held N MiB" and "reserved BYTES" (the caching
        allocator's torch.cuda.memory_reserved() at the end)
    python3 gpu_workload.py spawn MIB SECONDS
        runs the above as a child, between two pauses: under a long
        sampling interval the child lives and ends between two samples
    python3 gpu_workload.py context SECONDS
        initialises CUDA with one small tensor and waits: what a process's
        context and the allocator's smallest block hold
    python3 gpu_workload.py pair MIB1 MIB2 SECONDS
        two children at once, holding MIB1 and MIB2 MiB, busy for SECONDS
    python3 gpu_workload.py idle MIB SECONDS
        holds MIB MiB and sleeps SECONDS: a GPU held idle
    python3 gpu_workload.py loader SECONDS [WORKERS]
        a training loop whose DataLoader (WORKERS processes, default 2) spins
        the CPU 30 ms per sample while the GPU's step is short: input-bound
"""
import subprocess
import sys
import time

mode = sys.argv[1]

if mode == "spawn":
    time.sleep(0.5)
    subprocess.run([sys.executable, __file__, sys.argv[2], sys.argv[3]], check=True)
    time.sleep(0.5)
    sys.exit(0)

if mode == "pair":
    seconds = sys.argv[4]
    children = [subprocess.Popen([sys.executable, __file__, mib, seconds])
                for mib in (sys.argv[2], sys.argv[3])]
    sys.exit(max(child.wait() for child in children))

import torch  # noqa: E402  (the modes above need no CUDA in this process)

if mode == "context":
    torch.zeros(1, device="cuda")
    torch.cuda.synchronize()
    time.sleep(float(sys.argv[2]))
    print(f"reserved {torch.cuda.memory_reserved()}", flush=True)
    sys.exit(0)

if mode == "idle":
    held = torch.ones(int(sys.argv[2]) * 2**20, dtype=torch.uint8, device="cuda")
    torch.cuda.synchronize()
    time.sleep(float(sys.argv[3]))
    print(f"held {held.numel() >> 20} MiB", flush=True)
    sys.exit(0)

if mode == "loader":
    from torch.utils.data import DataLoader, Dataset

    class Slow(Dataset):
        """Each sample costs 30 ms of CPU in the worker (decoding, say)."""

        def __len__(self):
            return 1 << 20

        def __getitem__(self, i):
            end = time.process_time() + 0.03
            x = 0.0
            while time.process_time() < end:
                x += 1.0
            return torch.full((256,), float(i % 7))

    seconds = float(sys.argv[2])
    workers = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    model = torch.nn.Linear(256, 256).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    end = time.time() + seconds
    steps = 0
    for batch in DataLoader(Slow(), batch_size=16, num_workers=workers):
        loss = model(batch.cuda()).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        steps += 1
        if time.time() >= end:
            break
    print(f"steps {steps}", flush=True)
    sys.exit(0)

mib, seconds = int(mode), float(sys.argv[2])
held = torch.ones(mib * 2**20, dtype=torch.uint8, device="cuda")
a = torch.randn(4096, 4096, device="cuda")
end = time.time() + seconds
while time.time() < end:
    a = a @ a
    a = a / a.norm()
    torch.cuda.synchronize()
print(f"held {held.numel() >> 20} MiB", flush=True)
print(f"reserved {torch.cuda.memory_reserved()}", flush=True)
