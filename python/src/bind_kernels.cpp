// The kernels of tunekit_cpu on NumPy arrays, without copies: the arrays'
// own memory is the kernels' input and output (a C-contiguous array is
// required, and refused otherwise rather than copied), and the GIL is
// released while a kernel runs. Each call takes the kernel of a session, so
// it runs with the configuration that session resolved.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "bindings.hpp"
#include "tunekit/cpu/binary_elementwise.hpp"
#include "tunekit/cpu/gemm.hpp"
#include "tunekit/cpu/unary_accuracy.hpp"
#include "tunekit/cpu/unary_elementwise.hpp"
#include "tunekit/tuning/tuning_session.hpp"

namespace tunekit::python {
namespace {

[[noreturn]] void bad(const std::string& message) { throw ErrorRaised(Error(ErrorCode::INVALID_VALUE, message)); }

DataType data_type_of(const py::array& array, const char* name) {
  const py::dtype dtype = array.dtype();
  const char kind = dtype.kind();
  const auto size = dtype.itemsize();
  if (kind == 'f' && size == 4) return DataType::FLOAT;
  if (kind == 'f' && size == 8) return DataType::DOUBLE;
  if (kind == 'f' && size == 2) return DataType::FLOAT16;
  if (kind == 'i' && size == 4) return DataType::INT32;
  if (kind == 'i' && size == 8) return DataType::INT64;
  if (kind == 'b') return DataType::BOOL;
  bad(std::string(name) + ": dtype " + py::str(static_cast<const py::handle&>(dtype)).cast<std::string>() +
      " is not one tunekit's kernels take (float32, float64, float16, int32, int64, bool)");
}

py::dtype numpy_dtype(DataType type) {
  switch (type) {
    case DataType::FLOAT: return py::dtype("float32");
    case DataType::DOUBLE: return py::dtype("float64");
    case DataType::FLOAT16: return py::dtype("float16");
    case DataType::INT32: return py::dtype("int32");
    case DataType::INT64: return py::dtype("int64");
    case DataType::BOOL: return py::dtype("bool");
    default: bad("no NumPy dtype for " + std::string(core::to_string(type)));
  }
}

tuning::Shape shape_of(const py::array& array) {
  return tuning::Shape(array.shape(), array.shape() + array.ndim());
}

void require_contiguous(const py::array& array, const char* name, bool written) {
  if (!(array.flags() & py::array::c_style)) {
    bad(std::string(name) + " must be C-contiguous (tunekit's kernels use the array's own memory and never copy; "
                            "numpy.ascontiguousarray makes such a copy)");
  }
  if (written && !array.writeable()) bad(std::string(name) + " is read-only");
}

// A tensor over the array's memory, which the tensor does not own.
tuning::Tensor view(const py::array& array, DataType type) {
  tuning::Tensor t;
  t.type = type;
  t.shape = shape_of(array);
  t.buffer = platform::DeviceBuffer(const_cast<void*>(array.data()), static_cast<std::size_t>(array.nbytes()), nullptr);
  return t;
}

// `out` checked against the shape and type it must have, or a new array.
py::array output(const std::optional<py::array>& out, const tuning::Shape& shape, DataType type) {
  if (!out) return py::array(numpy_dtype(type), shape);
  require_contiguous(*out, "out", true);
  if (shape_of(*out) != shape) bad("out has the wrong shape");
  if (data_type_of(*out, "out") != type) {
    bad("out must have dtype " + py::str(static_cast<const py::handle&>(numpy_dtype(type))).cast<std::string>() + ", not " + py::str(static_cast<const py::handle&>(out->dtype())).cast<std::string>());
  }
  return *out;
}

cpu::ExecutionPath path_of(const std::string& name) {
  if (name == "auto") return cpu::ExecutionPath::AUTO;
  if (name == "serial_scalar") return cpu::ExecutionPath::SERIAL_SCALAR;
  if (name == "serial_simd") return cpu::ExecutionPath::SERIAL_SIMD;
  if (name == "parallel_simd") return cpu::ExecutionPath::PARALLEL_SIMD;
  bad("path '" + name + "' is not auto, serial_scalar, serial_simd or parallel_simd");
}

cpu::UnaryOp unary_op_of(const std::string& name) {
  for (cpu::UnaryOp op : cpu::kAllUnaryOps) {
    if (cpu::to_string(op) == name) return op;
  }
  bad("unknown unary operation '" + name + "' (Abs, Not, Neg, Exp, Log, Sqrt, Relu, Sigmoid, Tanh, Erf)");
}

template <typename T>
T unwrap(Result<T> result) {
  raise_if_bad(result.ok() ? Error::ok() : result.error());
  return std::move(result).value();
}

py::array unary(const tuning::TuningSession& session, const std::string& op_name, const py::array& x,
                const std::optional<py::array>& out, const std::string& path, int threads) {
  const cpu::UnaryOp op = unary_op_of(op_name);
  require_contiguous(x, "x", false);
  const DataType type = data_type_of(x, "x");
  const cpu::UnaryElementwiseKernel kernel = unwrap(cpu::UnaryElementwiseKernel::for_session(session, op, type));
  py::array result = output(out, shape_of(x), type);
  const tuning::Tensor input = view(x, type);
  tuning::Tensor written = view(result, type);
  Error e;
  {
    py::gil_scoped_release unlocked;
    e = kernel.run(input, written, path_of(path), threads);
  }
  raise_if_bad(e);
  return result;
}

py::array binary(const tuning::TuningSession& session, const std::string& op_name, const py::array& a,
                 const py::array& b, const std::optional<py::array>& out, const std::string& path, int threads) {
  const std::optional<cpu::BinaryOp> op = cpu::parse_binary_op(op_name);
  if (!op) bad("unknown binary operation '" + op_name + "'");
  require_contiguous(a, "a", false);
  require_contiguous(b, "b", false);
  const DataType type = data_type_of(a, "a");
  if (data_type_of(b, "b") != type) bad("a and b must have one dtype");
  const cpu::BinaryElementwiseKernel kernel = unwrap(cpu::BinaryElementwiseKernel::for_session(session, *op, type));
  const tuning::Shape shape = unwrap(tuning::broadcast_shapes(shape_of(a), shape_of(b)));
  py::array result = output(out, shape, cpu::output_type(*op, type));
  const tuning::Tensor ta = view(a, type), tb = view(b, type);
  tuning::Tensor written = view(result, cpu::output_type(*op, type));
  Error e;
  {
    py::gil_scoped_release unlocked;
    e = kernel.run(ta, tb, written, path_of(path), threads);
  }
  raise_if_bad(e);
  return result;
}

// C = alpha * op(A) op(B) + beta * C on row-major (C-contiguous) 2-D arrays.
template <typename T>
void gemm_run(const cpu::GemmKernel& kernel, bool trans_a, bool trans_b, std::int64_t m, std::int64_t n,
              std::int64_t k, double alpha, const py::array& a, const py::array& b, double beta, py::array& c,
              int threads, Error& e) {
  const auto t = [](bool yes) { return yes ? cpu::Transpose::YES : cpu::Transpose::NO; };
  e = kernel.run(t(trans_a), t(trans_b), m, n, k, static_cast<T>(alpha), static_cast<const T*>(a.data()),
                 a.shape(1), static_cast<const T*>(b.data()), b.shape(1), static_cast<T>(beta),
                 static_cast<T*>(c.mutable_data()), n, cpu::GemmPath::AUTO, threads);
}

py::array gemm(const tuning::TuningSession& session, const py::array& a, const py::array& b,
               const std::optional<py::array>& out, double alpha, double beta, bool trans_a, bool trans_b,
               int threads) {
  require_contiguous(a, "a", false);
  require_contiguous(b, "b", false);
  if (a.ndim() != 2 || b.ndim() != 2) bad("a and b must be 2-D");
  const DataType type = data_type_of(a, "a");
  if (type != DataType::FLOAT && type != DataType::DOUBLE) bad("gemm takes float32 or float64 arrays");
  if (data_type_of(b, "b") != type) bad("a and b must have one dtype");
  const std::int64_t m = trans_a ? a.shape(1) : a.shape(0);
  const std::int64_t k = trans_a ? a.shape(0) : a.shape(1);
  const std::int64_t kb = trans_b ? b.shape(1) : b.shape(0);
  const std::int64_t n = trans_b ? b.shape(0) : b.shape(1);
  if (k != kb) bad("the inner dimensions differ: op(a) is " + std::to_string(m) + " x " + std::to_string(k) +
                   ", op(b) is " + std::to_string(kb) + " x " + std::to_string(n));
  if (!out && beta != 0.0) bad("beta needs out: the C it scales");
  py::array c = output(out, {m, n}, type);
  const cpu::GemmKernel kernel = unwrap(cpu::GemmKernel::for_session(session, type));
  Error e;
  {
    py::gil_scoped_release unlocked;
    if (type == DataType::FLOAT) {
      gemm_run<float>(kernel, trans_a, trans_b, m, n, k, alpha, a, b, beta, c, threads, e);
    } else {
      gemm_run<double>(kernel, trans_a, trans_b, m, n, k, alpha, a, b, beta, c, threads, e);
    }
  }
  raise_if_bad(e);
  return c;
}

}  // namespace

void bind_kernels(py::module_& m) {
  m.def("unary", &unary, py::arg("session"), py::arg("op"), py::arg("x"), py::arg("out") = py::none(),
        py::arg("path") = "auto", py::arg("threads") = 0);
  m.def("binary", &binary, py::arg("session"), py::arg("op"), py::arg("a"), py::arg("b"), py::arg("out") = py::none(),
        py::arg("path") = "auto", py::arg("threads") = 0);
  m.def("gemm", &gemm, py::arg("session"), py::arg("a"), py::arg("b"), py::arg("out") = py::none(),
        py::arg("alpha") = 1.0, py::arg("beta") = 0.0, py::arg("trans_a") = false, py::arg("trans_b") = false,
        py::arg("threads") = 0);
  m.def(
      "max_ulp",
      [](const std::string& op, const std::string& element_type) {
        const auto type = core::parse_data_type(element_type);
        if (!type) bad("unknown data type '" + element_type + "'");
        return cpu::max_ulp(unary_op_of(op), *type);
      },
      py::arg("op"), py::arg("element_type"),
      "The documented maximum error of a unary operation, in ULP of the element type at the exact result");
  m.def("registry_generation", [] { return tuning::KernelTuningRegistry::global().generation_number(); });
}

}  // namespace tunekit::python
