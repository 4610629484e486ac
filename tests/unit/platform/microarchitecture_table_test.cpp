#include "tunekit/platform/microarchitecture_table.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

namespace tunekit::platform {
namespace {

// Expectations written from the vendors' model assignments, one per table row
// (both ends of every AMD model block, plus known products inside them).
struct X86Case {
  const char* vendor;
  std::uint32_t family;
  std::uint32_t model;
  const char* expected;
};

constexpr X86Case kX86Cases[] = {
    {"Intel", 6, 0x4E, "sky_lake"},     {"Intel", 6, 0x5E, "sky_lake"},
    {"Intel", 6, 0x55, "sky_lake"},     {"Intel", 6, 0x8E, "sky_lake"},
    {"Intel", 6, 0x9E, "sky_lake"},     {"Intel", 6, 0xA5, "sky_lake"},
    {"Intel", 6, 0xA6, "sky_lake"},     {"Intel", 6, 0x66, "palm_cove"},
    {"Intel", 6, 0x7D, "sunny_cove"},   {"Intel", 6, 0x7E, "sunny_cove"},
    {"Intel", 6, 0x6A, "sunny_cove"},   {"Intel", 6, 0x6C, "sunny_cove"},
    {"Intel", 6, 0x9D, "sunny_cove"},   {"Intel", 6, 0xA7, "cypress_cove"},
    {"Intel", 6, 0x8C, "willow_cove"},  {"Intel", 6, 0x8D, "willow_cove"},
    {"Intel", 6, 0x97, "golden_cove"},  {"Intel", 6, 0x9A, "golden_cove"},
    {"Intel", 6, 0x8F, "golden_cove"},  {"Intel", 6, 0xB7, "raptor_cove"},
    {"Intel", 6, 0xBA, "raptor_cove"},  {"Intel", 6, 0xBF, "raptor_cove"},
    {"Intel", 6, 207, "raptor_cove"},   {"Intel", 6, 0xD7, "raptor_cove"},
    {"Intel", 6, 0xAA, "redwood_cove"}, {"Intel", 6, 0xAC, "redwood_cove"},
    {"Intel", 6, 0xAD, "redwood_cove"}, {"Intel", 6, 0xAE, "redwood_cove"},
    {"Intel", 6, 0xC5, "lion_cove"},    {"Intel", 6, 0xC6, "lion_cove"},
    {"Intel", 6, 0xBD, "lion_cove"},    {"Intel", 6, 0xCC, "cougar_cove"},
    {"Intel", 19, 0x01, "panther_cove"},
    {"Intel", 6, 0x86, "tremont"},      {"Intel", 6, 0x96, "tremont"},
    {"Intel", 6, 0x9C, "tremont"},      {"Intel", 6, 0xBE, "gracemont"},
    {"Intel", 6, 0xAF, "crestmont"},    {"Intel", 6, 0xB6, "crestmont"},
    {"Intel", 6, 0xDD, "darkmont"},
    // Zen and Zen+: Naples, Pinnacle Ridge, Raven Ridge, Picasso, Dali.
    {"AMD", 23, 0x00, "zen"},  {"AMD", 23, 0x01, "zen"},  {"AMD", 23, 0x08, "zen"},
    {"AMD", 23, 0x11, "zen"},  {"AMD", 23, 0x18, "zen"},  {"AMD", 23, 0x20, "zen"},
    {"AMD", 23, 0x2F, "zen"},  {"AMD", 23, 0x50, "zen"},  {"AMD", 23, 0x5F, "zen"},
    // Zen 2: Rome, Renoir, Lucienne, Matisse, Van Gogh, Mendocino.
    {"AMD", 23, 0x30, "zen2"}, {"AMD", 23, 0x31, "zen2"}, {"AMD", 23, 0x4F, "zen2"},
    {"AMD", 23, 0x60, "zen2"}, {"AMD", 23, 0x68, "zen2"}, {"AMD", 23, 0x71, "zen2"},
    {"AMD", 23, 0x7F, "zen2"}, {"AMD", 23, 0x90, "zen2"}, {"AMD", 23, 0x91, "zen2"},
    {"AMD", 23, 0xA0, "zen2"}, {"AMD", 23, 0xAF, "zen2"},
    // Zen 3 (and 3+): Milan, Vermeer, Rembrandt, Cezanne.
    {"AMD", 25, 0x00, "zen3"}, {"AMD", 25, 0x01, "zen3"}, {"AMD", 25, 0x0F, "zen3"},
    {"AMD", 25, 0x20, "zen3"}, {"AMD", 25, 0x21, "zen3"}, {"AMD", 25, 0x44, "zen3"},
    {"AMD", 25, 0x50, "zen3"}, {"AMD", 25, 0x5F, "zen3"},
    // Zen 4: Genoa (family 25 model 17), Raphael, Phoenix, Bergamo/Siena.
    {"AMD", 25, 0x10, "zen4"}, {"AMD", 25, 17, "zen4"},   {"AMD", 25, 0x1F, "zen4"},
    {"AMD", 25, 0x60, "zen4"}, {"AMD", 25, 0x61, "zen4"}, {"AMD", 25, 0x74, "zen4"},
    {"AMD", 25, 0xA0, "zen4"}, {"AMD", 25, 0xAF, "zen4"},
    // Zen 5: Turin, Strix Point, Granite Ridge, Strix Halo.
    {"AMD", 26, 0x00, "zen5"}, {"AMD", 26, 0x02, "zen5"}, {"AMD", 26, 0x11, "zen5"},
    {"AMD", 26, 0x24, "zen5"}, {"AMD", 26, 0x2F, "zen5"}, {"AMD", 26, 0x40, "zen5"},
    {"AMD", 26, 0x44, "zen5"}, {"AMD", 26, 0x4F, "zen5"}, {"AMD", 26, 0x60, "zen5"},
    {"AMD", 26, 0x70, "zen5"}, {"AMD", 26, 0x7F, "zen5"},
};

class X86Microarchitecture : public ::testing::TestWithParam<X86Case> {};

TEST_P(X86Microarchitecture, TableNamesTheCore) {
  const X86Case& c = GetParam();
  EXPECT_EQ(x86_microarchitecture(c.vendor, c.family, c.model), c.expected);
}

INSTANTIATE_TEST_SUITE_P(Rows, X86Microarchitecture, ::testing::ValuesIn(kX86Cases),
                         [](const ::testing::TestParamInfo<X86Case>& info) {
                           return fmt::format("{}_family{}_model{:02X}", info.param.vendor,
                                              info.param.family, info.param.model);
                         });

struct ArmCase {
  std::uint32_t implementer;
  std::uint32_t part;
  const char* expected;
};

constexpr ArmCase kArmCases[] = {
    {0x41, 0xD0C, "neoverse_n1"}, {0x41, 0xD49, "neoverse_n2"}, {0x41, 0xD8E, "neoverse_n3"},
    {0x41, 0xD40, "neoverse_v1"}, {0x41, 0xD4F, "neoverse_v2"}, {0x41, 0xD84, "neoverse_v3"},
    {0x41, 0xD83, "neoverse_v3"}, {0x41, 0xD4A, "neoverse_e1"}, {0x6D, 0xD49, "neoverse_n2"},
    {0x61, 0x22, "icestorm"},     {0x61, 0x24, "icestorm"},     {0x61, 0x28, "icestorm"},
    {0x61, 0x23, "firestorm"},    {0x61, 0x25, "firestorm"},    {0x61, 0x29, "firestorm"},
    {0x61, 0x32, "blizzard"},     {0x61, 0x34, "blizzard"},     {0x61, 0x38, "blizzard"},
    {0x61, 0x33, "avalanche"},    {0x61, 0x35, "avalanche"},    {0x61, 0x39, "avalanche"},
};

class ArmMicroarchitecture : public ::testing::TestWithParam<ArmCase> {};

TEST_P(ArmMicroarchitecture, TableNamesTheCore) {
  const ArmCase& c = GetParam();
  EXPECT_EQ(arm_microarchitecture(c.implementer, c.part), c.expected);
}

INSTANTIATE_TEST_SUITE_P(Rows, ArmMicroarchitecture, ::testing::ValuesIn(kArmCases),
                         [](const ::testing::TestParamInfo<ArmCase>& info) {
                           return fmt::format("implementer{:02X}_part{:03X}", info.param.implementer,
                                              info.param.part);
                         });

TEST(MicroarchitectureTable, ModelsOutsideTheTableStayUnknown) {
  // Gaps between AMD's blocks and past the last one.
  EXPECT_EQ(x86_microarchitecture("AMD", 23, 0x80), "");
  EXPECT_EQ(x86_microarchitecture("AMD", 23, 0x92), "");
  EXPECT_EQ(x86_microarchitecture("AMD", 23, 0xB0), "");
  EXPECT_EQ(x86_microarchitecture("AMD", 25, 0xB0), "");
  EXPECT_EQ(x86_microarchitecture("AMD", 26, 0x30), "");
  EXPECT_EQ(x86_microarchitecture("AMD", 26, 0x50), "");
  EXPECT_EQ(x86_microarchitecture("AMD", 26, 0x80), "");
  EXPECT_EQ(x86_microarchitecture("AMD", 27, 0x00), "");
  // Older families are cpuinfo's to name, not the table's.
  EXPECT_EQ(x86_microarchitecture("AMD", 21, 0x01), "");
  EXPECT_EQ(x86_microarchitecture("Intel", 6, 0x3C), "");
  // Unassigned Intel models and a neighbour of a known one.
  EXPECT_EQ(x86_microarchitecture("Intel", 6, 0xFE), "");
  EXPECT_EQ(x86_microarchitecture("Intel", 6, 0xD0), "");
  EXPECT_EQ(x86_microarchitecture("Intel", 19, 0x02), "");
  // Arm parts outside the table.
  EXPECT_EQ(arm_microarchitecture(0x41, 0xFFF), "");
  EXPECT_EQ(arm_microarchitecture(0x41, 0xD0B), "");
  EXPECT_EQ(arm_microarchitecture(0x61, 0x48), "");
  EXPECT_EQ(arm_microarchitecture(0xC0, 0xAC3), "");
}

TEST(MicroarchitectureTable, NumbersOfOneVendorNameNothingForAnother) {
  EXPECT_EQ(x86_microarchitecture("AMD", 6, 0xCF), "");
  EXPECT_EQ(x86_microarchitecture("Intel", 25, 0x21), "");
  EXPECT_EQ(x86_microarchitecture("Hygon", 24, 0x00), "");
  EXPECT_EQ(x86_microarchitecture("", 25, 0x11), "");
  EXPECT_EQ(arm_microarchitecture(0x42, 0xD0C), "");
}

CpuDescriptor cpu(std::string architecture, std::string vendor, std::optional<std::uint32_t> family,
                  std::optional<std::uint32_t> model, std::string microarchitecture = "") {
  CpuDescriptor c;
  c.architecture = std::move(architecture);
  c.vendor = std::move(vendor);
  c.family = family;
  c.model = model;
  c.microarchitecture = std::move(microarchitecture);
  return c;
}

TEST(ResolveMicroarchitecture, KeepsTheNameCpuinfoGave) {
  EXPECT_EQ(resolve_microarchitecture(cpu("x86_64", "Intel", 6, 0xCF, "sky_lake")), "sky_lake");
  EXPECT_EQ(resolve_microarchitecture(cpu("x86_64", "AMD", 25, 0x99, "zen3")), "zen3");
}

TEST(ResolveMicroarchitecture, UsesTheTableWhenCpuinfoNamesNone) {
  EXPECT_EQ(resolve_microarchitecture(cpu("x86_64", "Intel", 6, 0xCF)), "raptor_cove");
  EXPECT_EQ(resolve_microarchitecture(cpu("x86_64", "AMD", 25, 17)), "zen4");
  EXPECT_EQ(resolve_microarchitecture(cpu("aarch64", "ARM", 0x41, 0xD4F)), "neoverse_v2");
  EXPECT_EQ(resolve_microarchitecture(cpu("aarch64", "Apple", 0x61, 0x23)), "firestorm");
}

TEST(ResolveMicroarchitecture, StaysUnknownWithoutFamilyModelOrTableRow) {
  EXPECT_EQ(resolve_microarchitecture(cpu("x86_64", "Intel", std::nullopt, 0xCF)), "");
  EXPECT_EQ(resolve_microarchitecture(cpu("x86_64", "Intel", 6, std::nullopt)), "");
  EXPECT_EQ(resolve_microarchitecture(cpu("x86_64", "Intel", 6, 0xFE)), "");
  // Each architecture reads only its own table.
  EXPECT_EQ(resolve_microarchitecture(cpu("aarch64", "ARM", 6, 0xCF)), "");
  EXPECT_EQ(resolve_microarchitecture(cpu("x86_64", "ARM", 0x41, 0xD4F)), "");
  EXPECT_EQ(resolve_microarchitecture(cpu("riscv64", "", 0x41, 0xD4F)), "");
}

TEST(ResolveMicroarchitecture, DetectionNamesEveryProcessorTheTableKnows) {
  const CpuDescriptor& detected = GetCpuDescriptor();
  if (!detected.family || !detected.model) GTEST_SKIP() << "this processor's family or model is unknown";
  CpuDescriptor unnamed = detected;
  unnamed.microarchitecture.clear();
  const std::string from_table = resolve_microarchitecture(unnamed);
  if (from_table.empty()) GTEST_SKIP() << "the table has no row for " << identity_string(detected);
  EXPECT_FALSE(detected.microarchitecture.empty()) << identity_string(detected);
}

}  // namespace
}  // namespace tunekit::platform
