// A kernel resolves its configuration once; later runs must not touch the
// registry. The access counters prove it.
#include <gtest/gtest.h>

#include <numeric>
#include <thread>
#include <vector>

#include "tunekit/tuning/per_type_tuning.hpp"
#include "tuning_fixtures.hpp"

namespace tunekit::tuning {
namespace {

using testing::gemm_binding;
using testing::gemm_key;
using testing::GemmTuning;
using testing::milan;
using testing::params;

// A kernel of the shape the spec describes: configured once at first run,
// immutable afterwards.
class BlockedSum {
 public:
  explicit BlockedSum(TuningSession session) : session_(std::move(session)) {}
  double run(const std::vector<double>& input) {
    if (!config_) config_ = session_.configure(gemm_binding(), gemm_key());
    double total = 0;
    const auto block = static_cast<std::size_t>(config_->tile_k);
    for (std::size_t begin = 0; begin < input.size(); begin += block) {
      const std::size_t end = std::min(input.size(), begin + block);
      total += std::accumulate(input.begin() + static_cast<std::ptrdiff_t>(begin),
                               input.begin() + static_cast<std::ptrdiff_t>(end), 0.0);
    }
    return total;
  }
  std::int64_t block() const { return config_ ? config_->tile_k : -1; }

 private:
  TuningSession session_;
  std::optional<GemmTuning> config_;
};

class HotPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    registry.register_schema(gemm_binding().schema(gemm_key()));
    registry.register_schema(gemm_binding().schema(gemm_key(DataType::DOUBLE)));
    CpuSelector s;
    s.vendor = "AMD";
    s.family = 25;
    s.models = {1};
    registry.register_profile({"milan", s, params(gemm_key(), {{"algorithm.tile_k", 64}}), 0});
  }
  TuningSession session() {
    TuningSessionOptions o;
    o.registry = &registry;
    o.execution = milan();
    return TuningSession::Create(o);
  }
  KernelTuningRegistry registry;
};

TEST_F(HotPathTest, FirstRunAdvancesTheCountersAndLaterRunsDoNot) {
  BlockedSum kernel(session());
  std::vector<double> input(1000);
  std::iota(input.begin(), input.end(), 1.0);
  const AccessCounts before_first = registry.access_counts();
  EXPECT_DOUBLE_EQ(kernel.run(input), 500500.0);
  const AccessCounts after_first = registry.access_counts();
  EXPECT_GT(after_first.resolutions, before_first.resolutions);
  EXPECT_GT(after_first.snapshot_lookups, before_first.snapshot_lookups);
  EXPECT_EQ(kernel.block(), 64);
  for (int run = 0; run < 100; ++run) EXPECT_DOUBLE_EQ(kernel.run(input), 500500.0);
  EXPECT_EQ(registry.access_counts(), after_first);
}

TEST_F(HotPathTest, PerTypeConfigurationIsPopulatedOnceAndThenReadOnly) {
  PerTypeTuning<GemmTuning> tuning(session(), gemm_binding(), [](DataType t) { return gemm_key(t); });
  EXPECT_FALSE(tuning.populated(DataType::FLOAT));
  const GemmTuning& f32 = tuning.get(DataType::FLOAT);
  EXPECT_EQ(f32.tile_k, 64);
  const AccessCounts after_float = registry.access_counts();
  EXPECT_EQ(&tuning.get(DataType::FLOAT), &f32);
  EXPECT_EQ(registry.access_counts(), after_float);
  const GemmTuning& f64 = tuning.get(DataType::DOUBLE);  // a new type resolves once
  EXPECT_EQ(f64.tile_k, 256);
  const AccessCounts after_double = registry.access_counts();
  EXPECT_GT(after_double.resolutions, after_float.resolutions);
  for (int i = 0; i < 10; ++i) {
    (void)tuning.get(DataType::FLOAT);
    (void)tuning.get(DataType::DOUBLE);
  }
  EXPECT_EQ(registry.access_counts(), after_double);
}

TEST_F(HotPathTest, PerTypeConfigurationIsThreadSafe) {
  PerTypeTuning<GemmTuning> tuning(session(), gemm_binding(), [](DataType t) { return gemm_key(t); });
  const std::uint64_t resolutions_before = registry.access_counts().resolutions;
  std::vector<const GemmTuning*> seen(8);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < seen.size(); ++i) {
    threads.emplace_back([&, i] { seen[i] = &tuning.get(i % 2 ? DataType::FLOAT : DataType::DOUBLE); });
  }
  for (auto& t : threads) t.join();
  for (std::size_t i = 2; i < seen.size(); ++i) EXPECT_EQ(seen[i], seen[i % 2]);
  EXPECT_EQ(seen[1]->tile_k, 64);
  EXPECT_EQ(seen[0]->tile_k, 256);
  // Exactly one resolution per type, whatever the interleaving.
  EXPECT_EQ(registry.access_counts().resolutions, resolutions_before + 2);
}

}  // namespace
}  // namespace tunekit::tuning
