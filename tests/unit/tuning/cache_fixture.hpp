// The fixture of the cache update and load tests: a scratch cache file, a
// registry with the Gemm schemas, and options for a hand-built Milan.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "cache_test_support.hpp"
#include "tunekit/tuning/kernel_tuning_cache.hpp"

namespace tunekit::tuning::testing {

namespace fs = std::filesystem;

inline KernelTuningKey with_abi(KernelTuningKey key, std::uint32_t abi) {
  key.tuning_abi = abi;
  return key;
}

class CacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (DataType t : {DataType::FLOAT, DataType::DOUBLE}) register_schemas(registry, t);
    options.path = path;
    options.registry = &registry;
    options.execution = milan();
    options.lock_timeout = std::chrono::milliseconds(2000);
  }

  static void register_schemas(KernelTuningRegistry& r, DataType t) {
    ASSERT_TRUE(r.try_register_schema(gemm_binding().schema(gemm_key(t))).is_good());
  }

  KernelTuningCacheUpdateReport update(std::vector<CalibratedKernelProfile> profiles,
                                       const KernelTuningCacheOptions* custom = nullptr) {
    return UpdateKernelTuningCache(profiles, custom ? *custom : options);
  }

  // Loads into a fresh registry with the same schemas, as a second process would.
  KernelTuningCacheLoadReport load_fresh(KernelTuningRegistry& fresh, const KernelCalibrationSelection& selection = {}) {
    for (DataType t : {DataType::FLOAT, DataType::DOUBLE}) register_schemas(fresh, t);
    KernelTuningCacheOptions o = options;
    o.registry = &fresh;
    return LoadKernelTuningCache(selection, o);
  }

  // Writes entries as they are, bypassing validation, to set up bad files.
  void write_entries(std::vector<KernelTuningCacheEntry> entries) {
    fs::create_directories(path.parent_path());
    write_text(path, format_kernel_tuning_cache(std::move(entries)));
  }

  ScratchDir dir;
  fs::path path = dir.path() / "sub" / "kernel_tuning.toml";
  KernelTuningRegistry registry;
  KernelTuningCacheOptions options;
};

inline KernelTuningCacheEntry entry(const CalibratedKernelProfile& profile) {
  return KernelTuningCacheEntry::from_profile(profile);
}

}  // namespace tunekit::tuning::testing
