// Values cut for messages: short ones unchanged, long ones cut at the limit
// with "...", never in the middle of a UTF-8 character.
#include "tunekit/core/excerpt.hpp"

#include <gtest/gtest.h>

#include <string>

namespace tunekit::core {
namespace {

TEST(Excerpt, TextUpToTheLimitIsUnchanged) {
  EXPECT_EQ(excerpt(""), "");
  EXPECT_EQ(excerpt(std::string(80, 'a')), std::string(80, 'a'));
  EXPECT_EQ(excerpt("abc", 3), "abc");
}

TEST(Excerpt, LongerTextIsCutAtTheLimitWithAnEllipsis) {
  EXPECT_EQ(kExcerptBytes, 80u);
  EXPECT_EQ(excerpt(std::string(81, 'a')), std::string(80, 'a') + "...");
  EXPECT_EQ(excerpt(std::string(1000000, '[')), std::string(80, '[') + "...");
  EXPECT_EQ(excerpt("abcdef", 4), "abcd...");
  EXPECT_EQ(excerpt("abcdef", 0), "...");
}

TEST(Excerpt, AUtf8CharacterIsNeverCutInTwo) {
  const std::string euro = "\xE2\x82\xAC";  // three bytes
  EXPECT_EQ(excerpt("ab" + euro + "cd", 2), "ab...");
  EXPECT_EQ(excerpt("ab" + euro + "cd", 3), "ab...");
  EXPECT_EQ(excerpt("ab" + euro + "cd", 4), "ab...");
  EXPECT_EQ(excerpt("ab" + euro + "cd", 5), "ab" + euro + "...");
  const std::string clef = "\xF0\x9D\x84\x9E";  // four bytes
  EXPECT_EQ(excerpt(clef + clef, 7), clef + "...");
}

}  // namespace
}  // namespace tunekit::core
