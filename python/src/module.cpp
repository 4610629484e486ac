// The extension module tunekit._tunekit, which the tunekit package wraps.
// Importing it registers tunekit_cpu (its schemas, committed profiles and
// calibration functions) with the global registries, as the tunekit tool
// does, so that the cache, calibration, sessions and kernels work at once.
#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "tunekit/core/version.hpp"
#include "tunekit/cpu/register.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_tunekit, m) {
  m.doc() = "tunekit's C++ core; use the tunekit package";
  m.attr("version") = tunekit::kVersion;
  static py::exception<tunekit::python::ErrorRaised> error(m, "Error", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr raised) {
    try {
      if (raised) std::rethrow_exception(raised);
    } catch (const tunekit::python::ErrorRaised& e) {
      const py::object type = error;  // calling the type itself, not exception<>::operator(), which raises
      py::object instance = type(e.what());
      instance.attr("code") = e.code();
      PyErr_SetObject(error.ptr(), instance.ptr());
    }
  });
  py::register_exception<tunekit::TuningError>(m, "TuningError", PyExc_RuntimeError);
  tunekit::cpu::register_tunekit_cpu();
  tunekit::python::bind_platform(m);
  tunekit::python::bind_tuning(m);
  tunekit::python::bind_kernels(m);
  tunekit::python::bind_graph(m);
}
