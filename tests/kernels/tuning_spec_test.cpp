// tunekit_cpu's tuning spec (kernels/cpu/tuning.toml) and the header generated
// from it: the generated schemas are exactly the rules and defaults the
// unary kernels had by hand, and equal what the runtime reads from the spec.
#include <gtest/gtest.h>

#include <algorithm>

#include "tunekit/cpu/binary_elementwise.hpp"
#include "tunekit/cpu/gemm.hpp"
#include "tunekit/cpu/register.hpp"
#include "tunekit/cpu/unary_elementwise.hpp"
#include "tunekit/tuning/tuning_spec.hpp"

namespace tunekit::cpu {
namespace {

using tuning::ParameterSpec;

TEST(TunekitCpuSpec, GeneratedSchemaHasTheUnaryDefaultsAndRules) {
  const tuning::KernelTuningKey key = unary_key(UnaryOp::ABS, DataType::FLOAT);
  const tuning::KernelTuningSchema expected(
      key, {ParameterSpec{"algorithm.simd_min_elements", ValueType::INT64, Value(32), 1.0, {}, {}, {}, false,
                          "below this many elements the scalar loop runs"},
            ParameterSpec{"parallel.minimum_elements", ValueType::INT64, Value(1 << 20), 1.0, {}, {}, {}, false,
                          "from this many elements the loop runs in parallel"},
            ParameterSpec{"parallel.maximum_threads", ValueType::INT64, Value(8), 1.0, 4096.0, {}, {}, false,
                          "most threads of the parallel path (never more than OpenMP's thread limit)"}});
  EXPECT_EQ(unary_elementwise_binding().schema(key), expected);
  const UnaryElementwiseTuning defaults;
  EXPECT_EQ(defaults.simd_min_elements, 32);
  EXPECT_EQ(defaults.parallel_minimum_elements, 1 << 20);
  EXPECT_EQ(defaults.maximum_threads, 8);
}

TEST(TunekitCpuSpec, KeysAreTheSupportedOperationsAndTypes) {
  std::vector<tuning::KernelTuningKey> supported;
  for (UnaryOp op : kAllUnaryOps) {
    for (DataType type : core::all_data_types()) {
      if (supports(op, type)) supported.push_back(unary_key(op, type));
    }
  }
  for (BinaryOp op : kAllBinaryOps) {
    for (DataType type : core::all_data_types()) {
      if (supports(op, type)) supported.push_back(binary_key(op, type));
    }
  }
  for (DataType type : {DataType::FLOAT, DataType::DOUBLE, DataType::FLOAT16, DataType::BFLOAT16}) {
    supported.push_back(gemm_key(type));
  }
  std::vector<tuning::KernelTuningKey> keys = tunekit_cpu_tuning_keys();
  std::sort(keys.begin(), keys.end());
  std::sort(supported.begin(), supported.end());
  EXPECT_EQ(keys, supported);
  EXPECT_EQ(unary_key(UnaryOp::NOT, DataType::BOOL),
            (tuning::KernelTuningKey{"tunekit_cpu", "Not", "openmp_simd", DataType::BOOL, platform::DeviceKind::CPU, 1}));
  EXPECT_EQ(unary_key(UnaryOp::SIGMOID, DataType::BFLOAT16),
            (tuning::KernelTuningKey{"tunekit_cpu", "Sigmoid", "openmp_simd", DataType::BFLOAT16,
                                     platform::DeviceKind::CPU, 1}));
  EXPECT_STREQ(kLibraryVersion, "0.1.0");
  for (DataType type : core::all_data_types()) {
    const bool floating = type == DataType::FLOAT || type == DataType::DOUBLE || type == DataType::FLOAT16 ||
                          type == DataType::BFLOAT16;
    const bool abs = floating || type == DataType::INT32 || type == DataType::INT64;
    EXPECT_EQ(supports(UnaryOp::ABS, type), abs) << core::to_string(type);
    EXPECT_EQ(supports(UnaryOp::RELU, type), abs) << core::to_string(type);
    EXPECT_EQ(supports(UnaryOp::EXP, type), floating) << core::to_string(type);
    EXPECT_EQ(supports(UnaryOp::NOT, type), type == DataType::BOOL) << core::to_string(type);
  }
}

TEST(TunekitCpuSpec, SpecReadAtRunTimeEqualsTheGeneratedSchemas) {
  auto spec = tuning::ReadTuningSpec(TUNEKIT_CPU_SPEC_PATH);
  ASSERT_TRUE(spec.ok()) << spec.error().message();
  EXPECT_EQ(spec->library, kTuningLibrary);
  EXPECT_EQ(spec->library_version, kTuningLibraryVersion);
  ASSERT_EQ(spec->keys(), tunekit_cpu_tuning_keys());
  for (const tuning::KernelTuningKey& key : spec->keys()) {
    const bool binary = parse_binary_op(key.kernel).has_value();
    const tuning::KernelTuningSchema generated = key.implementation == "widening" ? gemm_widening_binding().schema(key)
                                                 : key.kernel == "Gemm"            ? gemm_packed_binding().schema(key)
                                                 : binary                          ? binary_elementwise_binding().schema(key)
                                                                                   : unary_elementwise_binding().schema(key);
    EXPECT_EQ(*spec->schema(key), generated) << key.to_string();
  }
}

TEST(TunekitCpuSpec, BindingRejectsValuesOutsideTheRules) {
  UnaryElementwiseTuning config;
  const auto key = unary_key(UnaryOp::ABS, DataType::DOUBLE);
  EXPECT_TRUE(unary_elementwise_binding().try_validate_and_apply(config, {key, {{"parallel.maximum_threads", 4097}}}).is_bad());
  EXPECT_TRUE(unary_elementwise_binding().try_validate_and_apply(config, {key, {{"algorithm.simd_min_elements", 0}}}).is_bad());
  EXPECT_EQ(config.maximum_threads, 8);
  ASSERT_TRUE(unary_elementwise_binding().try_validate_and_apply(config, {key, {{"parallel.maximum_threads", 4096}}}).is_good());
  EXPECT_EQ(config.maximum_threads, 4096);
}

}  // namespace
}  // namespace tunekit::cpu
