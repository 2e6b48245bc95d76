#include "readers/io_reader.h"

#include "formats/job_format.h"  // unescape_name
#include "readers/format_error.h"
#include "readers/job_reader.h"  // JobAnnotation
#include "readers/text_fields.h"

#include <algorithm>
#include <optional>

namespace mpimon::mpi_io {

namespace {

constexpr int32_t kHighestRank = 2147483646;  // MPI sizes are int

// The two spellings of the I/O lines: .prof lines ("# IO_FS", tab-separated, counts with
// their unit: "3 ops", histograms as 66 counts) and job-file annotations ("io_fs",
// space-separated, bare counts, histograms as <bucket>:<count> pairs). One record table
// (kRecords) reads both; Line is the per-dialect accessor of a line's fields.
enum class Dialect { prof, job };

// How a count or a time is written: "<n> <prof>" in .prof lines; in job files a bare
// number, `job` naming it in errors.
struct Unit {
  const char* prof;
  const char* job;
};

class Line {
 public:
  Line(Dialect dialect, std::vector<std::string_view> fields, std::string_view source, size_t line_no,
       int32_t world_size)
      : dialect_(dialect), fields_(std::move(fields)), source_(source), line_no_(line_no), world_size_(world_size) {}

  Dialect dialect() const { return dialect_; }
  int32_t world_size() const { return world_size_; }
  [[noreturn]] void fail(const std::string& expected) const { fail_at(source_, line_no_, expected); }
  size_t size() const { return fields_.size(); }
  void expect_size(size_t n, const char* form) const {
    if (fields_.size() != n)
      fail(std::string(form) + " (" + std::to_string(n) + " fields), found " + std::to_string(fields_.size()));
  }

  // The next field, as it is written.
  std::string_view text() { return fields_[next_++]; }
  std::string_view identity() {
    const std::string_view f = text();
    bool hex = f.size() == 16;
    for (const char c : f) hex = hex && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    if (!hex) fail("a file identity (16 lower-case hex digits), found '" + std::string(f) + "'");
    return f;
  }
  // A world rank: below the job file's world size; any MPI rank in .prof lines (a .prof
  // file does not say the world size).
  int32_t rank() {
    const int32_t bound = dialect_ == Dialect::job ? world_size_ : kHighestRank + 1;
    const uint64_t value = count_text(text(), "a rank");
    if (value >= static_cast<uint64_t>(bound)) fail("a rank in [0, " + std::to_string(bound) + ")");
    return static_cast<int32_t>(value);
  }
  uint64_t count(Unit unit) {
    if (dialect_ == Dialect::job) return count_text(text(), unit.job);
    return count_text(unit_value(unit.prof, "count"), unit.prof);
  }
  double seconds(Unit unit) {
    return seconds_text(dialect_ == Dialect::job ? text() : unit_value(unit.prof, "seconds"));
  }
  mpi_io::Access access() {
    const std::string_view f = text();
    Access access;
    if (!parse_access(f, access)) fail("an access (read_at ... write_ordered), found '" + std::string(f) + "'");
    return access;
  }
  Direction direction() {
    const std::string_view f = text();
    Direction d;
    if (!parse_direction(f, d)) fail("read or write, found '" + std::string(f) + "'");
    return d;
  }
  // A histogram of `total` counts, added to `into`: 66 comma-separated counts (.prof) or
  // the non-zero buckets as <bucket>:<count> ("-" for none) (job files).
  void histogram(uint64_t total, Counters& into) {
    const bool dense = dialect_ == Dialect::prof;
    std::string_view h = text();
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
  // Adds with the readers' bound (sums stay below 2^60).
  void add(uint64_t& into, uint64_t value) const {
    if (value >= kCountLimit - into) fail("counts whose sum over the inputs stays below 2^60");
    into += value;
  }

 private:
  // "<value> <unit>" -> value
  std::string_view unit_value(std::string_view unit, const char* what) {
    const std::string_view f = text();
    const size_t space = f.find(' ');
    if (space == std::string_view::npos || f.substr(space + 1) != unit)
      fail("'<" + std::string(what) + "> " + std::string(unit) + "', found '" + std::string(f) + "'");
    return f.substr(0, space);
  }
  uint64_t count_text(std::string_view text, const char* what) const {
    const std::optional<uint64_t> value = parse_number<uint64_t>(text);
    if (!value) fail(std::string(what) + ", found '" + std::string(text) + "'");
    if (*value >= kCountLimit) fail(std::string(what) + " below 2^60, found " + std::string(text));
    return *value;
  }
  // Plain decimal notation only: no exponent, no inf or nan (parse_number takes them).
  double seconds_text(std::string_view text) const {
    const std::optional<double> value = parse_number<double>(text);
    if (!value || *value < 0 || text.find_first_of("xXeEnN") != std::string_view::npos)
      fail("seconds (a non-negative decimal number), found '" + std::string(text) + "'");
    return *value;
  }

  Dialect dialect_;
  std::vector<std::string_view> fields_;
  size_t next_ = 0;
  std::string_view source_;
  size_t line_no_;
  int32_t world_size_;
};

void set_name(FileInfo& info, std::string_view field, const Line& l) {
  const std::string name = unescape_name(field);
  if (!info.name.empty() && info.name != name) l.fail("one name per file identity, found '" + name + "'");
  info.name = name;
}

}  // namespace

// The I/O record kinds: one reader per kind, for both dialects (docs/formats.md, "MPI-IO").
struct IoRecordKinds {
  using Read = void (*)(Line&, IoTable&);
  struct Kind {
    std::string_view prof, job;  // "" when that dialect has no such line
    size_t prof_fields, job_fields;
    const char *prof_form, *job_form;
    Read read;
  };

  // io_file <identity> <name> <world ranks> (job files only: .prof lines carry the name
  // on # IO_FILE and no member list)
  static void file(Line& l, IoTable& table) {
    FileInfo& info = table.file(l.identity());
    set_name(info, l.text(), l);
    const std::string_view ranks = l.text();
    std::vector<int32_t> members;
    if (!parse_rank_ranges(ranks, l.world_size(), members))
      l.fail("world ranks as ranges (e.g. 0-3,8) within the world size, found '" + std::string(ranks) + "'");
    if (!info.members.empty() && info.members != members) l.fail("one member list per file identity");
    info.members = std::move(members);
  }
  // # IO_FILE / io_rank: one rank's components, metadata calls, call kinds and times.
  static void rank(Line& l, IoTable& table) {
    const int32_t me = l.rank();
    FileInfo& info = table.file(l.identity());
    if (l.dialect() == Dialect::prof) set_name(info, l.text(), l);
    RankUse& use = info.ranks[me];
    if (const std::string_view io = l.text(); io != "-") use.io = std::string(io);
    if (const std::string_view fcoll = l.text(); fcoll != "-") use.fcoll = std::string(fcoll);
    for (int m = 0; m < kMetaOpCount; ++m)
      l.add(use.meta[m], l.count({meta_op_name(static_cast<MetaOp>(m)), "a metadata call count"}));
    l.add(use.nonblocking_calls, l.count({"nonblocking", "a nonblocking call count"}));
    l.add(use.split_calls, l.count({"split", "a split call count"}));
    l.add(use.collective_calls, l.count({"collective", "a collective call count"}));
    l.add(use.aggregated_calls, l.count({"aggregated", "an aggregated call count"}));
    static constexpr Unit kTimes[kTimerCount] = {{"s read", ""}, {"s write", ""}, {"s meta", ""}};
    for (int t = 0; t < kTimerCount; ++t) use.seconds[t] += l.seconds(kTimes[t]);
  }
  static void asked(Line& l, IoTable& table) {
    const int32_t me = l.rank();
    FileInfo& info = table.file(l.identity());
    const int access = static_cast<int>(l.access());
    const uint64_t calls = l.count({"calls", "a call count"});
    PeerTraffic& t = info.ranks[me].asked[access];
    l.add(t.messages, calls);
    l.add(t.bytes, l.count({"bytes", "a byte count"}));
    l.histogram(calls, info.asked_sizes[access]);
  }
  static void fs(Line& l, IoTable& table) {
    const int32_t me = l.rank();
    FileInfo& info = table.file(l.identity());
    const int d = static_cast<int>(l.direction());
    RankUse::Fs& fs = info.ranks[me].fs[d];
    l.add(fs.operations, l.count({"ops", "an operation count"}));
    const uint64_t entries = l.count({"entries", "an entry count"});
    l.add(fs.entries, entries);
    l.add(fs.bytes, l.count({"bytes", "a byte count"}));
    l.add(fs.consecutive, l.count({"consecutive", "a consecutive count"}));
    l.add(fs.sequential, l.count({"sequential", "a sequential count"}));
    fs.end = std::max(fs.end, l.count({"end", "an end offset"}));
    l.histogram(entries, info.fs_sizes[d]);
  }
  static void fs_failed(Line& l, IoTable& table) {
    const int32_t me = l.rank();
    FileInfo& info = table.file(l.identity());
    RankUse::Fs& fs = info.ranks[me].fs[static_cast<int>(l.direction())];
    l.add(fs.failed_operations, l.count({"failed ops", "a failed operation count"}));
    l.add(fs.failed_bytes, l.count({"failed bytes", "a byte count"}));
  }
  static void shuffle(Line& l, IoTable& table) {
    const int32_t me = l.rank();
    FileInfo& info = table.file(l.identity());
    PeerTraffic& t = info.ranks[me].shuffle[l.rank()];
    // The two dialects write them in opposite orders.
    if (l.dialect() == Dialect::prof) {
      l.add(t.bytes, l.count({"bytes", ""}));
      l.add(t.messages, l.count({"msgs sent", ""}));
    } else {
      l.add(t.messages, l.count({"", "a message count"}));
      l.add(t.bytes, l.count({"", "a byte count"}));
    }
  }

  static constexpr Kind kKinds[] = {
      {"", "io_file", 0, 3, "", "'io_file <identity> <name> <world ranks>'", file},
      {"# IO_FILE", "io_rank", 18, 17,
       "'# IO_FILE <me> <identity> <name> <io> <fcoll> <6 metadata counts> <nonblocking> <split> <collective> "
       "<aggregated> <read s> <write s> <meta s>'",
       "'io_rank <me> <identity> <io> <fcoll> <6 metadata counts> <nonblocking> <split> <collective> <aggregated> "
       "<read s> <write s> <meta s>'",
       rank},
      {"# IO_ASKED", "io_asked", 6, 6, "'# IO_ASKED <me> <identity> <access> <n> calls <B> bytes <histogram>'",
       "'io_asked <me> <identity> <access> <calls> <bytes> <histogram>'", asked},
      {"# IO_FS", "io_fs", 10, 10,
       "'# IO_FS <me> <identity> <read|write> <n> ops <n> entries <B> bytes <n> consecutive <n> sequential <B> end "
       "<histogram>'",
       "'io_fs <me> <identity> <read|write> <ops> <entries> <bytes> <consecutive> <sequential> <end> <histogram>'", fs},
      {"# IO_FS_FAILED", "io_fs_failed", 5, 5,
       "'# IO_FS_FAILED <me> <identity> <read|write> <n> failed ops <B> failed bytes'",
       "'io_fs_failed <me> <identity> <read|write> <failed ops> <failed bytes>'", fs_failed},
      {"# IO_SHUFFLE", "io_shuffle", 5, 5, "'# IO_SHUFFLE <me> <identity> <peer> <B> bytes <n> msgs sent'",
       "'io_shuffle <me> <identity> <peer> <messages> <bytes>'", shuffle},
  };

  static void read(const Kind& kind, Line& l, IoTable& table) {
    const bool prof = l.dialect() == Dialect::prof;
    l.expect_size(prof ? kind.prof_fields : kind.job_fields, prof ? kind.prof_form : kind.job_form);
    kind.read(l, table);
  }
  static std::string prof_kinds() {
    std::string out;
    for (const Kind& k : kKinds)
      if (!k.prof.empty()) out += (out.empty() ? "" : ", ") + std::string(k.prof);
    return out;
  }
};

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
    for (auto [mine, their] : {std::pair{&ours.asked_sizes, &theirs.asked_sizes}, {&ours.fs_sizes, &theirs.fs_sizes}}) {
      for (const auto& [index, counters] : *their) {
        Counters& c = (*mine)[index];
        c.messages += counters.messages;
        for (int b = 0; b < kHistogramBuckets; ++b) c.histogram[b] += counters.histogram[b];
      }
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
        mine.fs[d].failed_operations += use.fs[d].failed_operations;
        mine.fs[d].failed_bytes += use.fs[d].failed_bytes;
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
  std::vector<std::string_view> fields;
  for (std::string_view rest = tab == std::string_view::npos ? std::string_view() : line.substr(tab + 1);
       !rest.empty();) {
    const size_t end = std::min(rest.find('\t'), rest.size());
    fields.push_back(rest.substr(0, end));
    rest.remove_prefix(end == rest.size() ? end : end + 1);
  }
  Line l(Dialect::prof, std::move(fields), source, line_no, 0);
  if (tab == std::string_view::npos) l.fail("tab-separated fields after " + std::string(kind));
  for (const IoRecordKinds::Kind& k : IoRecordKinds::kKinds) {
    if (!k.prof.empty() && k.prof == kind) {
      IoRecordKinds::read(k, l, *this);
      return true;
    }
  }
  l.fail("an I/O line (" + IoRecordKinds::prof_kinds() + "), found '" + std::string(kind) + "'");
}

bool IoTable::add_job_annotation(const JobAnnotation& a, std::string_view source, int32_t world_size) {
  if (a.keyword.rfind("io_", 0) != 0) return false;
  for (const IoRecordKinds::Kind& k : IoRecordKinds::kKinds) {
    if (k.job != a.keyword) continue;
    std::vector<std::string_view> fields(a.fields.begin(), a.fields.end());
    Line l(Dialect::job, std::move(fields), source, a.line, world_size);
    IoRecordKinds::read(k, l, *this);
    return true;
  }
  return false;  // a later version's io_ annotation: skipped, as unknown keywords are
}

}  // namespace mpimon::mpi_io
