"""clsort's Python package against NumPy's stable sorts, bit for bit, on adversarial inputs."""

import json

import numpy as np
import pytest

import clsort

KEY_DTYPES = [np.uint8, np.uint16, np.uint32, np.uint64, np.int8, np.int16, np.int32, np.int64,
              np.float32, np.float64]
SIZES = [0, 1, 2, 3, 31, 257, 4095, 4097, 65537, 1_000_003]
DISTRIBUTIONS = ["uniform", "all_equal", "few", "sorted", "reversed", "low_bits", "high_bits",
                 "extremes"]


def make_keys(dtype, n, distribution, seed=0):
    """n keys of dtype drawn as `distribution` names (floats get NaN payloads, ±0, ±inf)."""
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 256, size=n * dtype.itemsize, dtype=np.uint8).view(
        np.dtype(f"u{dtype.itemsize}"))
    width = dtype.itemsize * 8
    if distribution == "all_equal":
        bits[:] = bits[0] if n else 0
    elif distribution == "few":
        bits = bits[:4][rng.integers(0, 4, size=n)] if n >= 4 else bits
    elif distribution == "low_bits":
        bits &= np.array(0xFF, bits.dtype)
    elif distribution == "high_bits":
        bits &= ~np.array((1 << (width - 8)) - 1, dtype=bits.dtype)
    keys = bits.view(dtype).copy()
    if distribution == "extremes" and n:
        if dtype.kind == "f":
            specials = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0], dtype=dtype)
            payload = np.array([0x7FF0000000000123 if dtype.itemsize == 8 else 0x7F800123],
                               dtype=f"u{dtype.itemsize}").view(dtype)
            specials = np.concatenate([specials, payload])
        else:
            info = np.iinfo(dtype)
            specials = np.array([info.min, info.max, 0, 1, info.min + 1], dtype=dtype)
        keys[rng.integers(0, n, size=n // 2)] = specials[rng.integers(0, len(specials), n // 2)]
    if distribution == "sorted":
        keys = np.sort(keys, kind="stable")
    if distribution == "reversed":
        keys = np.sort(keys, kind="stable")[::-1].copy()
    return keys


def descending_order(keys):
    """The stable order clsort's descending=True gives, written independently: non-NaN keys from
    largest to smallest (-0.0 equal to +0.0), equal keys in input order, NaNs last."""
    keys = np.asarray(keys)
    if keys.dtype.kind == "f":
        nan = np.isnan(keys)
        with np.errstate(invalid="ignore"):
            negated = np.where(nan, 0, -keys.astype(np.float64) + 0.0)
        return np.lexsort((np.arange(keys.size), negated, nan))
    return np.lexsort((np.arange(keys.size), -keys.astype(object)))


def same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("dtype", KEY_DTYPES)
@pytest.mark.parametrize("distribution", DISTRIBUTIONS)
def test_sort_and_argsort_match_numpy(dtype, distribution):
    for n in SIZES:
        keys = make_keys(dtype, n, distribution, seed=n)
        assert same_bits(clsort.sort(keys), np.sort(keys, kind="stable")), n
        assert np.array_equal(clsort.argsort(keys), np.argsort(keys, kind="stable")), n


@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.uint8])
def test_descending_is_stable_with_nans_last(dtype):
    keys = make_keys(dtype, 20011, "extremes", seed=3)
    order = descending_order(keys)
    assert np.array_equal(clsort.argsort(keys, descending=True), order)
    assert same_bits(clsort.sort(keys, descending=True), keys[order])


@pytest.mark.parametrize("axis", [0, 1, 2, -1, None])
def test_every_axis_of_a_3d_array(axis):
    keys = make_keys(np.float32, 7 * 11 * 13, "few", seed=5).reshape(7, 11, 13)
    assert same_bits(clsort.sort(keys, axis=axis), np.sort(keys, axis=axis, kind="stable"))
    assert np.array_equal(clsort.argsort(keys, axis=axis),
                          np.argsort(keys, axis=axis, kind="stable"))


@pytest.mark.parametrize("rows", [256, 257, 65536, 65537])
def test_row_counts_at_the_row_number_widths(rows):
    # Rows are numbered in the narrowest key type that holds them: 8, 16 or 32 bits.
    keys = make_keys(np.int32, rows * 3, "few", seed=rows).reshape(rows, 3)
    assert same_bits(clsort.sort(keys), np.sort(keys, kind="stable"))
    assert np.array_equal(clsort.argsort(keys), np.argsort(keys, kind="stable"))


def test_views_big_endian_and_booleans():
    base = make_keys(np.int64, 40_000, "uniform", seed=6)
    strided = base.reshape(200, 200)[::3, ::-2]
    assert same_bits(clsort.sort(strided), np.sort(strided, kind="stable"))
    big = base.astype(">i8")
    assert same_bits(clsort.sort(big), np.sort(big, kind="stable"))
    assert same_bits(clsort.sort(big.astype(">f4")), np.sort(big.astype(">f4"), kind="stable"))
    flags = base % 3 == 0
    assert np.array_equal(clsort.argsort(flags), np.argsort(flags, kind="stable"))
    empty = np.zeros((3, 0), dtype=np.uint16)
    assert clsort.sort(empty).shape == (3, 0)


@pytest.mark.parametrize("value_dtype", [np.uint8, np.int16, np.float32, np.complex128,
                                         np.dtype([("a", "i4"), ("b", "u1"), ("c", "f8")]),
                                         np.dtype("V3")])
def test_pairs_move_values_of_any_dtype(value_dtype):
    keys = make_keys(np.uint32, 30_011, "few", seed=7)
    values = np.random.default_rng(8).integers(0, 256, size=keys.size * np.dtype(
        value_dtype).itemsize, dtype=np.uint8).view(value_dtype)
    order = np.argsort(keys, kind="stable")
    sorted_keys, sorted_values = clsort.sort_pairs(keys, values)
    assert same_bits(sorted_keys, keys[order])
    assert sorted_values.tobytes() == values[order].tobytes()
    grid_keys, grid_values = clsort.sort_pairs(keys[:30_000].reshape(100, 300),
                                               values[:30_000].reshape(100, 300), axis=0)
    grid_order = np.argsort(keys[:30_000].reshape(100, 300), axis=0, kind="stable")
    expected = np.take_along_axis(values[:30_000].reshape(100, 300), grid_order, axis=0)
    assert grid_values.tobytes() == expected.tobytes()


@pytest.mark.parametrize("shape, axis", [((5003,), -1), ((7, 11), 0), ((7, 11), None)])
def test_pairs_move_python_objects(shape, axis):
    keys = make_keys(np.int16, int(np.prod(shape)), "few", seed=10).reshape(shape)
    values = np.empty(shape, dtype=object)
    values.reshape(-1)[:] = [("value", i) for i in range(keys.size)]
    order = np.argsort(keys, axis=axis, kind="stable")
    sorted_keys, sorted_values = clsort.sort_pairs(keys, values, axis=axis)
    if axis is None:
        expected = values.reshape(-1)[order]
    else:
        expected = np.take_along_axis(values, order, axis=axis)
    assert same_bits(sorted_keys, np.sort(keys, axis=axis, kind="stable"))
    assert sorted_values.tolist() == expected.tolist()
    del values, expected
    assert sorted_values.reshape(-1)[0][0] == "value"  # still referenced, not freed


def test_inputs_are_left_alone():
    keys = make_keys(np.float64, 5003, "extremes", seed=9)
    original = keys.copy()
    values = np.arange(keys.size)
    clsort.sort(keys)
    clsort.sort_pairs(keys, values)
    assert same_bits(keys, original)
    assert np.array_equal(values, np.arange(keys.size))
    # Contiguous 1-D arrays are read where they are, read-only ones too.
    frozen = np.frombuffer(original.tobytes(), dtype=np.float64)
    frozen_values = np.frombuffer(values.tobytes(), dtype=values.dtype)
    assert not frozen.flags.writeable
    assert same_bits(clsort.sort(frozen), np.sort(original, kind="stable"))
    sorted_keys, sorted_values = clsort.sort_pairs(frozen, frozen_values, descending=True)
    order = descending_order(original)
    assert same_bits(sorted_keys, original[order])
    assert np.array_equal(sorted_values, values[order])
    assert same_bits(frozen, original)
    scalar = np.array(7, dtype=np.uint16)
    assert same_bits(clsort.sort(scalar, axis=None), np.sort(scalar, axis=None, kind="stable"))


def test_errors_name_the_problem():
    with pytest.raises(TypeError, match="float16"):
        clsort.sort(np.zeros(4, dtype=np.float16))
    with pytest.raises(TypeError, match="complex"):
        clsort.argsort(np.zeros(4, dtype=np.complex64))
    with pytest.raises(ValueError, match="shape"):
        clsort.sort_pairs(np.zeros(4, dtype=np.uint32), np.zeros(5))
    with pytest.raises(np.exceptions.AxisError if hasattr(np, "exceptions") else ValueError):
        clsort.sort(np.zeros((2, 2)), axis=2)
    with pytest.raises(clsort.Error, match="no-such-device"):
        clsort.sort(np.zeros(4, dtype=np.uint32), device="no-such-device")


def test_devices_and_the_profile_in_use():
    found = clsort.devices()
    assert found and all({"spec", "platform", "name", "kind", "profile"} <= d.keys() for d in found)
    description, _ = clsort.device_in_use(found[0]["spec"])
    assert found[0]["name"] in description


def pyopencl_queue():
    cl = pytest.importorskip("pyopencl")
    name = clsort.device_in_use()[0]
    for platform in cl.get_platforms():
        for device in platform.get_devices():
            if device.name in name:
                return cl.CommandQueue(cl.Context([device]))
    pytest.fail(f"pyopencl does not list clsort's device {name}")


@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.float32, np.float64, np.int64])
def test_pyopencl_arrays_are_sorted_in_place_on_their_queue(dtype):
    import pyopencl.array as cl_array
    queue = pyopencl_queue()
    for n in (0, 1, 4095, 4097, 200_003):
        keys = make_keys(dtype, n, "extremes", seed=n)
        on_device = cl_array.to_device(queue, keys)
        assert clsort.sort_(on_device) is on_device
        assert same_bits(on_device.get(), np.sort(keys, kind="stable")), n
        values = cl_array.to_device(queue, np.arange(n, dtype=np.int64))
        on_device = cl_array.to_device(queue, keys)
        clsort.sort_pairs_(on_device, values, descending=True)
        assert np.array_equal(values.get(), descending_order(keys)), n


@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.float64, np.uint64])
def test_pyopencl_arrays_are_sorted_into_others_leaving_them_alone(dtype):
    import pyopencl.array as cl_array
    queue = pyopencl_queue()
    for n in (0, 1, 4097, 200_003):
        keys = make_keys(dtype, n, "extremes", seed=n + 1)
        on_device = cl_array.to_device(queue, keys)
        out = cl_array.empty_like(on_device)
        assert clsort.sort_(on_device, out=out) is out
        assert same_bits(out.get(), np.sort(keys, kind="stable")), n
        assert same_bits(on_device.get(), keys), n
        values = np.arange(n, dtype=np.int64)
        values_in = cl_array.to_device(queue, values)
        keys_out, values_out = cl_array.empty_like(on_device), cl_array.empty_like(values_in)
        result = clsort.sort_pairs_(on_device, values_in, descending=True,
                                    out=(keys_out, values_out))
        assert result[0] is keys_out and result[1] is values_out
        assert np.array_equal(values_out.get(), descending_order(keys)), n
        assert same_bits(on_device.get(), keys) and np.array_equal(values_in.get(), values), n
        # Values sorted in their own array, keys into another.
        keys_out, values_in_place = clsort.sort_pairs_(on_device, values_in, out=(keys_out, None))
        assert values_in_place is values_in
        assert np.array_equal(values_in.get(), np.argsort(keys, kind="stable")), n
        assert same_bits(keys_out.get(), np.sort(keys, kind="stable")), n


def test_pyopencl_misuse_is_refused_by_name():
    import pyopencl.array as cl_array
    queue = pyopencl_queue()
    whole = cl_array.to_device(queue, np.arange(10, dtype=np.uint32))
    with pytest.raises(ValueError, match="contiguous"):
        clsort.sort_(whole[2:])
    with pytest.raises(TypeError, match="pyopencl"):
        clsort.sort_(np.arange(3))
    with pytest.raises(TypeError, match="float16"):
        clsort.sort_(cl_array.to_device(queue, np.zeros(3, dtype=np.float16)))
    with pytest.raises(ValueError, match="elements"):
        clsort.sort_pairs_(whole, cl_array.to_device(queue, np.zeros(3, dtype=np.uint32)))
    with pytest.raises(ValueError, match="out must be a pyopencl array of 10 uint32"):
        clsort.sort_(whole, out=cl_array.to_device(queue, np.zeros(10, dtype=np.int32)))
    with pytest.raises(ValueError, match=r"out\[1\] must be"):
        clsort.sort_pairs_(whole, whole.copy(), out=(whole.copy(), whole[:9].copy()))
    keys, values = whole.copy(), whole.copy()
    with pytest.raises(clsort.Error, match="values_out shares bytes with keys_in"):
        clsort.sort_pairs_(keys, values, out=(values, keys))
    assert np.array_equal(keys.get(), np.arange(10)) and np.array_equal(values.get(), np.arange(10))


def test_tune_writes_a_profile_that_loads(tmp_path):
    path = clsort.tune(classes="32:0", sizes="10", budget="3s", output=str(tmp_path / "p.json"))
    assert path == str(tmp_path / "p.json")
    assert '"classes"' in open(path).read()
    with pytest.raises(clsort.Error, match="budget"):
        clsort.tune(budget="soon", output=str(tmp_path / "q.json"))
    mixed = clsort.tune(classes="32:0", sizes="10", budget="3s", output=str(tmp_path / "m.json"),
                        distributions=["uniform", "sorted"])
    assert json.load(open(mixed))["tuning"]["distributions"] == ["uniform", "sorted"]
    with pytest.raises(clsort.Error, match="zipf"):
        clsort.tune(budget="3s", output=str(tmp_path / "z.json"), distributions="uniform,zipf")
    merged = clsort.tune(classes="32:0", sizes="10,14", budget="3s", into=path,
                         key_range="4096:")
    assert merged == path
    profile = json.load(open(path))
    assert [c["min_keys"] for c in profile["classes"]] == [0, 4096]
    assert profile["tuning"]["merged"][0]["range"] == "4096:"
    with pytest.raises(clsort.Error, match="ends before it starts"):
        clsort.tune(classes="32:0", sizes="10", budget="3s", into=path, key_range="9:1")
    # One key type's classes go beside the width's, which stay.
    clsort.tune(classes="f32:0", sizes="10", budget="3s", into=path)
    profile = json.load(open(path))
    assert [(c.get("key_type"), c["min_keys"]) for c in profile["classes"]] == [
        (None, 0), (None, 4096), ("f32", 0)]
