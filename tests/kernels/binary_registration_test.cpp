// register_tunekit_cpu() registers a schema and a calibration function for
// every key tuning.toml declares, binary ones included, with the binary
// schema's defaults.
#include <gtest/gtest.h>

#include "tunekit/cpu/binary_elementwise.hpp"
#include "tunekit/cpu/register.hpp"
#include "tunekit/tuning/tuning_spec.hpp"

namespace tunekit::cpu {
namespace {

TEST(BinaryRegistration, EveryDeclaredKeyHasASchemaAndACalibrationFunction) {
  auto spec = tuning::ReadTuningSpec(TUNEKIT_CPU_SPEC_PATH);
  ASSERT_TRUE(spec.ok()) << spec.error().message();
  tuning::KernelTuningRegistry registry;
  tuning::KernelCalibrationRegistry functions;
  register_tunekit_cpu(registry, functions);
  EXPECT_EQ(registry.snapshot()->keys().size(), spec->keys().size());
  EXPECT_EQ(functions.entries().size(), spec->keys().size());
  std::size_t binary = 0;
  for (const tuning::KernelTuningKey& key : spec->keys()) {
    EXPECT_NE(registry.snapshot()->schema(key), nullptr) << key.to_string();
    const std::optional<BinaryOp> op = parse_binary_op(key.kernel);
    if (!op) continue;
    ++binary;
    EXPECT_EQ(binary_key(*op, key.element_type), key);
    EXPECT_TRUE(supports(*op, key.element_type)) << key.to_string();
    EXPECT_EQ(*spec->schema(key), binary_elementwise_binding().schema(key)) << key.to_string();
  }
  EXPECT_EQ(binary, 66u);
}

TEST(BinaryRegistration, TheBinaryDefaultsAreThoseOfTheSpec) {
  const BinaryElementwiseTuning defaults;
  EXPECT_EQ(defaults.simd_min_elements, 32);
  EXPECT_EQ(defaults.parallel_minimum_elements, 1 << 20);
  EXPECT_EQ(defaults.maximum_threads, 8);
}

}  // namespace
}  // namespace tunekit::cpu
