#include "prof_format.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

namespace mpimon {

namespace {

void append_line(std::string& out, char kind, int me, const Record& r) {
  out += kind;
  out += '\t' + std::to_string(me) + '\t' + std::to_string(r.peer) + '\t' +
         std::to_string(r.counters.bytes) + " bytes\t" + std::to_string(r.counters.messages) +
         " msgs sent";
}

void append_histogram(std::string& out, const uint64_t* histogram) {
  out += '\t';
  for (int b = 0; b < kHistogramBuckets; ++b) {
    out += std::to_string(histogram[b]);
    out += b + 1 < kHistogramBuckets ? ',' : '\n';
  }
}

}  // namespace

std::string format_prof(int me, const Snapshot& records, bool split_internal, const ProfExtras& extras) {
  // Per peer: the E and I records and their summed histogram.
  struct PeerPml {
    const Record* external = nullptr;
    const Record* internal = nullptr;
    uint64_t histogram[kHistogramBuckets] = {};
  };
  std::map<int32_t, PeerPml> pml;
  for (const Record& r : records) {
    if (r.category != Category::external && r.category != Category::internal) continue;
    PeerPml& p = pml[r.peer];
    (r.category == Category::external ? p.external : p.internal) = &r;
    for (int b = 0; b < kHistogramBuckets; ++b) p.histogram[b] += r.counters.histogram[b];
  }

  std::string out = "# POINT TO POINT\n";
  for (const auto& [peer, p] : pml) {
    if (!p.external) continue;
    append_line(out, 'E', me, *p.external);
    append_histogram(out, p.histogram);
  }
  if (split_internal) {
    for (const auto& [peer, p] : pml) {
      if (!p.internal) continue;
      append_line(out, 'I', me, *p.internal);
      if (p.external) {
        out += '\n';
      } else {
        append_histogram(out, p.histogram);
      }
    }
  }
  out += "# OSC\n";
  for (const Record& r : records) {
    if (r.category == Category::osc_sent) { append_line(out, 'S', me, r); out += '\n'; }
    if (r.category == Category::osc_recv) { append_line(out, 'R', me, r); out += '\n'; }
  }
  out += extras.osc;
  out += "# COLLECTIVES\n";
  for (const Record& r : records) {
    if (r.category == Category::coll) { append_line(out, 'C', me, r); out += '\n'; }
  }
  out += extras.collectives;
  return out;
}

// ---------------------------------------------------------------------------------------
// Reader

namespace {

class LineParser {
 public:
  LineParser(std::string_view line, std::string_view source, size_t line_no)
      : rest_(line), source_(source), line_no_(line_no) {}

  [[noreturn]] void fail(const std::string& expected) const {
    throw FormatError(std::string(source_) + ":" + std::to_string(line_no_) + ": expected " + expected);
  }
  std::string_view field(const char* what) {
    if (rest_.empty()) fail(std::string(what) + ", found end of line");
    const size_t tab = rest_.find('\t');
    std::string_view f = rest_.substr(0, tab);
    rest_ = tab == std::string_view::npos ? std::string_view{} : rest_.substr(tab + 1);
    return f;
  }
  template <typename Int>
  Int number(std::string_view text, const char* what) {
    Int value{};
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size())
      fail(std::string(what) + ", found '" + std::string(text) + "'");
    return value;
  }
  // "<n> <suffix>"
  uint64_t number_with_suffix(std::string_view suffix, const char* what) {
    std::string_view f = field(what);
    if (f.size() <= suffix.size() + 1 || f.substr(f.size() - suffix.size()) != suffix ||
        f[f.size() - suffix.size() - 1] != ' ')
      fail(std::string(what) + " ('<number> " + std::string(suffix) + "'), found '" + std::string(f) + "'");
    return number<uint64_t>(f.substr(0, f.size() - suffix.size() - 1), what);
  }
  bool at_end() const { return rest_.empty(); }

 private:
  std::string_view rest_;
  std::string_view source_;
  size_t line_no_;
};

}  // namespace

ProfFile parse_prof(std::string_view text, std::string_view source) {
  ProfFile file;
  size_t line_no = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line[0] == '#') continue;

    LineParser p(line, source, line_no);
    std::string_view kind = p.field("a line kind");
    if (kind == "D" || kind == "O2A" || kind == "A2O" || kind == "A2A") {
      file.communicator_lines.emplace_back(line);
      continue;
    }
    if (kind.size() != 1 || std::string_view("EISRC").find(kind[0]) == std::string_view::npos)
      p.fail("a line kind (E, I, S, R, C, D, O2A, A2O, A2A or '#'), found '" + std::string(kind) + "'");
    ProfLine l;
    l.kind = kind[0];
    l.me = p.number<int32_t>(p.field("the sender's rank"), "the sender's rank");
    l.peer = p.number<int32_t>(p.field("the peer's rank"), "the peer's rank");
    if (l.me < 0 || l.peer < 0) p.fail("non-negative ranks");
    l.bytes = p.number_with_suffix("bytes", "a byte count");
    l.messages = p.number_with_suffix("msgs sent", "a message count");
    if (!p.at_end()) {
      std::string_view h = p.field("a histogram");
      int bucket = 0;
      while (true) {
        const size_t comma = h.find(',');
        if (bucket >= kHistogramBuckets) p.fail(std::to_string(kHistogramBuckets) + " histogram values, found more");
        l.histogram[bucket++] = p.number<uint64_t>(h.substr(0, comma), "a histogram count");
        if (comma == std::string_view::npos) break;
        h = h.substr(comma + 1);
      }
      if (bucket != kHistogramBuckets)
        p.fail(std::to_string(kHistogramBuckets) + " histogram values, found " + std::to_string(bucket));
      l.has_histogram = true;
      if (!p.at_end()) p.fail("end of line after the histogram");
    }
    file.lines.push_back(l);
  }
  return file;
}

std::string read_dump_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FormatError(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw FormatError(path + ": read error");
  return text.str();
}

ProfFile read_prof_file(const std::string& path) { return parse_prof(read_dump_text(path), path); }

}  // namespace mpimon
