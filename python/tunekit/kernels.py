"""tunekit_cpu's kernels on NumPy arrays, without copies.

The arrays must be C-contiguous (a kernel reads and writes their own memory;
an array that is not is refused, not copied); `out`, when given, is written in
place and returned. Each call runs the kernel with the configuration of
`session` (default: a session of the registry as it is now, made again after
a cache load or a calibration publishes new values). The GIL is released
while a kernel runs.

    unary("Exp", x)                  Abs, Not, Neg, Exp, Log, Sqrt, Relu, Sigmoid, Tanh, Erf
    binary("Add", a, b)              Add, Sub, Mul, Div, Max, Min, Pow, And, Or, Xor, Equal, Less,
                                     Greater; NumPy broadcasting
    gemm(a, b)                       alpha * op(a) @ op(b) + beta * out, float32 or float64

`path` forces an execution path ("serial_scalar", "serial_simd",
"parallel_simd"; default "auto": the configuration's choice) and `threads`
the parallel team (0: the configuration's).
"""

from . import _tunekit

_default = {"generation": None, "session": None}


def _session(session):
    if session is not None:
        return session
    generation = _tunekit.registry_generation()
    if _default["generation"] != generation:
        _default["session"] = _tunekit.Session()
        _default["generation"] = generation
    return _default["session"]


def max_ulp(op, element_type):
    """The documented maximum error of unary `op` on `element_type` ("float",
    "double", "float16", ...), in units in the last place of that type at the
    exact result (0 for the exact operations)."""
    return _tunekit.max_ulp(op, element_type)


def unary(op, x, out=None, path="auto", threads=0, session=None):
    """out = op(x), elementwise, for float32, float64, float16, int32, int64
    or bool arrays (the types the operation supports)."""
    return _tunekit.unary(_session(session), op, x, out, path, threads)


def binary(op, a, b, out=None, path="auto", threads=0, session=None):
    """out = op(a, b), elementwise with NumPy broadcasting; a and b have one
    dtype, comparisons give bool."""
    return _tunekit.binary(_session(session), op, a, b, out, path, threads)


def gemm(a, b, out=None, alpha=1.0, beta=0.0, trans_a=False, trans_b=False, threads=0, session=None):
    """alpha * op(a) @ op(b) + beta * out for 2-D float32 or float64 arrays,
    op(x) = x.T when trans_x; beta needs out."""
    return _tunekit.gemm(_session(session), a, b, out, alpha, beta, trans_a, trans_b, threads)
