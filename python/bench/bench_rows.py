"""Times clsort.sort and clsort.argsort along an axis of arrays of many rows (each row sorted on
its own), median of 7 after a warm-up; prints CSV rows: label,function,shape,axis,median_ms."""

import argparse

import numpy as np

import clsort
from bench_sort import median_ms  # the script's own folder is on sys.path

SHAPES = (((256, 4096), -1), ((4096, 256), 0), ((64, 64, 256), 1))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--label", default="clsort")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--device", default="")
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    print("label,function,shape,axis,median_ms")
    for shape, axis in SHAPES:
        keys = rng.random(shape, dtype=np.float32)
        for name, function in (("sort", clsort.sort), ("argsort", clsort.argsort)):
            ms = median_ms(lambda: function(keys, axis=axis, device=args.device), args.repeats)
            print(f'{args.label},{name},"{shape}",{axis},{ms:.1f}', flush=True)


if __name__ == "__main__":
    main()
