// Names and literals of generated C++: fixed text for a value, so generated
// headers are reproducible, and literals that read back as the same value.
#include "cpp_text.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace tunekit::codegen {
namespace {

TEST(CppText, SnakeCaseSplitsWordsOnce) {
  EXPECT_EQ(snake_case("Abs"), "abs");
  EXPECT_EQ(snake_case("LayerNorm"), "layer_norm");
  EXPECT_EQ(snake_case("GEMM"), "gemm");
  EXPECT_EQ(snake_case("Conv2DTranspose"), "conv2d_transpose");
  EXPECT_EQ(snake_case("openmp_simd"), "openmp_simd");
  EXPECT_EQ(snake_case("Blocked_AVX2"), "blocked_avx2");
  EXPECT_EQ(camel_case("unary_elementwise"), "UnaryElementwise");
  EXPECT_EQ(camel_case("gemm_blocked"), "GemmBlocked");
}

TEST(CppText, DoublesAreShortestRoundTripLiterals) {
  EXPECT_EQ(cpp_double(0.75), "0.75");
  EXPECT_EQ(cpp_double(2.0), "2.0");
  EXPECT_EQ(cpp_double(-0.0), "-0.0");
  EXPECT_EQ(cpp_double(0.1), "0.1");
  EXPECT_EQ(cpp_double(1e300), "1e+300");
  EXPECT_EQ(cpp_double(1.0 / 3.0), "0.3333333333333333");
}

TEST(CppText, IntegersIncludingTheMinimum) {
  EXPECT_EQ(cpp_int(1048576), "1048576");
  EXPECT_EQ(cpp_int(-8), "-8");
  EXPECT_EQ(cpp_int(std::numeric_limits<std::int64_t>::min()), "(-9223372036854775807 - 1)");
}

TEST(CppText, StringsEscapeQuotesBackslashesAndControlBytes) {
  EXPECT_EQ(cpp_string("a \"b\" \\ c"), "\"a \\\"b\\\" \\\\ c\"");
  EXPECT_EQ(cpp_string("line\nnext\ttab"), "\"line\\nnext\\ttab\"");
  EXPECT_EQ(cpp_string(std::string("\x01") + "7"), "\"\\0017\"");  // octal escapes stop after three digits
  EXPECT_EQ(cpp_string("d\u00e9j\u00e0"), "\"d\u00e9j\u00e0\"");
  EXPECT_EQ(cpp_value(Value(true)), "true");
  EXPECT_EQ(cpp_value(Value("static")), "\"static\"");
  EXPECT_EQ(one_line("two\nlines\r\n"), "two lines  ");
}

}  // namespace
}  // namespace tunekit::codegen
