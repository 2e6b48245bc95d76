#include "readers/text_fields.h"

#include <algorithm>

namespace mpimon {

void fail_at(std::string_view source, size_t line, const std::string& expected, LinePlace place) {
  const std::string where = place == LinePlace::file ? std::string(source) + ":" + std::to_string(line)
                                                     : std::string(source) + ": line " + std::to_string(line);
  throw FormatError(where + ": expected " + expected);
}

void FieldCursor::skip_spaces() {
  if (style_.separator != Separator::spaces) return;
  while (!rest_.empty() && rest_.front() == ' ') rest_.remove_prefix(1);
}

std::string_view FieldCursor::next(const char* what) {
  skip_spaces();
  if (rest_.empty()) fail(std::string(what) + ", found end of line");
  const char separator = style_.separator == Separator::tab ? '\t' : ' ';
  const size_t end = std::min(rest_.find(separator), rest_.size());
  const std::string_view field = rest_.substr(0, end);
  switch (style_.separator) {
    case Separator::spaces:  // the separator stays: the next call skips it
      rest_.remove_prefix(end);
      break;
    case Separator::one_space:
      if (field.empty()) fail(std::string(what) + ", found a second space");
      rest_.remove_prefix(end == rest_.size() ? end : end + 1);
      break;
    case Separator::tab:
      rest_.remove_prefix(end == rest_.size() ? end : end + 1);
      break;
  }
  return field;
}

bool FieldCursor::at_end() {
  skip_spaces();
  return rest_.empty();
}

void FieldCursor::end() {
  if (!at_end()) fail("end of line, found '" + quote(rest_) + "'");
}

}  // namespace mpimon
