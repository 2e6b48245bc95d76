// The readers' one way to take a line of text apart: a number that is a whole field, and a
// cursor over one line's fields whose errors name the place. Every reader of our formats
// (and of the user's input files) uses these; a reader adds only what its format means.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "readers/format_error.h"

namespace mpimon {

// `text` read whole as a Number with std::from_chars: the "C" locale whatever the user's,
// no leading '+' or space, no sign for unsigned types, nothing after the number; doubles in
// fixed or scientific notation (and "inf", "nan": callers that need a finite value check).
// nullopt for anything else, the empty text and values out of the type's range included.
template <typename Number>
std::optional<Number> parse_number(std::string_view text) {
  Number value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// How an error names a line: "<source>:<line>" in a file, "<source>: line <n>" in a
// payload (a time series frame: the source names the file and the frame).
enum class LinePlace { file, payload };

// Throws FormatError "<place>: expected <expected>".
[[noreturn]] void fail_at(std::string_view source, size_t line, const std::string& expected,
                          LinePlace place = LinePlace::file);

// One line's fields, left to right. Cheap to make: one per line of a large file.
class FieldCursor {
 public:
  enum class Separator {
    spaces,     // runs of spaces; spaces before the first field and after the last are allowed
    one_space,  // exactly one space between fields; two in a row are an error
    tab,        // one tab; two in a row hold an empty field
  };
  struct Style {
    Separator separator = Separator::spaces;
    LinePlace place = LinePlace::file;
    size_t quote_limit = std::string_view::npos;  // how much of a bad field an error quotes
  };

  FieldCursor(std::string_view line, std::string_view source, size_t line_no, Style style)
      : rest_(line), source_(source), line_no_(line_no), style_(style) {}

  [[noreturn]] void fail(const std::string& expected) const { fail_at(source_, line_no_, expected, style_.place); }

  // The next field; fails "expected <what>, found end of line" when there is none.
  std::string_view next(const char* what);
  // `text` as a whole Number; fails "expected <what>, found '<text>'".
  template <typename Number>
  Number number(std::string_view text, const char* what) const {
    const std::optional<Number> value = parse_number<Number>(text);
    if (!value) fail(std::string(what) + ", found '" + quote(text) + "'");
    return *value;
  }
  // The next field as a Number.
  template <typename Number>
  Number number(const char* what) {
    return number<Number>(next(what), what);
  }
  // A histogram field, "<bucket>:<count>,...": on_item(bucket, count text) per item, in
  // order (the format's rules on buckets and counts are the caller's, which reads the count
  // with number<uint64_t>(text, "a histogram count") once the bucket is checked); fails
  // "expected <bucket>:<count>, found '<item>'" for an item without a colon.
  template <typename OnItem>
  void for_each_histogram_item(std::string_view histogram, OnItem&& on_item) const {
    while (!histogram.empty()) {
      const size_t comma = std::min(histogram.find(','), histogram.size());
      const std::string_view item = histogram.substr(0, comma);
      histogram.remove_prefix(comma == histogram.size() ? comma : comma + 1);
      const size_t colon = item.find(':');
      if (colon == std::string_view::npos) fail("<bucket>:<count>, found '" + quote(item) + "'");
      on_item(number<int>(item.substr(0, colon), "a histogram bucket"), item.substr(colon + 1));
    }
  }
  // No field is left (separators only).
  bool at_end();
  // Fails "expected end of line, found '<rest>'" unless at_end().
  void end();
  // What is left of the line, unread.
  std::string_view rest() const { return rest_; }
  // `text` as an error quotes it (cut to the style's quote_limit).
  std::string quote(std::string_view text) const { return std::string(text.substr(0, style_.quote_limit)); }

 private:
  void skip_spaces();

  std::string_view rest_;
  std::string_view source_;
  size_t line_no_;
  Style style_;
};

}  // namespace mpimon
