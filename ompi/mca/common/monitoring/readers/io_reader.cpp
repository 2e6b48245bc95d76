#include "readers/io_reader.h"

#include "formats/job_format.h"  // unescape_name
#include "readers/format_error.h"
#include "readers/job_reader.h"  // JobAnnotation

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace mpimon::mpi_io {

namespace {

constexpr int32_t kHighestRank = 2147483646;  // MPI sizes are int

// One line split into fields, with the error message shape every reader uses.
class Fields {
 public:
  Fields(std::string_view line, char separator, std::string_view source, size_t line_no)
      : source_(source), line_no_(line_no) {
    while (!line.empty()) {
      const size_t end = std::min(line.find(separator), line.size());
      if (end > 0 || separator == '\t') fields_.push_back(line.substr(0, end));
      line.remove_prefix(end == line.size() ? end : end + 1);
    }
  }
  Fields(const std::vector<std::string>& fields, std::string_view source, size_t line_no)
      : source_(source), line_no_(line_no) {
    for (const std::string& f : fields) fields_.emplace_back(f);
  }

  [[noreturn]] void fail(const std::string& expected) const {
    throw FormatError(std::string(source_) + ":" + std::to_string(line_no_) + ": expected " + expected);
  }
  size_t size() const { return fields_.size(); }
  void expect_size(size_t n, const char* form) const {
    if (fields_.size() != n)
      fail(std::string(form) + " (" + std::to_string(n) + " fields), found " + std::to_string(fields_.size()));
  }
  std::string_view operator[](size_t i) const { return fields_[i]; }

  uint64_t count(size_t i, const char* what) const { return count_text(fields_[i], what); }
  // "<n> <unit>" (.prof fields)
  uint64_t count_with_unit(size_t i, std::string_view unit) const {
    const std::string_view f = fields_[i];
    const size_t space = f.find(' ');
    if (space == std::string_view::npos || f.substr(space + 1) != unit)
      fail("'<count> " + std::string(unit) + "', found '" + std::string(f) + "'");
    return count_text(f.substr(0, space), std::string(unit).c_str());
  }
  double seconds_with_unit(size_t i, std::string_view unit) const {
    const std::string_view f = fields_[i];
    const size_t space = f.find(' ');
    if (space == std::string_view::npos || f.substr(space + 1) != unit)
      fail("'<seconds> " + std::string(unit) + "', found '" + std::string(f) + "'");
    return seconds(f.substr(0, space));
  }
  double seconds(std::string_view text) const {
    const std::string s(text);
    char* end = nullptr;
    const double value = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(value) || value < 0 || s.front() == '+' ||
        s.find_first_of("xXeEnN") != std::string::npos)
      fail("seconds (a non-negative decimal number), found '" + s + "'");
    return value;
  }
  int32_t rank(size_t i, int32_t world_size) const {
    const uint64_t value = count_text(fields_[i], "a rank");
    if (value >= static_cast<uint64_t>(world_size)) fail("a rank in [0, " + std::to_string(world_size) + ")");
    return static_cast<int32_t>(value);
  }
  std::string_view identity(size_t i) const {
    const std::string_view f = fields_[i];
    bool hex = f.size() == 16;
    for (const char c : f) hex = hex && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    if (!hex) fail("a file identity (16 lower-case hex digits), found '" + std::string(f) + "'");
    return f;
  }
  // 66 comma-separated counts (.prof) or <bucket>:<count> pairs (job file) summing to `total`.
  void histogram(size_t i, bool dense, uint64_t total, Counters& into) const {
    std::string_view h = fields_[i];
    uint64_t sum = 0;
    uint64_t buckets[kHistogramBuckets] = {};
    if (!dense && h == "-") {
      if (total != 0) fail("a histogram of " + std::to_string(total) + " counts, found '-'");
      return;
    }
    int position = 0;
    while (!h.empty() || (dense && position == 0)) {
      const size_t comma = std::min(h.find(','), h.size());
      const std::string_view item = h.substr(0, comma);
      h.remove_prefix(comma == h.size() ? comma : comma + 1);
      int bucket = position;
      std::string_view value = item;
      if (!dense) {
        const size_t colon = item.find(':');
        if (colon == std::string_view::npos) fail("<bucket>:<count>, found '" + std::string(item) + "'");
        const uint64_t b = count_text(item.substr(0, colon), "a histogram bucket");
        if (b >= kHistogramBuckets) fail("a histogram bucket in [0, 65]");
        bucket = static_cast<int>(b);
        value = item.substr(colon + 1);
      } else if (position >= kHistogramBuckets) {
        fail("66 histogram counts, found more");
      }
      const uint64_t n = count_text(value, "a histogram count");
      if (n > total - sum) fail("histogram counts summing to " + std::to_string(total) + ", found more");
      buckets[bucket] += n;
      sum += n;
      ++position;
    }
    if (dense && position != kHistogramBuckets) fail("66 histogram counts, found " + std::to_string(position));
    if (sum != total) fail("histogram counts summing to " + std::to_string(total) + ", found " + std::to_string(sum));
    if (total >= kCountLimit - into.messages) fail("counts whose sum over the inputs stays below 2^60");
    for (int b = 0; b < kHistogramBuckets; ++b) into.histogram[b] += buckets[b];
    into.messages += total;
  }

 private:
  uint64_t count_text(std::string_view text, const char* what) const {
    uint64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size())
      fail(std::string(what) + ", found '" + std::string(text) + "'");
    if (value >= kCountLimit) fail(std::string(what) + " below 2^60, found " + std::string(text));
    return value;
  }

  std::vector<std::string_view> fields_;
  std::string_view source_;
  size_t line_no_;
};

// Adds with the readers' bound (sums stay below 2^60).
void add(uint64_t& into, uint64_t value, const Fields& f) {
  if (value >= kCountLimit - into) f.fail("counts whose sum over the inputs stays below 2^60");
  into += value;
}

std::string unescape(std::string_view field) { return unescape_name(field); }

}  // namespace

uint64_t RankUse::asked_bytes(Direction d) const {
  uint64_t sum = 0;
  for (int a = 0; a < kAccessCount; ++a)
    if (direction_of(static_cast<Access>(a)) == d) sum += asked[a].bytes;
  return sum;
}

uint64_t RankUse::asked_calls(Direction d) const {
  uint64_t sum = 0;
  for (int a = 0; a < kAccessCount; ++a)
    if (direction_of(static_cast<Access>(a)) == d) sum += asked[a].messages;
  return sum;
}

void IoTable::merge(const IoTable& other) {
  for (const auto& [identity, theirs] : other.files_) {
    FileInfo& ours = files_[identity];
    if (ours.name.empty()) ours.name = theirs.name;
    if (ours.members.empty()) ours.members = theirs.members;
    for (int a = 0; a < kAccessCount; ++a) {
      ours.asked_sizes[a].messages += theirs.asked_sizes[a].messages;
      for (int b = 0; b < kHistogramBuckets; ++b)
        ours.asked_sizes[a].histogram[b] += theirs.asked_sizes[a].histogram[b];
    }
    for (int d = 0; d < kDirectionCount; ++d) {
      ours.fs_sizes[d].messages += theirs.fs_sizes[d].messages;
      for (int b = 0; b < kHistogramBuckets; ++b) ours.fs_sizes[d].histogram[b] += theirs.fs_sizes[d].histogram[b];
    }
    for (const auto& [rank, use] : theirs.ranks) {
      RankUse& mine = ours.ranks[rank];
      if (mine.io.empty()) mine.io = use.io;
      if (mine.fcoll.empty()) mine.fcoll = use.fcoll;
      for (int m = 0; m < kMetaOpCount; ++m) mine.meta[m] += use.meta[m];
      mine.nonblocking_calls += use.nonblocking_calls;
      mine.split_calls += use.split_calls;
      mine.collective_calls += use.collective_calls;
      mine.aggregated_calls += use.aggregated_calls;
      for (int t = 0; t < kTimerCount; ++t) mine.seconds[t] += use.seconds[t];
      for (int a = 0; a < kAccessCount; ++a) {
        mine.asked[a].messages += use.asked[a].messages;
        mine.asked[a].bytes += use.asked[a].bytes;
      }
      for (int d = 0; d < kDirectionCount; ++d) {
        mine.fs[d].operations += use.fs[d].operations;
        mine.fs[d].entries += use.fs[d].entries;
        mine.fs[d].bytes += use.fs[d].bytes;
        mine.fs[d].consecutive += use.fs[d].consecutive;
        mine.fs[d].sequential += use.fs[d].sequential;
        mine.fs[d].end = std::max(mine.fs[d].end, use.fs[d].end);
      }
      for (const auto& [peer, t] : use.shuffle) {
        mine.shuffle[peer].messages += t.messages;
        mine.shuffle[peer].bytes += t.bytes;
      }
    }
  }
}

bool is_prof_io_line(std::string_view line) { return line == "# MPI-IO" || line.rfind("# IO_", 0) == 0; }

FileInfo& IoTable::file(std::string_view identity) { return files_[std::string(identity)]; }

bool IoTable::add_prof_line(std::string_view line, std::string_view source, size_t line_no) {
  if (!is_prof_io_line(line)) return false;
  if (line == "# MPI-IO") return true;
  const size_t tab = line.find('\t');
  const std::string_view kind = line.substr(0, tab);
  if (tab == std::string_view::npos)
    Fields(line, '\t', source, line_no).fail("tab-separated fields after " + std::string(kind));
  const Fields f(line.substr(tab + 1), '\t', source, line_no);
  if (kind == "# IO_FILE") {
    f.expect_size(18,
                  "'# IO_FILE <me> <identity> <name> <io> <fcoll> <6 metadata counts> <nonblocking> <split> "
                  "<collective> <aggregated> <read s> <write s> <meta s>'");
    const int32_t me = f.rank(0, kHighestRank + 1);
    FileInfo& info = file(f.identity(1));
    const std::string name = unescape(f[2]);
    if (!info.name.empty() && info.name != name) f.fail("one name per file identity, found '" + name + "'");
    info.name = name;
    RankUse& use = info.ranks[me];
    if (f[3] != "-") use.io = std::string(f[3]);
    if (f[4] != "-") use.fcoll = std::string(f[4]);
    for (int m = 0; m < kMetaOpCount; ++m)
      add(use.meta[m], f.count_with_unit(5 + m, meta_op_name(static_cast<MetaOp>(m))), f);
    add(use.nonblocking_calls, f.count_with_unit(11, "nonblocking"), f);
    add(use.split_calls, f.count_with_unit(12, "split"), f);
    add(use.collective_calls, f.count_with_unit(13, "collective"), f);
    add(use.aggregated_calls, f.count_with_unit(14, "aggregated"), f);
    use.seconds[0] += f.seconds_with_unit(15, "s read");
    use.seconds[1] += f.seconds_with_unit(16, "s write");
    use.seconds[2] += f.seconds_with_unit(17, "s meta");
    return true;
  }
  if (kind == "# IO_ASKED") {
    f.expect_size(6, "'# IO_ASKED <me> <identity> <access> <n> calls <B> bytes <histogram>'");
    const int32_t me = f.rank(0, kHighestRank + 1);
    FileInfo& info = file(f.identity(1));
    Access access;
    if (!parse_access(f[2], access)) f.fail("an access (read_at ... write_ordered), found '" + std::string(f[2]) + "'");
    const uint64_t calls = f.count_with_unit(3, "calls");
    PeerTraffic& t = info.ranks[me].asked[static_cast<int>(access)];
    add(t.messages, calls, f);
    add(t.bytes, f.count_with_unit(4, "bytes"), f);
    Counters& h = info.asked_sizes[static_cast<int>(access)];
    f.histogram(5, true, calls, h);
    return true;
  }
  if (kind == "# IO_FS") {
    f.expect_size(10,
                  "'# IO_FS <me> <identity> <read|write> <n> ops <n> entries <B> bytes <n> consecutive <n> "
                  "sequential <B> end <histogram>'");
    const int32_t me = f.rank(0, kHighestRank + 1);
    FileInfo& info = file(f.identity(1));
    Direction d;
    if (!parse_direction(f[2], d)) f.fail("read or write, found '" + std::string(f[2]) + "'");
    RankUse::Fs& fs = info.ranks[me].fs[static_cast<int>(d)];
    add(fs.operations, f.count_with_unit(3, "ops"), f);
    const uint64_t entries = f.count_with_unit(4, "entries");
    add(fs.entries, entries, f);
    add(fs.bytes, f.count_with_unit(5, "bytes"), f);
    add(fs.consecutive, f.count_with_unit(6, "consecutive"), f);
    add(fs.sequential, f.count_with_unit(7, "sequential"), f);
    fs.end = std::max(fs.end, f.count_with_unit(8, "end"));
    f.histogram(9, true, entries, info.fs_sizes[static_cast<int>(d)]);
    return true;
  }
  if (kind == "# IO_SHUFFLE") {
    f.expect_size(5, "'# IO_SHUFFLE <me> <identity> <peer> <B> bytes <n> msgs sent'");
    const int32_t me = f.rank(0, kHighestRank + 1);
    FileInfo& info = file(f.identity(1));
    const int32_t peer = f.rank(2, kHighestRank + 1);
    PeerTraffic& t = info.ranks[me].shuffle[peer];
    add(t.bytes, f.count_with_unit(3, "bytes"), f);
    add(t.messages, f.count_with_unit(4, "msgs sent"), f);
    return true;
  }
  f.fail("an I/O line (# IO_FILE, # IO_ASKED, # IO_FS, # IO_SHUFFLE), found '" + std::string(kind) + "'");
}

bool IoTable::add_job_annotation(const JobAnnotation& a, std::string_view source, int32_t world_size) {
  if (a.keyword.rfind("io_", 0) != 0) return false;
  const Fields f(a.fields, source, a.line);
  if (a.keyword == "io_file") {
    f.expect_size(3, "'io_file <identity> <name> <world ranks>'");
    FileInfo& info = file(f.identity(0));
    const std::string name = unescape(f[1]);
    if (!info.name.empty() && info.name != name) f.fail("one name per file identity, found '" + name + "'");
    info.name = name;
    std::vector<int32_t> members;
    if (!parse_rank_ranges(f[2], world_size, members))
      f.fail("world ranks as ranges (e.g. 0-3,8) within the world size, found '" + std::string(f[2]) + "'");
    if (!info.members.empty() && info.members != members) f.fail("one member list per file identity");
    info.members = std::move(members);
    return true;
  }
  if (a.keyword == "io_rank") {
    f.expect_size(17,
                  "'io_rank <me> <identity> <io> <fcoll> <6 metadata counts> <nonblocking> <split> "
                  "<collective> <aggregated> <read s> <write s> <meta s>'");
    const int32_t me = f.rank(0, world_size);
    RankUse& use = file(f.identity(1)).ranks[me];
    if (f[2] != "-") use.io = std::string(f[2]);
    if (f[3] != "-") use.fcoll = std::string(f[3]);
    for (int m = 0; m < kMetaOpCount; ++m) add(use.meta[m], f.count(4 + m, "a metadata call count"), f);
    add(use.nonblocking_calls, f.count(10, "a nonblocking call count"), f);
    add(use.split_calls, f.count(11, "a split call count"), f);
    add(use.collective_calls, f.count(12, "a collective call count"), f);
    add(use.aggregated_calls, f.count(13, "an aggregated call count"), f);
    for (int t = 0; t < kTimerCount; ++t) use.seconds[t] += f.seconds(f[14 + t]);
    return true;
  }
  if (a.keyword == "io_asked") {
    f.expect_size(6, "'io_asked <me> <identity> <access> <calls> <bytes> <histogram>'");
    const int32_t me = f.rank(0, world_size);
    FileInfo& info = file(f.identity(1));
    Access access;
    if (!parse_access(f[2], access)) f.fail("an access (read_at ... write_ordered), found '" + std::string(f[2]) + "'");
    const uint64_t calls = f.count(3, "a call count");
    PeerTraffic& t = info.ranks[me].asked[static_cast<int>(access)];
    add(t.messages, calls, f);
    add(t.bytes, f.count(4, "a byte count"), f);
    f.histogram(5, false, calls, info.asked_sizes[static_cast<int>(access)]);
    return true;
  }
  if (a.keyword == "io_fs") {
    f.expect_size(10,
                  "'io_fs <me> <identity> <read|write> <ops> <entries> <bytes> <consecutive> <sequential> "
                  "<end> <histogram>'");
    const int32_t me = f.rank(0, world_size);
    FileInfo& info = file(f.identity(1));
    Direction d;
    if (!parse_direction(f[2], d)) f.fail("read or write, found '" + std::string(f[2]) + "'");
    RankUse::Fs& fs = info.ranks[me].fs[static_cast<int>(d)];
    add(fs.operations, f.count(3, "an operation count"), f);
    const uint64_t entries = f.count(4, "an entry count");
    add(fs.entries, entries, f);
    add(fs.bytes, f.count(5, "a byte count"), f);
    add(fs.consecutive, f.count(6, "a consecutive count"), f);
    add(fs.sequential, f.count(7, "a sequential count"), f);
    fs.end = std::max(fs.end, f.count(8, "an end offset"));
    f.histogram(9, false, entries, info.fs_sizes[static_cast<int>(d)]);
    return true;
  }
  if (a.keyword == "io_shuffle") {
    f.expect_size(5, "'io_shuffle <me> <identity> <peer> <messages> <bytes>'");
    const int32_t me = f.rank(0, world_size);
    FileInfo& info = file(f.identity(1));
    PeerTraffic& t = info.ranks[me].shuffle[f.rank(2, world_size)];
    add(t.messages, f.count(3, "a message count"), f);
    add(t.bytes, f.count(4, "a byte count"), f);
    return true;
  }
  return false;  // a later version's io_ annotation: skipped, as unknown keywords are
}

}  // namespace mpimon::mpi_io
