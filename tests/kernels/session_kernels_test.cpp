// Kernels configured for a tuning session (GemmKernel::for_session and the
// elementwise twins): a cache holding calibrations for 1 and 2 threads of
// this processor loads both; a session per thread count gives a kernel that
// takes that count's values (explain() names the profile and rejects the
// other count's) and runs on that many threads, with results checked against
// a double-precision reference on random inputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "support/openmp_thread_limit.hpp"
#include "tunekit/cpu/binary_elementwise.hpp"
#include "tunekit/cpu/gemm.hpp"
#include "tunekit/cpu/register.hpp"
#include "tunekit/cpu/unary_elementwise.hpp"
#include "tunekit/platform/execution_descriptor.hpp"
#include "tunekit/tuning/kernel_tuning_cache.hpp"
#include "tunekit/tuning/tuning_session.hpp"

namespace tunekit::cpu {
namespace {

using ::testing::HasSubstr;
using tuning::KernelTuningParameters;
using tuning::ResolutionSource;
using tuning::TuningSession;
using tuning::TuningSessionOptions;

// This processor, as a run on `threads` threads would describe it.
platform::CpuExecutionDescriptor execution(std::uint32_t threads) {
  platform::CpuExecutionDescriptor e = platform::detect_execution_descriptor();
  e.effective_threads = threads;
  e.requested_threads = threads;
  return e;
}

// A calibrated entry named "<kernel>-<threads>t" for this processor.
tuning::KernelTuningCacheEntry entry(const tuning::KernelTuningKey& key, std::uint32_t threads,
                                     std::map<std::string, tuning::TuningValue> values) {
  tuning::CalibratedKernelProfile p;
  p.name = key.kernel + "-" + std::string(core::to_string(key.element_type)) + "-" + std::to_string(threads) + "t";
  p.parameters = KernelTuningParameters{key, std::move(values)};
  p.execution = execution(threads);
  p.report_digest = "digest-" + p.name;
  p.library_version = kLibraryVersion;
  return tuning::KernelTuningCacheEntry::from_profile(p);
}

// tunekit_cpu's schemas and profiles in a registry of the test's own, and a
// cache with calibrations for 1 and 2 threads loaded into it by a process
// that runs on 1 thread.
class SessionKernels : public ::testing::Test {
 protected:
  void SetUp() override {
    register_tunekit_cpu(registry, functions);
    const std::string text = tuning::format_kernel_tuning_cache({
        entry(gemm_packed_key(DataType::FLOAT), 1,
              {{"algorithm.tile_m", std::int64_t{48}}, {"algorithm.tile_k", std::int64_t{128}}}),
        entry(gemm_packed_key(DataType::FLOAT), 2,
              {{"algorithm.tile_m", std::int64_t{96}},
               {"algorithm.tile_k", std::int64_t{64}},
               {"parallel.fmas_per_work_unit", std::int64_t{4096}}}),
        entry(gemm_widening_key(DataType::FLOAT16), 1, {{"conversion.parallel_minimum_elements", std::int64_t{1 << 22}}}),
        entry(gemm_widening_key(DataType::FLOAT16), 2, {{"conversion.parallel_minimum_elements", std::int64_t{1024}}}),
        entry(unary_key(UnaryOp::ABS, DataType::FLOAT), 1,
              {{"algorithm.simd_min_elements", std::int64_t{16}}, {"parallel.minimum_elements", std::int64_t{1 << 22}},
               {"parallel.maximum_threads", std::int64_t{1}}}),
        entry(unary_key(UnaryOp::ABS, DataType::FLOAT), 2,
              {{"algorithm.simd_min_elements", std::int64_t{64}}, {"parallel.minimum_elements", std::int64_t{4096}},
               {"parallel.maximum_threads", std::int64_t{2}}}),
        entry(binary_key(BinaryOp::ADD, DataType::FLOAT), 1,
              {{"parallel.minimum_elements", std::int64_t{1 << 22}}, {"parallel.maximum_threads", std::int64_t{1}}}),
        entry(binary_key(BinaryOp::ADD, DataType::FLOAT), 2,
              {{"parallel.minimum_elements", std::int64_t{2048}}, {"parallel.maximum_threads", std::int64_t{2}}}),
    });
    tuning::KernelTuningCacheOptions options;
    options.registry = &registry;
    options.execution = execution(1);
    loaded = tuning::LoadKernelTuningCacheText(text, "two-thread-counts.toml", {}, options);
  }

  TuningSession session(std::uint32_t threads) const {
    TuningSessionOptions o;
    o.execution = execution(threads);
    o.registry = &registry;
    return TuningSession::Create(std::move(o));
  }

  // explain() picks the entry of the session's thread count and rejects the other's.
  static void expect_calibrated_for(const TuningSession& s, const tuning::KernelTuningKey& key, std::uint32_t threads) {
    const tuning::Resolution r = s.explain(key);
    const std::string prefix = key.kernel + "-" + std::string(core::to_string(key.element_type)) + "-";
    EXPECT_EQ(r.source, ResolutionSource::CALIBRATED) << r.to_string();
    EXPECT_EQ(r.profile_name, prefix + std::to_string(threads) + "t") << r.to_string();
    const std::string other = prefix + std::to_string(threads == 1 ? 2 : 1) + "t";
    bool rejected = false;
    for (const tuning::RejectedCandidate& c : r.rejected) {
      if (c.profile != other) continue;
      rejected = true;
      EXPECT_THAT(c.reason, HasSubstr("measured for another execution")) << c.reason;
      EXPECT_THAT(c.reason, HasSubstr("threads=" + std::to_string(threads == 1 ? 2 : 1))) << c.reason;
    }
    EXPECT_TRUE(rejected) << other << " is not among the rejected candidates:\n" << r.to_string();
  }

  tuning::KernelTuningRegistry registry;
  tuning::KernelCalibrationRegistry functions;
  tuning::KernelTuningCacheLoadReport loaded;
};

template <typename T>
std::vector<T> random_values(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> normal;
  std::vector<T> out(count);
  for (T& x : out) x = static_cast<T>(normal(engine));
  return out;
}

// C = 1.25 A B - 0.5 C by the kernel and by gemm_reference (every dot product
// accumulated in double), element by element within 2 (k + 2) eps of the
// magnitudes' product.
template <typename T>
::testing::AssertionResult matches_reference(const GemmKernel& kernel, std::int64_t m, std::int64_t n, std::int64_t k) {
  const std::vector<T> a = random_values<T>(static_cast<std::size_t>(m * k), 11);
  const std::vector<T> b = random_values<T>(static_cast<std::size_t>(k * n), 12);
  const std::vector<T> c0 = random_values<T>(static_cast<std::size_t>(m * n), 13);
  std::vector<T> got = c0, expected = c0, bound(c0.size());
  for (std::size_t i = 0; i < c0.size(); ++i) bound[i] = std::abs(c0[i]);
  std::vector<T> abs_a(a.size()), abs_b(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) abs_a[i] = std::abs(a[i]);
  for (std::size_t i = 0; i < b.size(); ++i) abs_b[i] = std::abs(b[i]);
  const T alpha = T(1.25), beta = T(-0.5);
  Error e = kernel.run(Transpose::NO, Transpose::NO, m, n, k, alpha, a.data(), k, b.data(), n, beta, got.data(), n);
  if (e.is_bad()) return ::testing::AssertionFailure() << "run: " << e.message();
  if (Error r = gemm_reference(Transpose::NO, Transpose::NO, m, n, k, alpha, a.data(), k, b.data(), n, beta,
                               expected.data(), n);
      r.is_bad()) {
    return ::testing::AssertionFailure() << "reference: " << r.message();
  }
  (void)gemm_reference(Transpose::NO, Transpose::NO, m, n, k, alpha, abs_a.data(), k, abs_b.data(), n, std::abs(beta),
                       bound.data(), n);
  const double eps = std::numeric_limits<T>::epsilon();
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double tolerance = 2.0 * static_cast<double>(k + 2) * eps * static_cast<double>(bound[i]);
    const double diff = std::abs(static_cast<double>(got[i]) - static_cast<double>(expected[i]));
    if (!(diff <= tolerance)) {
      return ::testing::AssertionFailure() << "C[" << i << "] = " << got[i] << ", expected " << expected[i]
                                           << " (tolerance " << tolerance << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

TEST_F(SessionKernels, TheCacheLoadsTheCalibrationsOfBothThreadCounts) {
  ASSERT_EQ(loaded.file_status, tuning::KernelTuningCacheFileStatus::READ) << loaded.summary();
  EXPECT_EQ(loaded.count(tuning::KernelTuningCacheEntryStatus::LOADED), 8u) << loaded.summary();
  EXPECT_THAT(loaded.summary(), HasSubstr("8 loaded (4 for 1 thread, 4 for 2 threads)"));
}

TEST_F(SessionKernels, GemmOfASessionTakesTheValuesAndThreadsOfItsThreadCount) {
  // OpenMP's own limit is 1: the team comes from the session, not from it.
  const testing::OpenMpThreadLimit limit(1);
  const TuningSession one = session(1), two = session(2);
  Result<GemmKernel> serial = GemmKernel::for_session(one, DataType::FLOAT);
  Result<GemmKernel> parallel = GemmKernel::for_session(two, DataType::FLOAT);
  ASSERT_TRUE(serial.ok()) << serial.error().message();
  ASSERT_TRUE(parallel.ok()) << parallel.error().message();
  expect_calibrated_for(one, gemm_packed_key(DataType::FLOAT), 1);
  expect_calibrated_for(two, gemm_packed_key(DataType::FLOAT), 2);

  EXPECT_EQ(serial->config().algorithm_tile_m, 48);
  EXPECT_EQ(serial->config().algorithm_tile_k, 128);
  EXPECT_EQ(serial->config().parallel_fmas_per_work_unit, GemmPackedTuning{}.parallel_fmas_per_work_unit);
  EXPECT_EQ(parallel->config().algorithm_tile_m, 96);
  EXPECT_EQ(parallel->config().algorithm_tile_k, 64);
  EXPECT_EQ(parallel->config().parallel_fmas_per_work_unit, 4096);

  EXPECT_EQ(serial->threads(), 1);
  EXPECT_EQ(parallel->threads(), 2);
  // 97^3 multiply-adds are 223 work units of 4096: the 2-thread kernel runs
  // them on 2 threads, the 1-thread kernel serially; a run's own cap wins.
  EXPECT_EQ(serial->team(97, 97, 97), 1);
  EXPECT_EQ(parallel->team(97, 97, 97), 2);
  EXPECT_EQ(parallel->team(97, 97, 97, 1), 1);
  EXPECT_EQ(parallel->team(8, 8, 8), 1) << "512 multiply-adds are one work unit";

  EXPECT_TRUE(matches_reference<float>(*serial, 97, 89, 101));
  EXPECT_TRUE(matches_reference<float>(*parallel, 97, 89, 101));
  EXPECT_TRUE(matches_reference<float>(*parallel, 4, 300, 77)) << "the streamed-B path";
}

TEST_F(SessionKernels, HalfPrecisionGemmTakesItsConversionsAndTheFloatProductOfItsThreadCount) {
  const TuningSession one = session(1), two = session(2);
  Result<GemmKernel> serial = GemmKernel::for_session(one, DataType::FLOAT16);
  Result<GemmKernel> parallel = GemmKernel::for_session(two, DataType::FLOAT16);
  ASSERT_TRUE(serial.ok()) << serial.error().message();
  ASSERT_TRUE(parallel.ok()) << parallel.error().message();
  expect_calibrated_for(one, gemm_widening_key(DataType::FLOAT16), 1);
  expect_calibrated_for(two, gemm_widening_key(DataType::FLOAT16), 2);
  EXPECT_EQ(serial->widening().conversion_parallel_minimum_elements, 1 << 22);
  EXPECT_EQ(parallel->widening().conversion_parallel_minimum_elements, 1024);
  EXPECT_EQ(serial->config().algorithm_tile_m, 48) << "the FLOAT key's product";
  EXPECT_EQ(parallel->config().algorithm_tile_m, 96) << "the FLOAT key's product";
  EXPECT_EQ(serial->conversion_threads(4096, serial->thread_limit()), 1);
  EXPECT_EQ(parallel->conversion_threads(4096, parallel->thread_limit()), 2);
}

TEST_F(SessionKernels, DoubleGemmWithoutCalibrationRunsOnTheSessionThreads) {
  const TuningSession two = session(2);
  Result<GemmKernel> kernel = GemmKernel::for_session(two, DataType::DOUBLE);
  ASSERT_TRUE(kernel.ok()) << kernel.error().message();
  EXPECT_NE(two.resolve(gemm_packed_key(DataType::DOUBLE)).source, ResolutionSource::CALIBRATED);
  EXPECT_EQ(kernel->threads(), 2);
  EXPECT_EQ(kernel->thread_limit(), 2);
  EXPECT_TRUE(matches_reference<double>(*kernel, 65, 70, 129));
}

TEST_F(SessionKernels, ASessionOfTheRequestedThreadCountFindsItsCalibration) {
  // The way a program asks: only the thread count, the rest detected.
  TuningSessionOptions o;
  o.threads = 1;
  o.registry = &registry;
  const TuningSession one = TuningSession::Create(std::move(o));
  Result<GemmKernel> kernel = GemmKernel::for_session(one, DataType::FLOAT);
  ASSERT_TRUE(kernel.ok()) << kernel.error().message();
  EXPECT_EQ(kernel->threads(), 1);
  EXPECT_EQ(kernel->config().algorithm_tile_m, 48);
}

TEST_F(SessionKernels, UnaryKernelOfASessionTakesTheValuesAndThreadsOfItsThreadCount) {
  const testing::OpenMpThreadLimit limit(1);
  const TuningSession one = session(1), two = session(2);
  Result<UnaryElementwiseKernel> serial = UnaryElementwiseKernel::for_session(one, UnaryOp::ABS, DataType::FLOAT);
  Result<UnaryElementwiseKernel> parallel = UnaryElementwiseKernel::for_session(two, UnaryOp::ABS, DataType::FLOAT);
  ASSERT_TRUE(serial.ok()) << serial.error().message();
  ASSERT_TRUE(parallel.ok()) << parallel.error().message();
  expect_calibrated_for(one, unary_key(UnaryOp::ABS, DataType::FLOAT), 1);
  expect_calibrated_for(two, unary_key(UnaryOp::ABS, DataType::FLOAT), 2);
  EXPECT_EQ(serial->config().simd_min_elements, 16);
  EXPECT_EQ(parallel->config().simd_min_elements, 64);
  EXPECT_EQ(serial->team(), 1);
  EXPECT_EQ(parallel->team(), 2);
  EXPECT_EQ(serial->choose_path(8192), ExecutionPath::SERIAL_SIMD);
  EXPECT_EQ(parallel->choose_path(8192), ExecutionPath::PARALLEL_SIMD);
  EXPECT_EQ(parallel->choose_path(32), ExecutionPath::SERIAL_SCALAR);
  EXPECT_EQ(serial->choose_path(32), ExecutionPath::SERIAL_SIMD);

  constexpr std::int64_t n = 8192 + 5;
  auto input = tuning::RandnTensor(DataType::FLOAT, {n}, 21);
  ASSERT_TRUE(input.ok());
  for (const UnaryElementwiseKernel* kernel : {&*serial, &*parallel}) {
    auto output = tuning::EmptyTensor(DataType::FLOAT, {n});
    ASSERT_TRUE(output.ok());
    ASSERT_TRUE(kernel->run(*input, *output).is_good());
    const float* in = input->as<float>();
    const float* out = output->as<float>();
    for (std::int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(out[i], static_cast<float>(std::fabs(static_cast<double>(in[i])))) << "element " << i;
    }
  }
}

TEST_F(SessionKernels, BinaryKernelOfASessionTakesTheValuesAndThreadsOfItsThreadCount) {
  const testing::OpenMpThreadLimit limit(1);
  const TuningSession one = session(1), two = session(2);
  Result<BinaryElementwiseKernel> serial = BinaryElementwiseKernel::for_session(one, BinaryOp::ADD, DataType::FLOAT);
  Result<BinaryElementwiseKernel> parallel = BinaryElementwiseKernel::for_session(two, BinaryOp::ADD, DataType::FLOAT);
  ASSERT_TRUE(serial.ok()) << serial.error().message();
  ASSERT_TRUE(parallel.ok()) << parallel.error().message();
  expect_calibrated_for(one, binary_key(BinaryOp::ADD, DataType::FLOAT), 1);
  expect_calibrated_for(two, binary_key(BinaryOp::ADD, DataType::FLOAT), 2);
  EXPECT_EQ(serial->config().parallel_minimum_elements, 1 << 22);
  EXPECT_EQ(parallel->config().parallel_minimum_elements, 2048);
  EXPECT_EQ(serial->team(), 1);
  EXPECT_EQ(parallel->team(), 2);
  EXPECT_EQ(serial->choose_path(4096), ExecutionPath::SERIAL_SIMD);
  EXPECT_EQ(parallel->choose_path(4096), ExecutionPath::PARALLEL_SIMD);

  // A row broadcast over 64 x 67 = 4288 outputs: the parallel path for 2 threads.
  auto a = tuning::RandnTensor(DataType::FLOAT, {64, 67}, 31);
  auto b = tuning::RandnTensor(DataType::FLOAT, {67}, 32);
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  for (const BinaryElementwiseKernel* kernel : {&*serial, &*parallel}) {
    auto output = tuning::EmptyTensor(DataType::FLOAT, {64, 67});
    ASSERT_TRUE(output.ok());
    ASSERT_TRUE(kernel->run(*a, *b, *output).is_good());
    const float* x = a->as<float>();
    const float* y = b->as<float>();
    const float* out = output->as<float>();
    for (std::int64_t i = 0; i < 64 * 67; ++i) {
      // A float sum rounded once from double is the correctly rounded float sum.
      const float expected = static_cast<float>(static_cast<double>(x[i]) + static_cast<double>(y[i % 67]));
      ASSERT_EQ(out[i], expected) << "element " << i;
    }
  }
}

TEST_F(SessionKernels, UnsupportedTypesAreErrorsNamingThem) {
  const TuningSession one = session(1);
  Result<GemmKernel> gemm = GemmKernel::for_session(one, DataType::INT32);
  ASSERT_FALSE(gemm.ok());
  EXPECT_EQ(gemm.error().code(), ErrorCode::INVALID_VALUE);
  EXPECT_EQ(gemm.error().message(), "Gemm does not implement int32");
  Result<UnaryElementwiseKernel> unary = UnaryElementwiseKernel::for_session(one, UnaryOp::NOT, DataType::FLOAT);
  ASSERT_FALSE(unary.ok());
  EXPECT_EQ(unary.error().message(), "Not does not support float");
  Result<BinaryElementwiseKernel> binary = BinaryElementwiseKernel::for_session(one, BinaryOp::POW, DataType::INT32);
  ASSERT_FALSE(binary.ok());
  EXPECT_EQ(binary.error().message(), "Pow does not support int32");
}

TEST(ElementwiseTeam, ALimitCapsTheMaximumAndAnExplicitTeamWins) {
  EXPECT_EQ(elementwise_team(8, 0, 2), 2);
  EXPECT_EQ(elementwise_team(1, 0, 2), 1);
  EXPECT_EQ(elementwise_team(8, 3, 2), 3);
  const testing::OpenMpThreadLimit limit(1);
  EXPECT_EQ(elementwise_team(8, 0, 0), 1) << "no limit: OpenMP's";
  EXPECT_EQ(elementwise_team(8, 0, 4), 4);
}

}  // namespace
}  // namespace tunekit::cpu
