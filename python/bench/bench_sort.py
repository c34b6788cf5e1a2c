"""Times clsort.sort on NumPy arrays against numpy.sort and, where installed, cupy.sort and
torch.sort (each on device-resident data and with the host round trip). Median of repeats after
a warm-up; prints CSV rows: implementation,dtype,n,median_ms."""

import argparse
import statistics
import time

import numpy as np

import clsort


def median_ms(run, repeats):
    run()  # warm-up: kernels built, buffers allocated
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def anchors(keys, repeats, device):
    """(name, median ms) of every implementation present for these keys."""
    rows = [("clsort", median_ms(lambda: clsort.sort(keys, device=device), repeats))]
    if keys.size <= 1 << 24:
        rows.append(("numpy", median_ms(lambda: np.sort(keys, kind="stable"), max(3, repeats // 3))))
    try:
        import cupy
        on_gpu = cupy.asarray(keys)

        def cupy_device():
            cupy.sort(on_gpu)
            cupy.cuda.get_current_stream().synchronize()

        rows.append(("cupy", median_ms(cupy_device, repeats)))
        rows.append(("cupy+transfers", median_ms(lambda: cupy.sort(cupy.asarray(keys)).get(),
                                                 repeats)))
    except ImportError:
        pass
    try:
        import torch
        if torch.cuda.is_available() and keys.dtype != np.uint32:
            on_gpu = torch.from_numpy(keys).cuda()

            def torch_device():
                torch.sort(on_gpu, stable=True)
                torch.cuda.synchronize()

            rows.append(("torch", median_ms(torch_device, repeats)))
            rows.append(("torch+transfers", median_ms(
                lambda: torch.sort(torch.from_numpy(keys).cuda(), stable=True)[0].cpu(), repeats)))
    except ImportError:
        pass
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--min-log2", type=int, default=16)
    parser.add_argument("--max-log2", type=int, default=28)
    parser.add_argument("--step", type=int, default=2)
    parser.add_argument("--dtypes", default="uint32,int32,float32,int64")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--device", default="")
    args = parser.parse_args()
    print("# clsort device:", clsort.device_in_use(args.device))
    print("implementation,dtype,n,median_ms")
    rng = np.random.default_rng(42)
    for dtype in args.dtypes.split(","):
        for log2n in range(args.min_log2, args.max_log2 + 1, args.step):
            n = 1 << log2n
            keys = rng.integers(0, 256, size=n * np.dtype(dtype).itemsize, dtype=np.uint8).view(dtype)
            if np.dtype(dtype).kind == "f":
                keys = rng.random(n, dtype=dtype)
            for name, ms in anchors(keys, args.repeats, args.device):
                print(f"{name},{dtype},{n},{ms:.4f}", flush=True)


if __name__ == "__main__":
    main()
