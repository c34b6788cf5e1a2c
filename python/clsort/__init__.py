"""clsort: stable radix sorts of NumPy arrays on any OpenCL device, with NumPy's conventions.

``sort``, ``argsort`` and ``sort_pairs`` give what ``numpy.sort(a, kind="stable")`` and
``numpy.argsort(a, kind="stable")`` give, bit for bit: NaNs last (in their input order), -0.0 and
+0.0 equal, equal keys in input order, along any axis of any layout and byte order. The sort runs
on an OpenCL device (``device=`` takes the ``clsort --device`` syntax; "" is the first GPU, else
the first device) with the device's tuned profile or the built-in defaults; the GIL is released
while it runs.
"""

import os as _os
import subprocess as _subprocess

import numpy as _np

_PROFILES = _os.path.join(_os.path.dirname(__file__), "profiles")
# The package's shipped profiles are searched after any folder the user names.
_os.environ["CLSORT_PROFILE_PATH"] = _os.pathsep.join(
    p for p in (_os.environ.get("CLSORT_PROFILE_PATH", ""), _PROFILES) if p
)

from . import _clsort  # noqa: E402  (after the profile path is set)

Error = _clsort.Error

__all__ = ["Error", "argsort", "device_in_use", "devices", "sort", "sort_", "sort_pairs",
           "sort_pairs_", "tune"]

_KEY_TYPES = {
    _np.dtype(_np.uint8): "u8",
    _np.dtype(_np.uint16): "u16",
    _np.dtype(_np.uint32): "u32",
    _np.dtype(_np.uint64): "u64",
    _np.dtype(_np.int8): "i8",
    _np.dtype(_np.int16): "i16",
    _np.dtype(_np.int32): "i32",
    _np.dtype(_np.int64): "i64",
    _np.dtype(_np.float32): "f32",
    _np.dtype(_np.float64): "f64",
    _np.dtype(_np.bool_): "u8",
}
_VALUE_BYTES = (1, 2, 4, 8, 16)


def _native_keys(a):
    """a as an array of a supported key dtype in native byte order, and that dtype's name."""
    a = _np.asarray(a)
    native = a.dtype.newbyteorder("=") if a.dtype.byteorder not in "=|" else a.dtype
    if native not in _KEY_TYPES:
        raise TypeError(
            f"clsort sorts integers of 8-64 bits, float32, float64 and bool; got dtype {a.dtype}"
        )
    return a.astype(native, copy=False), _KEY_TYPES[native]


_AxisError = getattr(getattr(_np, "exceptions", _np), "AxisError")


def _rows(a, axis):
    """a with `axis` last, as a C-contiguous 2-D copy (one row per sort), and how to undo it."""
    if axis is None:
        return _np.array(a.reshape(1, -1), order="C", copy=True), None
    if not -a.ndim <= axis < a.ndim:
        raise _AxisError(axis, a.ndim)
    moved = _np.moveaxis(a, axis, -1)
    count = int(_np.prod(moved.shape[:-1], dtype=_np.int64))
    rows = _np.array(moved, order="C", copy=True).reshape(count, moved.shape[-1])
    return rows, (moved.shape, axis % a.ndim)


def _contiguous_row(a, axis):
    """a's elements as one contiguous 1-D view when the sort is over all of them in memory order
    (axis None, or a 1-D array), so that the sort reads them in place; else None."""
    whole = axis is None or (a.ndim == 1 and axis in (0, -1))
    return a.reshape(-1) if whole and a.flags.c_contiguous else None


def _as_bytes(a):
    """bool keys as the u8 they are sorted as; other arrays as they are."""
    return a.view(_np.uint8) if a.dtype == _np.bool_ else a


def _restore(rows, layout):
    if layout is None:
        return rows.reshape(-1)
    shape, axis = layout
    return _np.moveaxis(rows.reshape(shape), -1, axis)


def _row_numbers(order, length, count):
    """The row of each flat index in `order`, in the narrowest key type that numbers `count` rows
    (fewer radix passes for the sort by row)."""
    for dtype, name in ((_np.uint8, "u8"), (_np.uint16, "u16"), (_np.uint32, "u32")):
        if count - 1 <= _np.iinfo(dtype).max:
            return (order // length).astype(dtype), name
    return (order // length).astype(_np.uint64), "u64"


def _order_of_rows(keys, key_type, descending, device):
    """The stable order (flat indices, int64) that sorts every row of the 2-D `keys`."""
    count, length = keys.shape
    order = _np.arange(keys.size, dtype=_np.int64)
    flat = _as_bytes(keys.reshape(-1).copy())
    _clsort.sort_pairs(flat, order, 8, key_type, descending, device)
    if count > 1:
        # A second stable sort by row puts each row's keys together in the order found above.
        rows, row_type = _row_numbers(order, max(length, 1), count)
        _clsort.sort_pairs(rows, order, 8, row_type, False, device)
    return order


def sort(a, axis=-1, *, descending=False, device=""):
    """A sorted copy of `a` along `axis` (None: flattened), as numpy.sort(a, kind="stable").

    descending=True reverses the order of all non-NaN keys, keeps equal keys in input order and
    still puts NaNs last. The result has `a`'s dtype, byte order included.
    """
    keys, key_type = _native_keys(a)
    row = _contiguous_row(keys, axis)
    if row is not None:  # sorted straight from the input into the result: no copy first
        result = _np.empty_like(row)
        _clsort.sort_keys_into(_as_bytes(row), _as_bytes(result), key_type, descending, device)
        return result.astype(_np.asarray(a).dtype, copy=False)
    rows, layout = _rows(keys, axis)
    if rows.shape[0] == 1:
        flat = rows.reshape(-1)
        _clsort.sort_keys(_as_bytes(flat), key_type, descending, device)
        result = flat.reshape(rows.shape)
    else:
        order = _order_of_rows(rows, key_type, descending, device)
        result = rows.reshape(-1)[order].reshape(rows.shape)
    return _restore(result, layout).astype(_np.asarray(a).dtype, copy=False)


def argsort(a, axis=-1, *, descending=False, device=""):
    """Indices that sort `a` along `axis` (None: flattened), as numpy.argsort(a, kind="stable")."""
    keys, key_type = _native_keys(a)
    rows, layout = _rows(keys, axis)
    order = _order_of_rows(rows, key_type, descending, device)
    length = max(rows.shape[1], 1)
    return _restore((order % length).reshape(rows.shape), layout)


def sort_pairs(keys, values, axis=-1, *, descending=False, device=""):
    """Sorted copies of `keys` and of `values` moved with them: (sorted keys, values).

    `values` has the shape of `keys` and any dtype (structured too); its elements are moved as
    raw bytes, or (Python objects, and elements of other sizes than 1, 2, 4, 8 or 16 bytes) by
    NumPy along the order the device finds. Equal keys keep their values in input order.
    """
    keys = _np.asarray(keys)
    values = _np.asarray(values)
    if values.shape != keys.shape:
        raise ValueError(f"keys have shape {keys.shape} but values {values.shape}")
    native, key_type = _native_keys(keys)
    size = values.dtype.itemsize
    # Bytes the device may move: not references, which NumPy must copy itself.
    movable = size in _VALUE_BYTES and not values.dtype.hasobject
    key_row, value_row = _contiguous_row(native, axis), _contiguous_row(values, axis)
    if key_row is not None and value_row is not None and movable:
        sorted_keys, sorted_values = _np.empty_like(key_row), _np.empty_like(value_row)
        _clsort.sort_pairs_into(_as_bytes(key_row), value_row.view(_np.uint8),
                                _as_bytes(sorted_keys), sorted_values.view(_np.uint8), size,
                                key_type, descending, device)
        return sorted_keys.astype(keys.dtype, copy=False), sorted_values
    key_rows, layout = _rows(native, axis)
    value_rows, _ = _rows(values, axis)
    if key_rows.shape[0] == 1 and movable:
        flat_keys = key_rows.reshape(-1)
        flat_values = value_rows.reshape(-1)
        _clsort.sort_pairs(_as_bytes(flat_keys), flat_values.view(_np.uint8), size, key_type,
                           descending, device)
        sorted_keys, sorted_values = flat_keys.reshape(key_rows.shape), value_rows
    else:
        order = _order_of_rows(key_rows, key_type, descending, device)
        sorted_keys = key_rows.reshape(-1)[order].reshape(key_rows.shape)
        sorted_values = value_rows.reshape(-1)[order].reshape(value_rows.shape)
    return (_restore(sorted_keys, layout).astype(keys.dtype, copy=False),
            _restore(sorted_values, layout))


def devices():
    """Every OpenCL device: dicts of spec ("P:D"), platform, name, kind and the profile found."""
    return [
        {"spec": spec, "platform": platform, "name": name, "kind": kind, "profile": path or None,
         "profile_match": match}
        for spec, platform, name, kind, path, match in _clsort.devices()
    ]


def device_in_use(device=""):
    """(description, profile path or None for the built-in defaults) of a device spec."""
    description, profile = _clsort.device_in_use(device)
    return description, profile or None


def _device_array(arr, what):
    """(queue handle, buffer handle, key or value type) of a pyopencl Array sortable in place."""
    if not all(hasattr(arr, a) for a in ("queue", "base_data", "offset", "flags")):
        raise TypeError(f"{what} must be a pyopencl.array.Array, got {type(arr).__name__}")
    if arr.ndim != 1 or not arr.flags.c_contiguous or arr.offset != 0:
        raise ValueError(f"{what} must be a whole 1-D contiguous pyopencl array (offset 0); "
                         "copy a view first")
    if arr.queue is None:
        raise ValueError(f"{what} has no queue: pass one to pyopencl when creating it")
    # An empty array has no buffer: there is nothing to sort.
    return arr.queue.int_ptr, arr.base_data.int_ptr if arr.base_data is not None else 0


def _output_array(out, like, what):
    """The buffer handle of `out`, a pyopencl array to sort `like` into (0 where out is None)."""
    if out is None:
        return 0
    _, buffer = _device_array(out, what)
    if out.dtype != like.dtype or out.size != like.size:
        raise ValueError(f"{what} must be a pyopencl array of {like.size} {like.dtype}; "
                         f"got {out.size} {out.dtype}")
    return buffer


def sort_(arr, *, descending=False, out=None):
    """Sorts a pyopencl.array.Array in place on its own queue, on the device, with no host copy.

    With `out` (a pyopencl array of arr's dtype and size, in its context) the sorted keys go to
    out and arr is left as it was, which costs less than a copy and a sort in place. Returns arr
    (or out) once the sort is enqueued: commands enqueued after it on that in-order queue (or
    waiting for it) see the sorted keys. A sort of more than 4,096 keys on a GPU may wait for its
    digit counts before returning (to skip passes whose digit is constant).
    """
    queue, keys = _device_array(arr, "arr")
    native, key_type = _native_keys(_np.empty(0, dtype=arr.dtype))
    if native.dtype != arr.dtype:
        raise TypeError(f"pyopencl arrays are sorted in native byte order; got {arr.dtype}")
    keys_out = _output_array(out, arr, "out")
    if arr.size > 0:
        _clsort.sort_buffers(queue, keys, arr.size, key_type, 0, 0, descending, keys_out, 0)
    return arr if out is None else out


def sort_pairs_(keys, values, *, descending=False, out=None):
    """Sorts pyopencl arrays `keys` in place and moves `values` (1, 2, 4, 8 or 16 bytes each)
    with them, on the keys' queue; returns (keys, values) once enqueued, as sort_ does. With
    out=(keys_out, values_out), pyopencl arrays like keys and values, the sorted pairs go there
    and keys and values are left as they were (None in out: that array sorted in place); returns
    the arrays that hold the sorted pairs."""
    queue, key_buffer = _device_array(keys, "keys")
    _, value_buffer = _device_array(values, "values")
    if values.size != keys.size:
        raise ValueError(f"keys have {keys.size} elements but values {values.size}")
    if values.dtype.itemsize not in _VALUE_BYTES:
        raise TypeError(f"device values must be 1, 2, 4, 8 or 16 bytes; got {values.dtype}")
    native, key_type = _native_keys(_np.empty(0, dtype=keys.dtype))
    if native.dtype != keys.dtype:
        raise TypeError(f"pyopencl arrays are sorted in native byte order; got {keys.dtype}")
    keys_out, values_out = (None, None) if out is None else out
    key_output = _output_array(keys_out, keys, "out[0]")
    value_output = _output_array(values_out, values, "out[1]")
    if keys.size > 0:
        _clsort.sort_buffers(queue, key_buffer, keys.size, key_type, value_buffer,
                             values.dtype.itemsize, descending, key_output, value_output)
    return (keys if keys_out is None else keys_out, values if values_out is None else values_out)


def tune(device="", *, budget="10m", classes=None, sizes=None, output=None, space=None,
         into=None, key_range=None, distributions=None):
    """Runs clsort-tune on a device and returns the path of the profile it wrote.

    budget: "90s", "10m", "1h"; classes: e.g. "32:0,64:4" (key bits:value bytes; default all),
    or one key type's classes, e.g. "f32:4", which sorts of that type take before their width's;
    sizes: log2 sizes of the classes, e.g. "12,16,20,24"; output: the profile's path (default the
    user profile folder, where sorts on that device then find it); space: a search space file.
    into: an existing profile of the device to retune in place instead, over the key counts
    key_range ("MIN:MAX", either side may be empty; default all). distributions: the key
    distributions each candidate is timed on, ranked by its mean time, e.g. "uniform,sorted" or
    ["uniform", "few"] (uniform, low16, few, sorted, tiles, heavy; default uniform). Raises
    clsort.Error with the tuner's message if it fails.
    """
    command = [_os.path.join(_os.path.dirname(__file__), "bin", "clsort-tune"), "--device",
               device, "--budget", budget, "--quiet"]
    if distributions is not None and not isinstance(distributions, str):
        distributions = ",".join(distributions)
    for flag, value in (("--classes", classes), ("--sizes", sizes), ("--output", output),
                        ("--space", space), ("--into", into), ("--range", key_range),
                        ("--distributions", distributions)):
        if value is not None:
            command += [flag, str(value)]
    run = _subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        raise Error((run.stderr or run.stdout).strip() or f"clsort-tune exited with {run.returncode}")
    for line in (run.stdout + run.stderr).splitlines():
        for said in ("clsort-tune: wrote ", "clsort-tune: merged into "):
            if line.startswith(said):
                return line[len(said):]
    raise Error("clsort-tune did not say where it wrote the profile:\n" + run.stdout)
