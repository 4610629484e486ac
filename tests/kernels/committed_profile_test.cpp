// The committed processor profiles of tunekit_cpu (profiles/tunekit_cpu),
// compiled in: after register_tunekit_cpu on a fresh registry each one
// resolves, as the exact-processor profile, on an imaginary execution built
// from its own selector (whatever machine runs the test), and a processor one
// stepping away gets the portable defaults.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "tunekit/cpu/processor_profiles.hpp"
#include "tunekit/cpu/register.hpp"
#include "tunekit/cpu/unary_elementwise.hpp"
#include "tunekit/tuning/deployment_profile.hpp"

namespace tunekit::cpu {
namespace {

namespace fs = std::filesystem;

std::vector<tuning::KernelTuningProfile> committed_profiles() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(TUNEKIT_CPU_PROFILE_DIR)) {
    if (entry.path().extension() == ".toml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<tuning::KernelTuningProfile> profiles;
  for (const fs::path& file : files) {
    auto read = tuning::ReadDeploymentProfiles(file);
    EXPECT_TRUE(read.ok()) << read.error().message();
    if (read.ok()) profiles.insert(profiles.end(), read->begin(), read->end());
  }
  return profiles;
}

// The execution the selector names: its processor identity, its features,
// its lowest thread count.
platform::CpuExecutionDescriptor execution_of(const tuning::CpuSelector& s) {
  platform::CpuExecutionDescriptor e;
  e.processor.architecture = s.architecture.value_or("x86_64");
  e.processor.vendor = s.vendor.value_or("");
  e.processor.family = s.family;
  if (!s.models.empty()) e.processor.model = s.models.front();
  e.processor.stepping = s.stepping;
  e.processor.microarchitecture = s.microarchitecture.value_or("");
  e.processor.features = s.required_features;
  e.effective_threads = s.minimum_threads.value_or(1);
  e.numa_policy = {platform::NumaPolicyKind::DEFAULT, {}};
  return e;
}

TEST(CommittedProfiles, EveryCommittedProfileIsCompiledIn) {
  const auto profiles = committed_profiles();
  ASSERT_FALSE(profiles.empty()) << "profiles/tunekit_cpu holds at least this project's calibrated machine";
  EXPECT_EQ(profiles.size(), kProcessorProfilesCount);
}

TEST(CommittedProfiles, EachResolvesAsTheExactProcessorOnTheExecutionItsSelectorNames) {
  tuning::KernelTuningRegistry registry;
  tuning::KernelCalibrationRegistry functions;
  register_tunekit_cpu(registry, functions);
  const auto generation = registry.snapshot();
  for (const tuning::KernelTuningProfile& p : committed_profiles()) {
    ASSERT_EQ(p.selector.models.size(), 1u) << p.name << ": a committed profile names one processor";
    ASSERT_TRUE(p.selector.stepping.has_value()) << p.name;
    const auto execution = execution_of(p.selector);
    const tuning::Resolution r = generation->resolve(p.parameters.key, execution);
    EXPECT_EQ(r.source, tuning::ResolutionSource::EXACT_PROCESSOR) << p.name;
    EXPECT_EQ(r.profile_name, p.name);
    for (const auto& [name, value] : p.parameters.values) {
      EXPECT_EQ(r.parameters.values.at(name), value) << p.name << ": " << name;
    }

    auto next_stepping = execution;
    next_stepping.processor.stepping = *p.selector.stepping + 1;
    const tuning::Resolution other = generation->resolve(p.parameters.key, next_stepping);
    EXPECT_EQ(other.source, tuning::ResolutionSource::PORTABLE_DEFAULT) << p.name;
    EXPECT_EQ(other.parameters.values, generation->schema(p.parameters.key)->defaults().values) << p.name;
  }
}

TEST(CommittedProfiles, TheEmeraldRapidsProfileOfTheCalibratedMachineIsCommitted) {
  // Intel family 6 model 207 stepping 2 (Emerald Rapids) with 2 threads, the
  // machine profiles/tunekit_cpu/intel-6-207-2-2t.toml was calibrated on, built by hand.
  platform::CpuExecutionDescriptor e;
  e.processor.architecture = "x86_64";
  e.processor.vendor = "Intel";
  e.processor.family = 6;
  e.processor.model = 207;
  e.processor.stepping = 2;
  e.processor.features = {platform::CpuFeature::AVX2, platform::CpuFeature::AVX512F};
  e.effective_threads = 2;
  tuning::KernelTuningRegistry registry;
  tuning::KernelCalibrationRegistry functions;
  register_tunekit_cpu(registry, functions);
  const tuning::Resolution r = registry.snapshot()->resolve(unary_key(UnaryOp::ABS, DataType::FLOAT), e);
  EXPECT_EQ(r.source, tuning::ResolutionSource::EXACT_PROCESSOR) << r.to_string();
}

TEST(CommittedProfiles, RegisteringTunekitCpuTwiceOnOneRegistryThrowsNamingTheProfiles) {
  tuning::KernelTuningRegistry registry;
  tuning::KernelCalibrationRegistry functions;
  register_tunekit_cpu(registry, functions);
  tuning::KernelCalibrationRegistry more;
  EXPECT_THROW(register_tunekit_cpu(registry, more), TuningError);
}

}  // namespace
}  // namespace tunekit::cpu
