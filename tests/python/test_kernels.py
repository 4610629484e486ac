"""tunekit_cpu's kernels on NumPy arrays: results against NumPy (or a wider
reference) within the documented error, in place and without copies, on
every execution path, and bad arrays refused with tunekit.Error."""
import math

import numpy as np
import pytest

import tunekit
from tunekit import kernels

RNG = np.random.default_rng(20261207)

REFERENCE = {
    "Abs": np.abs,
    "Neg": np.negative,
    "Relu": lambda x: np.maximum(x, 0),
    "Sqrt": np.sqrt,
    "Exp": np.exp,
    "Log": np.log,
    "Tanh": np.tanh,
    "Sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "Erf": np.vectorize(math.erf, otypes=[np.float64]),
}


def operand(op, dtype, n=4099):
    """Random inputs in the operation's domain (never all zeros), an odd
    length so that the vector loops' tails run."""
    x = RNG.standard_normal(n) * 4
    if op in ("Sqrt", "Log"):
        x = np.abs(x) + 1e-3
    return x.astype(dtype)


def ulp_error(result, reference, dtype):
    """|result - reference| in ULP of dtype at the reference."""
    exact = reference.astype(np.longdouble)  # long double keeps a long double reference's digits
    spacing = np.abs(np.spacing(reference.astype(dtype))).astype(np.longdouble)
    return np.abs(result.astype(np.longdouble) - exact) / spacing


@pytest.mark.parametrize("op", sorted(REFERENCE))
@pytest.mark.parametrize("dtype,name", [(np.float32, "float"), (np.float64, "double")])
def test_unary_is_within_the_documented_error_of_a_wider_reference(op, dtype, name):
    x = operand(op, dtype)
    # float: the reference in double; double: in long double where NumPy has
    # it (Erf's reference is math.erf, itself within an ULP, so one more).
    wide = np.longdouble if dtype == np.float64 and op != "Erf" else np.float64
    reference = np.asarray(REFERENCE[op](x.astype(wide)))
    y = kernels.unary(op, x)
    assert y.dtype == dtype and y.shape == x.shape
    bound = kernels.max_ulp(op, name) + (1.0 if dtype == np.float64 and op == "Erf" else 0.0)
    worst = float(np.max(ulp_error(y, reference, dtype)))
    assert worst <= bound, f"{op} {name}: {worst} ULP, documented {bound}"


@pytest.mark.parametrize("path", ["serial_scalar", "serial_simd", "parallel_simd"])
def test_every_path_writes_out_in_place_and_agrees(path):
    x = operand("Exp", np.float32, 100_003)
    out = np.full_like(x, np.nan)  # poisoned
    result = kernels.unary("Exp", x, out=out, path=path, threads=2)
    assert result is out
    assert not np.isnan(out).any()
    assert float(np.max(ulp_error(out, np.exp(x.astype(np.float64)), np.float32))) <= kernels.max_ulp("Exp", "float")


def test_the_arrays_own_memory_is_used_in_place():
    x = operand("Neg", np.float64)
    expected = -x.copy()
    kernels.unary("Neg", x, out=x)  # in place: input and output one array
    np.testing.assert_array_equal(x, expected)


def test_integer_and_bool_types():
    i = RNG.integers(-1000, 1000, 513).astype(np.int32)
    np.testing.assert_array_equal(kernels.unary("Abs", i), np.abs(i))
    np.testing.assert_array_equal(kernels.unary("Relu", i.astype(np.int64)), np.maximum(i, 0))
    flags = RNG.integers(0, 2, 257).astype(bool)
    np.testing.assert_array_equal(kernels.unary("Not", flags), ~flags)


@pytest.mark.parametrize("op,reference", [("Add", np.add), ("Sub", np.subtract), ("Mul", np.multiply),
                                          ("Div", np.divide), ("Max", np.maximum), ("Min", np.minimum)])
def test_binary_arithmetic_with_broadcasting_equals_numpy(op, reference):
    a = RNG.standard_normal((37, 64)).astype(np.float32)
    b = RNG.standard_normal(64).astype(np.float32) + 3  # a row broadcast over a's rows, never 0
    np.testing.assert_array_equal(kernels.binary(op, a, b), reference(a, b))
    np.testing.assert_array_equal(kernels.binary(op, b, a), reference(b, a))


def test_binary_comparisons_give_bool():
    a = RNG.standard_normal(1000)
    b = RNG.standard_normal(1000)
    for op, reference in (("Less", np.less), ("Greater", np.greater), ("Equal", np.equal)):
        result = kernels.binary(op, a, b)
        assert result.dtype == np.bool_
        np.testing.assert_array_equal(result, reference(a, b))


def test_binary_pow_is_within_an_ulp_of_a_double_reference():
    a = np.abs(RNG.standard_normal(2001)).astype(np.float32) + 0.1
    b = RNG.standard_normal(2001).astype(np.float32)
    y = kernels.binary("Pow", a, b)
    assert float(np.max(ulp_error(y, np.power(a.astype(np.float64), b.astype(np.float64)), np.float32))) <= 1.0


@pytest.mark.parametrize("dtype,tolerance", [(np.float32, 1e-4), (np.float64, 1e-12)])
@pytest.mark.parametrize("trans_a,trans_b", [(False, False), (True, False), (False, True), (True, True)])
def test_gemm_equals_a_double_reference(dtype, tolerance, trans_a, trans_b):
    m, n, k = 67, 45, 129
    a = RNG.standard_normal((k, m) if trans_a else (m, k)).astype(dtype)
    b = RNG.standard_normal((n, k) if trans_b else (k, n)).astype(dtype)
    c0 = RNG.standard_normal((m, n)).astype(dtype)
    out = c0.copy()
    op_a = a.T if trans_a else a
    op_b = b.T if trans_b else b
    result = kernels.gemm(a, b, out=out, alpha=0.5, beta=2.0, trans_a=trans_a, trans_b=trans_b)
    assert result is out
    reference = 0.5 * op_a.astype(np.float64) @ op_b.astype(np.float64) + 2.0 * c0.astype(np.float64)
    scale = np.abs(op_a).astype(np.float64) @ np.abs(op_b).astype(np.float64) + 2 * np.abs(c0)
    assert float(np.max(np.abs(result - reference) / scale)) <= tolerance


def test_gemm_without_out_allocates_and_checks_dimensions():
    a = RNG.standard_normal((8, 5))
    b = RNG.standard_normal((5, 3))
    np.testing.assert_allclose(kernels.gemm(a, b), a @ b, rtol=1e-12, atol=1e-12)
    with pytest.raises(tunekit.Error, match="inner dimensions differ"):
        kernels.gemm(a, np.ascontiguousarray(b.T))
    with pytest.raises(tunekit.Error, match="beta needs out"):
        kernels.gemm(a, b, beta=1.0)


def test_bad_arrays_are_refused_not_copied():
    x = operand("Exp", np.float32)
    with pytest.raises(tunekit.Error, match="C-contiguous") as raised:
        kernels.unary("Exp", x[::2])
    assert raised.value.code == "INVALID_VALUE"
    with pytest.raises(tunekit.Error, match="dtype complex128"):
        kernels.unary("Exp", x.astype(np.complex128))
    with pytest.raises(tunekit.Error, match="wrong shape"):
        kernels.unary("Exp", x, out=np.empty(3, np.float32))
    with pytest.raises(tunekit.Error, match="must have dtype float32"):
        kernels.unary("Exp", x, out=np.empty_like(x, dtype=np.float64))
    read_only = np.empty_like(x)
    read_only.flags.writeable = False
    with pytest.raises(tunekit.Error, match="read-only"):
        kernels.unary("Exp", x, out=read_only)
    with pytest.raises(tunekit.Error, match="unknown unary operation 'Cosh'"):
        kernels.unary("Cosh", x)
    with pytest.raises(tunekit.Error, match="do not broadcast|broadcast"):
        kernels.binary("Add", x, np.ones(3, np.float32))
    with pytest.raises(tunekit.Error, match="path 'fast'"):
        kernels.unary("Exp", x, path="fast")
