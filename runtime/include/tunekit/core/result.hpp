// Result<T>: a value or the Error that prevented it (std::expected is not in
// GCC 12). Access to the wrong alternative is a programming error caught by
// an assertion in debug builds; callers check ok() first.
#pragma once

#include <cassert>
#include <type_traits>
#include <utility>
#include <variant>

#include "tunekit/core/error.hpp"

namespace tunekit::core {

template <typename T>
class [[nodiscard]] Result {
  static_assert(!std::is_same_v<T, Error>, "use Error directly");

 public:
  Result(T value) : data_(std::in_place_index<0>, std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Error error) : data_(std::in_place_index<1>, std::move(error)) {  // NOLINT(google-explicit-constructor)
    assert(std::get<1>(data_).is_bad() && "a Result holding an error needs a bad Error");
  }

  bool ok() const noexcept { return data_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<0>(data_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(data_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(data_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  // The error; Error::ok() when the result holds a value.
  Error error() const {
    if (ok()) return Error::ok();
    return std::get<1>(data_);
  }

 private:
  std::variant<T, Error> data_;
};

}  // namespace tunekit::core

namespace tunekit {
using core::Result;
}  // namespace tunekit
