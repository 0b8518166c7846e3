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
    python3 gpu_workload.py bf16 SECONDS
        a bf16 matmul loop: the SMs and the tensor cores busy
    python3 gpu_workload.py sleep SECONDS
        torch.cuda._sleep in a loop: the GPU "100 % utilized" with one thread
        spinning, its SMs idle
    python3 gpu_workload.py copy SECONDS
        a device-to-device copy loop: DRAM bandwidth, little math
    python3 gpu_workload.py duty FRACTION SECONDS
        kernels (torch.cuda._sleep) FRACTION of each 100 ms; prints
        "kernel_share X", the share of the time its kernels ran as CUDA
        events measured them
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

if mode in ("bf16", "sleep", "copy"):
    seconds = float(sys.argv[2])
    end = time.time() + seconds
    if mode == "bf16":
        a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
        while time.time() < end:
            for _ in range(8):
                c = a @ b
            torch.cuda.synchronize()
    elif mode == "sleep":
        while time.time() < end:
            torch.cuda._sleep(100_000_000)
            torch.cuda.synchronize()
    else:
        src = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        while time.time() < end:
            for _ in range(8):
                dst.copy_(src)
            torch.cuda.synchronize()
    print("done", flush=True)
    sys.exit(0)

if mode == "duty":
    fraction, seconds = float(sys.argv[2]), float(sys.argv[3])
    begin, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    begin.record()
    torch.cuda._sleep(50_000_000)
    stop.record()
    torch.cuda.synchronize()
    cycles_per_ms = 50_000_000 / max(begin.elapsed_time(stop), 1e-3)
    period, busy = 0.1, 0.0
    start = time.time()
    while time.time() - start < seconds:
        t0 = time.time()
        begin.record()
        torch.cuda._sleep(int(cycles_per_ms * period * 1000 * fraction))
        stop.record()
        torch.cuda.synchronize()
        busy += begin.elapsed_time(stop) / 1000
        time.sleep(max(0.0, period - (time.time() - t0)))
    print(f"kernel_share {busy / (time.time() - start):.3f}", flush=True)
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
