// What the files of the extension module tunekit._tunekit share: one bind_*
// function per area, the exception a tunekit Error becomes, and the bridge
// that hands nlohmann::json documents to Python as dicts and lists.
#pragma once

#include <pybind11/pybind11.h>

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "tunekit/core/error.hpp"
#include "tunekit/core/value.hpp"

namespace tunekit::python {

namespace py = pybind11;

// A failed tunekit::Error, raised in Python as tunekit.Error (a RuntimeError)
// with the C++ message; `code` is the ErrorCode's name ("INVALID_VALUE").
class ErrorRaised : public std::runtime_error {
 public:
  explicit ErrorRaised(const Error& error);
  const std::string& code() const noexcept { return code_; }

 private:
  std::string code_;
};

// Throws ErrorRaised when `error` is bad.
void raise_if_bad(const Error& error);

// A JSON document as Python objects (dict, list, str, int, float, bool, None).
py::object to_python(const nlohmann::json& document);
// A tuning value as a Python int, float, bool or str, and back (INVALID_VALUE
// for another Python type).
py::object to_python(const Value& value);
Value to_value(const py::handle& object);

void bind_platform(py::module_& m);
void bind_tuning(py::module_& m);
void bind_kernels(py::module_& m);
void bind_graph(py::module_& m);

}  // namespace tunekit::python
