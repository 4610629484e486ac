#include "tunekit/core/error.hpp"

#include <gtest/gtest.h>

#include <string>

namespace tunekit::core {
namespace {

TEST(Error, DefaultIsGood) {
  Error e;
  EXPECT_TRUE(e.is_good());
  EXPECT_FALSE(e.is_bad());
  EXPECT_EQ(e.code(), ErrorCode::OK);
  EXPECT_EQ(e.describe(), "OK");
}

TEST(Error, CarriesCodeAndMessage) {
  Error e(ErrorCode::IO_ERROR, "cannot open /tmp/x");
  EXPECT_TRUE(e.is_bad());
  EXPECT_EQ(e.code(), ErrorCode::IO_ERROR);
  EXPECT_EQ(e.message(), "cannot open /tmp/x");
  EXPECT_EQ(e.describe(), "IO_ERROR: cannot open /tmp/x");
}

TEST(Error, AMessageThatIsNotUtf8IsStoredRepaired) {
  // A parser's message quoting the bytes it stopped at, and a file name.
  Error e(ErrorCode::INVALID_VALUE, "bad.json: invalid string; last read: '\"m\xC3('");
  EXPECT_EQ(e.message(), "bad.json: invalid string; last read: '\"m\xEF\xBF\xBD('");
  EXPECT_EQ(Error(ErrorCode::IO_ERROR, "cannot open /tmp/\xFF\xFE: gone").message(),
            "cannot open /tmp/\xEF\xBF\xBD\xEF\xBF\xBD: gone");
  // Valid text, multi-byte characters included, is kept as it is.
  EXPECT_EQ(Error(ErrorCode::IO_ERROR, "cannot open /tmp/caf\xC3\xA9").message(), "cannot open /tmp/caf\xC3\xA9");
  EXPECT_EQ(std::string(TuningError("key Gemm: 'x\xC0\xAF'").what()), "key Gemm: 'x\xEF\xBF\xBD\xEF\xBF\xBD'");
}

TEST(ErrorCode, NamesRoundTrip) {
  for (ErrorCode code : {ErrorCode::OK, ErrorCode::INVALID_VALUE, ErrorCode::NOT_SUPPORTED,
                         ErrorCode::BAD_STATE, ErrorCode::COMPILE_FAILED,
                         ErrorCode::EXECUTION_FAILED, ErrorCode::IO_ERROR, ErrorCode::INTERNAL}) {
    auto parsed = parse_error_code(to_string(code));
    ASSERT_TRUE(parsed.has_value()) << to_string(code);
    EXPECT_EQ(*parsed, code);
  }
  EXPECT_FALSE(parse_error_code("invalid_value").has_value());
  EXPECT_FALSE(parse_error_code("").has_value());
}

Error fails() { return {ErrorCode::BAD_STATE, "not built"}; }
Error succeeds() { return Error::ok(); }

int g_reached = 0;
Error propagates() {
  TUNEKIT_RETURN_IF_ERROR(succeeds());
  ++g_reached;
  TUNEKIT_RETURN_IF_ERROR(fails());
  ++g_reached;
  return Error::ok();
}

TEST(Error, ReturnIfErrorStopsAtTheFirstFailureAndRecordsThePlace) {
  g_reached = 0;
  Error e = propagates();
  EXPECT_EQ(g_reached, 1);
  EXPECT_EQ(e.code(), ErrorCode::BAD_STATE);
  EXPECT_EQ(e.message(), "not built");
  EXPECT_NE(e.trace().find("fails()"), std::string::npos) << e.trace();
  EXPECT_NE(e.trace().find("error_test.cpp"), std::string::npos) << e.trace();
}

TEST(TuningError, IsARuntimeErrorWithTheMessage) {
  try {
    throw TuningError("key Gemm: tile_m=0 must be positive");
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "key Gemm: tile_m=0 must be positive");
  }
}

}  // namespace
}  // namespace tunekit::core
