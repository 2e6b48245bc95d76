// The readers' field helpers (tools/readers/text_fields.h): whole-field numbers, the three
// separators, and errors that name the place.
#include "readers/text_fields.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace mpimon {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const FormatError& e) {
    return e.what();
  }
  return "no error";
}

TEST(TextFields, NumberIsTheWholeField) {
  EXPECT_EQ(42u, parse_number<uint64_t>("42"));
  EXPECT_EQ(-7, parse_number<int32_t>("-7"));
  EXPECT_EQ(std::nullopt, parse_number<uint64_t>(""));
  EXPECT_EQ(std::nullopt, parse_number<uint64_t>("42x"));
  EXPECT_EQ(std::nullopt, parse_number<uint64_t>(" 42"));
  EXPECT_EQ(std::nullopt, parse_number<uint64_t>("+42"));
  EXPECT_EQ(std::nullopt, parse_number<uint64_t>("-1"));  // no sign for unsigned types
}

TEST(TextFields, NumberOutOfTheTypesRangeIsRefused) {
  EXPECT_EQ(std::numeric_limits<uint64_t>::max(), parse_number<uint64_t>("18446744073709551615"));
  EXPECT_EQ(std::nullopt, parse_number<uint64_t>("18446744073709551616"));
  EXPECT_EQ(std::nullopt, parse_number<int32_t>("2147483648"));
}

TEST(TextFields, DoublesInTheCLocale) {
  EXPECT_EQ(1.5, parse_number<double>("1.5"));
  EXPECT_EQ(1e3, parse_number<double>("1e3"));
  EXPECT_EQ(std::nullopt, parse_number<double>("1,5"));
  EXPECT_EQ(std::nullopt, parse_number<double>("+1.5"));
  EXPECT_EQ(std::nullopt, parse_number<double>("1.5 "));
}

TEST(TextFields, SpacesSeparatorSkipsRunsOfSpaces) {
  FieldCursor c("  a   b ", "f", 3, {});
  EXPECT_EQ("a", c.next("a word"));
  EXPECT_FALSE(c.at_end());
  EXPECT_EQ("b", c.next("a word"));
  EXPECT_TRUE(c.at_end());
  c.end();
  EXPECT_EQ("f:3: expected a word, found end of line", error_of([&] { c.next("a word"); }));
}

TEST(TextFields, OneSpaceSeparatorRefusesASecondSpace) {
  FieldCursor c("a  b", "frame 2", 5, {FieldCursor::Separator::one_space, LinePlace::payload});
  EXPECT_EQ("a", c.next("a word"));
  EXPECT_EQ("frame 2: line 5: expected a word, found a second space", error_of([&] { c.next("a word"); }));
}

TEST(TextFields, TabSeparatorKeepsEmptyFields) {
  FieldCursor c("E\t\t3", "p.prof", 1, {FieldCursor::Separator::tab});
  EXPECT_EQ("E", c.next("a kind"));
  EXPECT_EQ("", c.next("a name"));
  EXPECT_EQ(3, c.number<int>("a count"));
  EXPECT_TRUE(c.at_end());
}

TEST(TextFields, NumberErrorsQuoteTheFieldUpToTheLimit) {
  FieldCursor whole("12x", "j", 9, {});
  EXPECT_EQ("j:9: expected a count, found '12x'", error_of([&] { whole.number<uint64_t>("a count"); }));
  FieldCursor cut("123456789x", "s", 2, {FieldCursor::Separator::one_space, LinePlace::payload, 4});
  EXPECT_EQ("s: line 2: expected a count, found '1234'", error_of([&] { cut.number<uint64_t>("a count"); }));
}

TEST(TextFields, EndRefusesWhatIsLeft) {
  FieldCursor c("1 2", "j", 4, {});
  EXPECT_EQ(1, c.number<int>("a number"));
  EXPECT_EQ("j:4: expected end of line, found '2'", error_of([&] { c.end(); }));
  EXPECT_EQ("j:7: expected x", error_of([&] { fail_at("j", 7, "x"); }));
}

TEST(TextFields, HistogramItemsInOrderWithTheirCountText) {
  FieldCursor c("", "j", 6, {});
  std::vector<std::pair<int, std::string>> items;
  c.for_each_histogram_item("3:10,0:2", [&](int bucket, std::string_view count) { items.emplace_back(bucket, count); });
  EXPECT_EQ((std::vector<std::pair<int, std::string>>{{3, "10"}, {0, "2"}}), items);
  EXPECT_EQ("j:6: expected <bucket>:<count>, found '7'",
            error_of([&] { c.for_each_histogram_item("3:1,7", [](int, std::string_view) {}); }));
  EXPECT_EQ("j:6: expected a histogram bucket, found 'x'",
            error_of([&] { c.for_each_histogram_item("x:1", [](int, std::string_view) {}); }));
}

}  // namespace
}  // namespace mpimon
