// Saxpy in the application: the configuration is resolved once per element
// type before the first run (as a kernel library does it at start-up), then
// one run on random data is checked against a double-precision reference.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "checks.hpp"
#include "consumer/saxpy.hpp"

namespace consumer_app {
namespace {

namespace tuning = tunekit::tuning;
using tunekit::DataType;

// Large enough that calibrated crossovers matter, small enough to be quick.
constexpr std::int64_t kElements = 1'000'003;
constexpr double kAlpha = -0.625;

std::string describe(const tuning::Resolution& resolution) {
  std::string text;
  for (const auto& [name, value] : resolution.parameters.values) {
    text += fmt::format("{}{}={}", text.empty() ? "" : " ", name, value.to_text());
  }
  text += fmt::format(" (source: {}", tuning::to_string(resolution.source));
  if (!resolution.profile_name.empty()) text += fmt::format(", profile '{}'", resolution.profile_name);
  return text + ")";
}

// |out - (alpha x + y)| within two roundings of the operands' magnitudes.
template <typename T>
int compare(const tuning::Tensor& x, const tuning::Tensor& y, const tuning::Tensor& out, const std::string& type) {
  const double epsilon = std::numeric_limits<T>::epsilon();
  for (std::int64_t i = 0; i < out.size(); ++i) {
    const double a = static_cast<double>(x.as<T>()[i]), b = static_cast<double>(y.as<T>()[i]);
    const double expected = kAlpha * a + b;
    const double actual = static_cast<double>(out.as<T>()[i]);
    const double bound = 2 * epsilon * (std::fabs(kAlpha * a) + std::fabs(b));
    if (!(std::fabs(actual - expected) <= bound)) {
      fmt::print(stderr, "saxpy {}: element {}: got {} expected {} (allowed error {})\n", type, i, actual, expected,
                 bound);
      return 1;
    }
  }
  return 0;
}

int check_type(const tuning::TuningSession& session, DataType type) {
  const std::string name(tunekit::core::to_string(type));
  const tuning::KernelTuningKey key = consumer::saxpy_key(type);
  fmt::print("saxpy {}: {}\n", name, describe(session.resolve(key)));
  tunekit::Result<consumer::SaxpyTuning> config = session.try_configure(consumer::saxpy_binding(), key);
  if (!config.ok()) {
    fmt::print(stderr, "saxpy {}: {}\n", name, config.error().message());
    return 1;
  }
  const consumer::SaxpyKernel kernel(*config);
  auto x = tuning::RandnTensor(type, {kElements}, 11);
  auto y = tuning::RandnTensor(type, {kElements}, 12);
  auto out = tuning::EmptyTensor(type, {kElements});
  for (auto* t : {&x, &y, &out}) {
    if (!t->ok()) return fmt::print(stderr, "saxpy {}: {}\n", name, t->error().message()), 1;
  }
  tuning::poison(*out);
  if (tunekit::Error e = kernel.run(kAlpha, *x, *y, *out); e.is_bad()) {
    return fmt::print(stderr, "saxpy {}: {}\n", name, e.message()), 1;
  }
  if (int failed = type == DataType::FLOAT ? compare<float>(*x, *y, *out, name) : compare<double>(*x, *y, *out, name)) {
    return failed;
  }
  fmt::print("saxpy {}: {} elements on the {} path match the double-precision reference\n", name, kElements,
             consumer::to_string(kernel.choose_path(kElements)));
  return 0;
}

}  // namespace

int check_saxpy(const tuning::TuningSession& session) {
  int failed = 0;
  for (DataType type : consumer::kSaxpyOpenmpSimdElementTypes) failed |= check_type(session, type);
  return failed;
}

}  // namespace consumer_app
