// Values cut for messages: short ones unchanged, long ones cut at the limit
// with "...", never in the middle of a UTF-8 character; bytes that are not
// UTF-8 shown as U+FFFD, before cutting and counted as three bytes.
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

TEST(Excerpt, ALimitInsideAFourByteCharacterLeavesItOutWhole) {
  const std::string clef = "\xF0\x9D\x84\x9E";
  const std::string text = std::string(78, 'a') + clef + "b";  // the limit of 80 falls after the clef's second byte
  EXPECT_EQ(excerpt(text), std::string(78, 'a') + "...");
  EXPECT_EQ(excerpt(text, 81), std::string(78, 'a') + "...");
  EXPECT_EQ(excerpt(text, 82), std::string(78, 'a') + clef + "...");
  EXPECT_EQ(excerpt(text, 83), text);
  EXPECT_EQ(excerpt(clef, 1), "...");
  EXPECT_EQ(excerpt(clef, 3), "...");
  EXPECT_EQ(excerpt(clef, 4), clef);
}

TEST(Excerpt, BytesThatAreNotUtf8AreShownAsReplacementCharacters) {
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(excerpt("m\xC3("), "m" + r + "(");
  EXPECT_EQ(excerpt("\xC0\xAF"), r + r);
  EXPECT_EQ(excerpt("\xED\xA0\x80"), r + r + r);
  EXPECT_EQ(excerpt("a\xE2\x82"), "a" + r);  // cut short at the end: one replacement
  // A replacement is three bytes: five bad bytes do not fit in 12.
  EXPECT_EQ(excerpt("\xFF\xFF\xFF\xFF\xFF", 12), r + r + r + r + "...");
  EXPECT_EQ(excerpt("\xFF\xFF\xFF\xFF", 12), r + r + r + r);
  // The limit falls inside a sequence that is cut short in the text itself.
  const std::string text = std::string(79, 'a') + "\xF0\x9D\x84" + "z";
  EXPECT_EQ(excerpt(text), std::string(79, 'a') + "...");
  EXPECT_EQ(excerpt(text, 83), std::string(79, 'a') + r + "z");
}

}  // namespace
}  // namespace tunekit::core
