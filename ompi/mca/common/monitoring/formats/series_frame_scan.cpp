#include "formats/series_frame_scan.h"

#include <algorithm>
#include <charconv>

#include "formats/checksum.h"

namespace mpimon::series {

namespace {

constexpr size_t kMaxHeaderBytes = 128;  // a real header line is about 60 bytes
constexpr size_t kChunkBytes = 1 << 16;

template <typename Int>
bool parse_number(std::string_view text, Int& value) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc{} && end == text.data() + text.size();
}

// Splits off the next space-separated word (empty when none is left).
std::string_view next_word(std::string_view& line) {
  const size_t space = std::min(line.find(' '), line.size());
  std::string_view word = line.substr(0, space);
  line.remove_prefix(space == line.size() ? space : space + 1);
  return word;
}

struct ParsedHeader {
  FrameHeader header;
  uint64_t length = 0;
  uint32_t crc = 0;
  size_t covered = 0;  // bytes of the line the CRC covers (up to the space before it)
};

// One header line without its '\n'; false if it is not a well-formed header.
bool parse_header_line(std::string_view line, ParsedHeader& out) {
  if (line.substr(0, kFrameMagic.size()) != kFrameMagic) return false;
  std::string_view rest = line.substr(kFrameMagic.size());
  const std::string_view kind = next_word(rest);
  if (kind == "start")
    out.header.kind = FrameKind::start;
  else if (kind == "snapshot")
    out.header.kind = FrameKind::snapshot;
  else if (kind == "final")
    out.header.kind = FrameKind::final;
  else
    return false;
  if (!parse_number(next_word(rest), out.header.rank) || out.header.rank < 0) return false;
  if (!parse_number(next_word(rest), out.header.interval)) return false;
  if (!parse_number(next_word(rest), out.header.time_us) || out.header.time_us < 0) return false;
  if (!parse_number(next_word(rest), out.length) || out.length > kMaxPayloadBytes) return false;
  out.covered = line.size() - rest.size() - 1;  // up to the space before the CRC
  if (rest.size() != 8) return false;
  for (char c : rest)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  std::from_chars(rest.data(), rest.data() + rest.size(), out.crc, 16);
  return true;
}

// Frames from a byte source read in chunks. `read` appends up to n bytes to the buffer
// and returns how many (0 at the end).
class Scanner {
 public:
  Scanner(std::function<size_t(char*, size_t)> read, std::string initial, bool eof)
      : read_(std::move(read)), buffer_(std::move(initial)), eof_(eof) {}

  void run(const std::function<void(const Frame&)>& on_frame, std::vector<ScanIssue>& issues) {
    bool in_bad_region = false;
    uint64_t bad_start = 0;
    for (;;) {
      if (!available(1)) break;
      Frame frame;
      size_t frame_bytes = 0;
      if (try_frame(frame, frame_bytes)) {
        if (in_bad_region) issues.push_back({ScanIssue::damaged, bad_start, frame.offset - bad_start});
        in_bad_region = false;
        on_frame(frame);
        position_ += frame_bytes;
        continue;
      }
      if (!in_bad_region) {
        in_bad_region = true;
        bad_start = offset_of(position_);
      }
      if (!skip_to_next_magic()) break;
    }
    if (in_bad_region) issues.push_back({ScanIssue::torn_tail, bad_start, offset_of(buffer_.size()) - bad_start});
  }

 private:
  uint64_t offset_of(size_t index) const { return base_offset_ + index; }

  // At least n bytes from position_ on, reading more if needed; false if the source ends first.
  bool available(size_t n) {
    while (buffer_.size() - position_ < n) {
      if (eof_) return false;
      if (position_ > 0) {  // keep only what is still needed
        buffer_.erase(0, position_);
        base_offset_ += position_;
        position_ = 0;
      }
      const size_t old = buffer_.size();
      const size_t want = std::max(kChunkBytes, n - (old - position_));
      buffer_.resize(old + want);
      const size_t got = read_(buffer_.data() + old, want);
      buffer_.resize(old + got);
      if (got == 0) eof_ = true;
    }
    return true;
  }

  bool try_frame(Frame& frame, size_t& frame_bytes) {
    available(kMaxHeaderBytes);  // as much of a header as there is
    const std::string_view window(buffer_.data() + position_, std::min(kMaxHeaderBytes, buffer_.size() - position_));
    const size_t newline = window.find('\n');
    if (newline == std::string_view::npos) return false;
    ParsedHeader parsed;
    if (!parse_header_line(window.substr(0, newline), parsed)) return false;
    const size_t header_bytes = newline + 1;
    if (!available(header_bytes + parsed.length)) return false;
    const std::string_view header_line(buffer_.data() + position_, header_bytes);
    const std::string_view payload(buffer_.data() + position_ + header_bytes, parsed.length);
    if (crc32c(payload, crc32c(header_line.substr(0, parsed.covered))) != parsed.crc) return false;
    frame.header = parsed.header;
    frame.payload = payload;
    frame.offset = offset_of(position_);
    frame_bytes = header_bytes + parsed.length;
    return true;
  }

  // Moves to the next occurrence of the magic after the current position; false at the end.
  bool skip_to_next_magic() {
    size_t from = position_ + 1;
    for (;;) {
      const size_t found = buffer_.find(kFrameMagic.data(), from, kFrameMagic.size());
      if (found != std::string::npos) {
        position_ = found;
        return true;
      }
      if (eof_) {
        position_ = buffer_.size();
        return false;
      }
      // Only the last (magic - 1) bytes can still begin a magic: keep them, read more.
      const size_t tail = kFrameMagic.size() - 1;
      position_ = std::min(buffer_.size(), std::max(from, buffer_.size() > tail ? buffer_.size() - tail : 0));
      available(buffer_.size() - position_ + 1);  // compacts: position_ may move to 0
      from = position_;
    }
  }

  std::function<size_t(char*, size_t)> read_;
  std::string buffer_;
  bool eof_ = false;
  size_t position_ = 0;       // index in buffer_ of the next byte to look at
  uint64_t base_offset_ = 0;  // file offset of buffer_[0]
};

}  // namespace

void scan_frame_source(const std::function<size_t(char*, size_t)>& read,
                       const std::function<void(const Frame&)>& on_frame, std::vector<ScanIssue>& issues) {
  Scanner scanner(read, std::string(), false);
  scanner.run(on_frame, issues);
}

void scan_frames(std::string_view bytes, const std::function<void(const Frame&)>& on_frame,
                 std::vector<ScanIssue>& issues) {
  Scanner scanner([](char*, size_t) { return size_t{0}; }, std::string(bytes), true);
  scanner.run(on_frame, issues);
}

}  // namespace mpimon::series
