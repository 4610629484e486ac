// Checking and repairing UTF-8: valid text (multi-byte characters, a
// byte-order mark) is left as it is; each kind of ill-formed input (stray
// continuation bytes, overlong forms, surrogates, bytes never used, code
// points beyond U+10FFFF, sequences cut short) is detected and replaced by
// U+FFFD once per maximal subpart.
#include "tunekit/core/utf8.hpp"

#include <gtest/gtest.h>

#include <string>

namespace tunekit::core {
namespace {

const std::string R(kReplacementCharacter);

TEST(Utf8, ValidTextIsValidAndComesBackUnchanged) {
  const std::string samples[] = {
      "",
      "plain ASCII, with \t\n and \x7F",
      "caf\xC3\xA9",                                  // U+00E9, two bytes
      "\xE2\x82\xAC 12",                              // U+20AC, three bytes
      "\xF0\x9D\x84\x9E",                             // U+1D11E, four bytes
      "\xC2\x80\xDF\xBF",                             // the smallest and largest two-byte characters
      "\xE0\xA0\x80\xED\x9F\xBF\xEE\x80\x80\xEF\xBF\xBF",  // U+0800, U+D7FF, U+E000, U+FFFF
      "\xF0\x90\x80\x80\xF4\x8F\xBF\xBF",             // U+10000 and U+10FFFF
      std::string("nul \0 inside", 12),
  };
  for (const std::string& text : samples) {
    EXPECT_TRUE(is_valid_utf8(text)) << text;
    EXPECT_EQ(replace_invalid_utf8(text), text);
  }
  EXPECT_EQ(kReplacementCharacter, "\xEF\xBF\xBD");
  EXPECT_TRUE(is_valid_utf8(kReplacementCharacter));
}

TEST(Utf8, AByteOrderMarkIsACharacterKeptWhereverItIs) {
  const std::string bom = "\xEF\xBB\xBF";
  EXPECT_TRUE(is_valid_utf8(bom));
  EXPECT_EQ(replace_invalid_utf8(bom + "{\"version\": 2}"), bom + "{\"version\": 2}");
  EXPECT_EQ(replace_invalid_utf8("a" + bom + "b"), "a" + bom + "b");
  // A mark cut short is not one.
  EXPECT_FALSE(is_valid_utf8("\xEF\xBB"));
  EXPECT_EQ(replace_invalid_utf8("\xEF\xBBx"), R + "x");
}

TEST(Utf8, LoneContinuationBytesAreEachReplaced) {
  EXPECT_FALSE(is_valid_utf8("\x80"));
  EXPECT_EQ(replace_invalid_utf8("\x80"), R);
  EXPECT_EQ(replace_invalid_utf8("a\x80" "b"), "a" + R + "b");
  EXPECT_EQ(replace_invalid_utf8("\xBF\x80\x80"), R + R + R);
  // One continuation byte more than the character takes.
  EXPECT_EQ(replace_invalid_utf8("\xC3\xA9\xA9"), "\xC3\xA9" + R);
}

TEST(Utf8, OverlongFormsAreReplacedBytePerByte) {
  // "/" written in two, three and four bytes: no prefix of these starts a
  // well-formed sequence, so every byte is its own maximal subpart.
  EXPECT_FALSE(is_valid_utf8("\xC0\xAF"));
  EXPECT_EQ(replace_invalid_utf8("\xC0\xAF"), R + R);
  EXPECT_EQ(replace_invalid_utf8("\xC1\xBF"), R + R);
  EXPECT_FALSE(is_valid_utf8("\xE0\x80\xAF"));
  EXPECT_EQ(replace_invalid_utf8("\xE0\x80\xAF"), R + R + R);
  EXPECT_EQ(replace_invalid_utf8("\xE0\x9F\xBF"), R + R + R);  // U+07FF in three bytes
  EXPECT_EQ(replace_invalid_utf8("\xF0\x80\x80\xAF"), R + R + R + R);
  EXPECT_EQ(replace_invalid_utf8("\xF0\x8F\xBF\xBF"), R + R + R + R);  // U+FFFF in four bytes
}

TEST(Utf8, Utf16SurrogatesAreReplacedBytePerByte) {
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));  // U+D800
  EXPECT_EQ(replace_invalid_utf8("\xED\xA0\x80"), R + R + R);
  EXPECT_EQ(replace_invalid_utf8("\xED\xBF\xBF"), R + R + R);  // U+DFFF
  // A surrogate pair as CESU-8 writes it: six replacements, not one character.
  EXPECT_EQ(replace_invalid_utf8("\xED\xA0\xBD\xED\xB8\x80"), R + R + R + R + R + R);
  EXPECT_TRUE(is_valid_utf8("\xED\x9F\xBF"));  // U+D7FF, just below
}

TEST(Utf8, BytesThatNeverOccurAndCodePointsBeyondTheRangeAreReplaced) {
  EXPECT_FALSE(is_valid_utf8("\xFF"));
  EXPECT_FALSE(is_valid_utf8("\xFE"));
  EXPECT_EQ(replace_invalid_utf8("\xFF\xFE"), R + R);
  EXPECT_EQ(replace_invalid_utf8("\xFE\xFF" "a"), R + R + "a");
  EXPECT_EQ(replace_invalid_utf8("\xF5\x80\x80\x80"), R + R + R + R);
  // U+110000: F4 takes 80..8F next.
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));
  EXPECT_EQ(replace_invalid_utf8("\xF4\x90\x80\x80"), R + R + R + R);
}

TEST(Utf8, ASequenceCutShortIsOneReplacement) {
  // At the end of the text.
  EXPECT_FALSE(is_valid_utf8("a\xC3"));
  EXPECT_EQ(replace_invalid_utf8("a\xC3"), "a" + R);
  EXPECT_EQ(replace_invalid_utf8("a\xE2\x82"), "a" + R);
  EXPECT_EQ(replace_invalid_utf8("a\xF0\x9D\x84"), "a" + R);
  EXPECT_EQ(replace_invalid_utf8("\xF0\x9D"), R);
  // Before a byte that cannot continue it; that byte is then read anew.
  EXPECT_EQ(replace_invalid_utf8("\xE2\x82z"), R + "z");
  EXPECT_EQ(replace_invalid_utf8("m\xC3("), "m" + R + "(");
  EXPECT_EQ(replace_invalid_utf8("\xE2\x82\xE2\x82\xAC"), R + "\xE2\x82\xAC");
  EXPECT_EQ(replace_invalid_utf8("\xF0\x9D\x84\xC3\xA9"), R + "\xC3\xA9");
}

TEST(Utf8, ValidTextAroundInvalidBytesIsKept) {
  const std::string text = "caf\xC3\xA9 \xFF \xF0\x9D\x84\x9E \xC0\xAF end";
  EXPECT_EQ(replace_invalid_utf8(text), "caf\xC3\xA9 " + R + " \xF0\x9D\x84\x9E " + R + R + " end");
  EXPECT_TRUE(is_valid_utf8(replace_invalid_utf8(text)));
}

TEST(Utf8, EveryByteStringOfUpToThreeBytesRepairsToValidText) {
  // Exhaustive over one and two bytes, and three bytes from a sample of
  // leads: the result is always valid, and valid input is a fixed point.
  std::string text;
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; ++b) {
      text = {static_cast<char>(a), static_cast<char>(b)};
      const std::string repaired = replace_invalid_utf8(text);
      ASSERT_TRUE(is_valid_utf8(repaired)) << a << " " << b;
      ASSERT_EQ(replace_invalid_utf8(repaired), repaired);
      ASSERT_EQ(is_valid_utf8(text), repaired == text) << a << " " << b;
      for (int c : {0x00, 0x41, 0x80, 0x9F, 0xA0, 0xBF, 0xC3, 0xED, 0xF4, 0xFF}) {
        text = {static_cast<char>(a), static_cast<char>(b), static_cast<char>(c)};
        const std::string three = replace_invalid_utf8(text);
        ASSERT_TRUE(is_valid_utf8(three)) << a << " " << b << " " << c;
        ASSERT_EQ(is_valid_utf8(text), three == text) << a << " " << b << " " << c;
      }
    }
  }
}

}  // namespace
}  // namespace tunekit::core
