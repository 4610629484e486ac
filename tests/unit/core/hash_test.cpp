#include "tunekit/core/hash.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

namespace tunekit::core {
namespace {

TEST(Hash, KnownXxh3Vectors) {
  // Reference values of XXH3 for the empty input with seed 0.
  EXPECT_EQ(hash64(std::string_view{}), 0x2D06800538D394C2ull);
  Hash128 empty = hash128(std::string_view{});
  EXPECT_EQ(empty.low, 0x6001C324468D497Full);
  EXPECT_EQ(empty.high, 0x99AA06D3014798D8ull);
}

TEST(Hash, SeedAndContentChangeTheHash) {
  EXPECT_NE(hash64("tunekit"), hash64("tunekit", 1));
  EXPECT_NE(hash64("tunekit"), hash64("tunekiT"));
  EXPECT_EQ(hash64("tunekit"), hash64("tunekit"));
  EXPECT_NE(hash128("a"), hash128("b"));
}

TEST(Hash, HexIsFixedWidthLowerCase) {
  EXPECT_EQ(to_hex(0xABCull), "0000000000000abc");
  EXPECT_EQ((Hash128{0x1, 0xF}).to_hex(), "000000000000000f0000000000000001");
}

TEST(CanonicalHasher, FieldBoundariesAreUnambiguous) {
  CanonicalHasher ab_c;
  ab_c.add_string("ab").add_string("c");
  CanonicalHasher a_bc;
  a_bc.add_string("a").add_string("bc");
  EXPECT_NE(ab_c.digest64(), a_bc.digest64());
  EXPECT_NE(ab_c.digest128(), a_bc.digest128());
}

TEST(CanonicalHasher, SameFieldsSameDigestAndOrderMatters) {
  CanonicalHasher x;
  x.add_int(1).add_int(2).add_bool(true).add_double(0.5);
  CanonicalHasher y;
  y.add_int(1).add_int(2).add_bool(true).add_double(0.5);
  CanonicalHasher z;
  z.add_int(2).add_int(1).add_bool(true).add_double(0.5);
  EXPECT_EQ(x.digest64(), y.digest64());
  EXPECT_EQ(x.digest128(), y.digest128());
  EXPECT_NE(x.digest64(), z.digest64());
}

TEST(CanonicalHasher, MatchesOneShotHashOfTheCanonicalBytes) {
  CanonicalHasher h;
  h.add_uint(0x0102030405060708ull);
  const unsigned char bytes[8] = {8, 7, 6, 5, 4, 3, 2, 1};
  EXPECT_EQ(h.digest64(), hash64(std::as_bytes(std::span(bytes))));
}

TEST(CanonicalHasher, NegativeZeroAndNaNsAreCanonical) {
  CanonicalHasher pos, neg, nan1, nan2;
  pos.add_double(0.0);
  neg.add_double(-0.0);
  nan1.add_double(std::numeric_limits<double>::quiet_NaN());
  nan2.add_double(-std::nan("7"));
  EXPECT_EQ(pos.digest64(), neg.digest64());
  EXPECT_EQ(nan1.digest64(), nan2.digest64());
}

}  // namespace
}  // namespace tunekit::core
