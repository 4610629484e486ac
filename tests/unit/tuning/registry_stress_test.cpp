// Sessions created and resolved on eight threads while a ninth registers
// profiles. Each registration publishes the float and double profiles of one
// batch together, so a session that sees one without the other, or values
// that do not belong to its generation number, saw a torn generation.
// Run under the tsan preset to check for data races.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "tunekit/tuning/tuning_session.hpp"
#include "tuning_fixtures.hpp"

namespace tunekit::tuning {
namespace {

using testing::gemm_binding;
using testing::gemm_key;
using testing::milan;
using testing::params;

TEST(RegistryStress, ConcurrentSessionsAlwaysSeeAConsistentGeneration) {
  KernelTuningRegistry registry;
  registry.register_schema(gemm_binding().schema(gemm_key(DataType::FLOAT)));
  registry.register_schema(gemm_binding().schema(gemm_key(DataType::DOUBLE)));
  const std::uint64_t base_generation = registry.generation_number();
  constexpr int kBatches = 150;

  CpuSelector milan_selector;
  milan_selector.vendor = "AMD";
  milan_selector.family = 25;
  milan_selector.models = {1};

  std::atomic<bool> done{false};
  std::atomic<int> sessions{0};
  std::atomic<int> inconsistent{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 8; ++t) {
    readers.emplace_back([&] {
      TuningSessionOptions options;
      options.registry = &registry;
      options.execution = milan();
      while (!done.load()) {
        TuningSession session = TuningSession::Create(options);
        const std::int64_t batch = static_cast<std::int64_t>(session.generation() - base_generation);
        const std::int64_t expected = batch == 0 ? 256 : 8 * batch;
        const auto f32 = session.configure(gemm_binding(), gemm_key(DataType::FLOAT));
        const auto f64 = session.configure(gemm_binding(), gemm_key(DataType::DOUBLE));
        const auto again = session.configure(gemm_binding(), gemm_key(DataType::FLOAT));
        if (f32.tile_k != expected || f64.tile_k != expected || again.tile_k != expected) inconsistent.fetch_add(1);
        sessions.fetch_add(1);
      }
    });
  }
  std::thread writer([&] {
    for (int batch = 1; batch <= kBatches; ++batch) {
      std::vector<KernelTuningProfile> both;
      for (DataType t : {DataType::FLOAT, DataType::DOUBLE}) {
        // A higher priority each batch: the newest batch wins resolution.
        both.push_back({"batch" + std::to_string(batch) + "-" + std::string(core::to_string(t)), milan_selector,
                        params(gemm_key(t), {{"algorithm.tile_k", std::int64_t{8} * batch}}), batch});
      }
      ASSERT_TRUE(registry.try_register_profiles(std::move(both)).is_good());
    }
    done.store(true);
  });
  writer.join();
  for (auto& r : readers) r.join();
  EXPECT_EQ(inconsistent.load(), 0);
  EXPECT_GE(sessions.load(), 8);
  EXPECT_EQ(registry.generation_number(), base_generation + kBatches);
}

}  // namespace
}  // namespace tunekit::tuning
