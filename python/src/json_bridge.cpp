// JSON documents and tuning values handed to Python. Documents go through
// Python's json module: the reports already have their JSON form (the one
// the command-line tool prints), so Python sees the same field names.
#include <pybind11/pybind11.h>

#include "bindings.hpp"

namespace tunekit::python {

ErrorRaised::ErrorRaised(const Error& error)
    : std::runtime_error(error.message()), code_(std::string(to_string(error.code()))) {}

void raise_if_bad(const Error& error) {
  if (error.is_bad()) throw ErrorRaised(error);
}

py::object to_python(const nlohmann::json& document) {
  // Imported on every call (sys.modules makes that a lookup): a py::object
  // kept in a static would be released after the interpreter has finished.
  return py::module_::import("json").attr("loads")(document.dump());
}

py::object to_python(const Value& value) {
  if (auto i = value.as_int()) return py::int_(*i);
  if (auto d = value.as_double()) return py::float_(*d);
  if (auto b = value.as_bool()) return py::bool_(*b);
  return py::str(*value.as_string());
}

Value to_value(const py::handle& object) {
  // bool before int: Python's bool is an int.
  if (py::isinstance<py::bool_>(object)) return Value(object.cast<bool>());
  if (py::isinstance<py::int_>(object)) return Value(object.cast<std::int64_t>());
  if (py::isinstance<py::float_>(object)) return Value(object.cast<double>());
  if (py::isinstance<py::str>(object)) return Value(object.cast<std::string>());
  throw ErrorRaised(Error(ErrorCode::INVALID_VALUE,
                          "a tuning value must be an int, float, bool or str, not " +
                              std::string(py::str(object.get_type().attr("__name__")))));
}

}  // namespace tunekit::python
