#include "tunekit/platform/cpu_signature.hpp"

#include <gtest/gtest.h>

namespace tunekit::platform {
namespace {

TEST(X86Signature, DecodesZen3Milan) {
  // AMD EPYC 7xx3: base family 0xF + extended family 0xA.
  X86Signature s = decode_x86_signature(0x00A00F11);
  EXPECT_EQ(s.family, 25u);
  EXPECT_EQ(s.model, 1u);
  EXPECT_EQ(s.stepping, 1u);
}

TEST(X86Signature, DecodesAlderLakeWithExtendedModel) {
  X86Signature s = decode_x86_signature(0x00090672);
  EXPECT_EQ(s.family, 6u);
  EXPECT_EQ(s.model, 0x97u);
  EXPECT_EQ(s.stepping, 2u);
}

TEST(X86Signature, ExtendedModelIgnoredOutsideFamilies6And15) {
  // Family 5 (Pentium): the extended fields do not apply.
  X86Signature s = decode_x86_signature(0x00010543);
  EXPECT_EQ(s.family, 5u);
  EXPECT_EQ(s.model, 4u);
  EXPECT_EQ(s.stepping, 3u);
}

TEST(ArmMidr, DecodesNeoverseN1) {
  ArmMidr m = decode_arm_midr(0x413FD0C1);
  EXPECT_EQ(m.implementer, 0x41u);
  EXPECT_EQ(m.variant, 3u);
  EXPECT_EQ(m.architecture, 0xFu);
  EXPECT_EQ(m.part, 0xD0Cu);
  EXPECT_EQ(m.revision, 1u);
  EXPECT_EQ(arm_implementer_name(m.implementer), "ARM");
}

TEST(ArmMidr, UnknownImplementerHasNoName) {
  EXPECT_TRUE(arm_implementer_name(0x99).empty());
  EXPECT_EQ(arm_implementer_name(0xC0), "Ampere");
}

}  // namespace
}  // namespace tunekit::platform
