#include "readers/job_reader.h"

#include <functional>
#include <unordered_map>

#include "formats/checksum.h"
#include "readers/prof_reader.h"  // read_dump_text
#include "readers/text_fields.h"

namespace mpimon {

namespace {

// A job file's fields are separated by runs of spaces.
FieldCursor job_fields(std::string_view line, std::string_view source, size_t line_no) {
  return FieldCursor(line, source, line_no, {FieldCursor::Separator::spaces});
}

// Version 2's integrity trailer, checked while reading: every rank's block ends with
// `checksum <rank> <bytes> <crc32c>` covering the block's bytes before that line, ranks
// in order 0..world_size-1, and the file ends with `eof <bytes before this line>`.
class IntegrityCheck {
 public:
  IntegrityCheck(std::string_view source) : source_(source) {}

  void checksum_line(FieldCursor& c, uint64_t offset, int world_size) {
    if (ended_) c.fail("nothing after the 'eof' line (" + kCorrupted + ")");
    const int32_t rank = c.number<int32_t>("a rank");
    const uint64_t bytes = c.number<uint64_t>("a byte count");
    const std::string_view crc = c.next("a CRC-32C (8 hex digits)");
    c.end();
    if (rank != next_rank_ || rank >= world_size)
      c.fail("the checksum of rank " + std::to_string(next_rank_) + " (" + kCorrupted + "), found rank " +
             std::to_string(rank));
    if (bytes != offset - block_start_)
      c.fail("a block of " + std::to_string(offset - block_start_) + " bytes for rank " + std::to_string(rank) + " (" +
             kCorrupted + "), found " + std::to_string(bytes));
    if (crc != to_hex(block_crc_, 8))
      c.fail("CRC-32C " + to_hex(block_crc_, 8) + " for the block of rank " + std::to_string(rank) + " (" + kCorrupted +
             "), found '" + std::string(crc) + "'");
    ++next_rank_;
  }
  void end_line(FieldCursor& c, uint64_t offset, int world_size) {
    if (ended_) c.fail("one 'eof' line (" + kCorrupted + ")");
    const uint64_t bytes = c.number<uint64_t>("a byte count");
    c.end();
    if (next_rank_ != world_size)
      c.fail("the checksums of " + std::to_string(world_size) + " ranks before 'eof' (" + kCorrupted + "), found " +
             std::to_string(next_rank_));
    if (bytes != offset)
      c.fail("'eof " + std::to_string(offset) + "' (" + kCorrupted + "), found 'eof " + std::to_string(bytes) + "'");
    ended_ = true;
  }
  // Each line of a block (everything but checksum and eof lines), then the block's end.
  void block_continues(std::string_view line_with_newline) { block_crc_ = crc32c(line_with_newline, block_crc_); }
  void block_ends(uint64_t next_offset) {
    block_start_ = next_offset;
    block_crc_ = 0;
  }
  void at_end_of_file(uint64_t size) const {
    if (!ended_)
      throw FormatError(std::string(source_) + ": " + kCorrupted +
                        ": expected an 'eof' line, found the end of the file after " + std::to_string(size) +
                        " bytes and the checksums of " + std::to_string(next_rank_) +
                        " ranks (cut short: a full disk, or a rank died while writing?)");
  }
  bool ended() const { return ended_; }

  static inline const std::string kCorrupted = "incomplete or corrupted job file";

 private:
  std::string_view source_;
  uint32_t block_crc_ = 0;
  uint64_t block_start_ = 0;
  int next_rank_ = 0;
  bool ended_ = false;
};

}  // namespace

namespace {

// The header, line by line until `records`.
struct HeaderLines {
  JobHeader header;
  int version = 0;
  bool have_size = false;
  bool in_records = false;

  void read(FieldCursor& c) {
    const std::string_view key = c.next("a header key");
    if (key == "format") {
      if (c.next("the format name") != "mpimon-job") c.fail("format 'mpimon-job'");
      version = c.number<int>("a format version");
      if (version < 1 || version > kJobFormatVersion)
        c.fail("format version 1 to " + std::to_string(kJobFormatVersion) + ", found " + std::to_string(version));
    } else if (key == "world_size") {
      header.world_size = c.number<int>("the world size");
      if (header.world_size <= 0) c.fail("a positive world size");
      have_size = true;
    } else if (key == "enable_level") {
      header.enable_level = c.number<int>("the enable level");
    } else if (key == "open_mpi") {
      header.open_mpi_version = c.next("an Open MPI version");
    } else if (key == "start") {
      header.start_time = c.next("a start time");
    } else if (key == "end") {
      header.end_time = c.next("an end time");
    } else if (key == "records") {
      if (version == 0) c.fail("a 'format mpimon-job " + std::to_string(kJobFormatVersion) + "' line before 'records'");
      if (!have_size) c.fail("a 'world_size' line before 'records'");
      in_records = true;
    } else {
      c.fail("a header key (format, world_size, enable_level, open_mpi, start, end, records), found '" +
             std::string(key) + "'");
    }
    if (key != "records") c.end();
  }
};

// An annotation line: a lower-case keyword, then fields. Version 2's `communicator` lines
// give one member list per identity (analyses/communicator_classes.h): a clash of the
// 64-bit hash, or a damaged file, is refused rather than mixing two communicators.
JobAnnotation read_annotation(FieldCursor& c, size_t line_no, int version,
                              std::unordered_map<std::string, uint64_t>& communicator_members) {
  JobAnnotation a;
  a.line = line_no;
  a.keyword = std::string(c.next("a keyword"));
  while (!c.at_end()) a.fields.emplace_back(c.next("a field"));
  if (version >= 2 && a.keyword == "communicator") {
    if (a.fields.size() != 3) c.fail("'communicator <identity> <name> <world ranks>'");
    const uint64_t members = fnv1a64(a.fields[2]);
    const auto [it, added] = communicator_members.try_emplace(a.fields[0], members);
    if (!added && it->second != members)
      c.fail("one member list per communicator identity, found a second one for " + a.fields[0]);
  }
  return a;
}

// "<source> <destination> <category> <messages> <bytes> <bucket>:<count>,...".
JobRecord read_record(FieldCursor& c, size_t line_no, int world_size) {
  JobRecord r;
  r.line = line_no;
  r.source = c.number<int32_t>("a source rank");
  r.destination = c.number<int32_t>("a destination rank");
  if (r.source < 0 || r.source >= world_size || r.destination < 0 || r.destination >= world_size)
    c.fail("ranks in [0, " + std::to_string(world_size) + ")");
  const std::string_view category = c.next("a category");
  // io_shuffle came with version 3; it is read in any version (the time series' sums
  // are made in memory as version 1: no trailer), older writers never wrote it.
  if (!parse_category(category, r.category))
    c.fail("a category (external, internal, coll, osc_sent, osc_recv, io_shuffle), found '" + std::string(category) +
           "'");
  r.counters.messages = c.number<uint64_t>("a message count");
  r.counters.bytes = c.number<uint64_t>("a byte count");
  uint64_t total = 0;
  c.for_each_histogram_item(c.next("a histogram (<bucket>:<count>,...)"), [&](int bucket, std::string_view count_text) {
    if (bucket < 0 || bucket >= kHistogramBuckets) c.fail("a histogram bucket in [0, 65]");
    const uint64_t count = c.number<uint64_t>(count_text, "a histogram count");
    if (count > r.counters.messages - total)  // also keeps the sum from wrapping around
      c.fail("histogram counts summing to the message count " + std::to_string(r.counters.messages) + ", found more");
    r.counters.histogram[bucket] += count;
    total += count;
  });
  if (total != r.counters.messages)
    c.fail("histogram counts summing to the message count " + std::to_string(r.counters.messages) + ", found " +
           std::to_string(total));
  c.end();
  return r;
}

}  // namespace

JobHeader for_each_job_record(std::string_view text, std::string_view source,
                              const std::function<void(const JobRecord&)>& on_record,
                              const std::function<void(JobAnnotation&&)>& on_annotation) {
  HeaderLines head;
  size_t line_no = 0;
  uint64_t offset = 0;
  IntegrityCheck integrity(source);
  std::unordered_map<std::string, uint64_t> communicator_members;  // identity -> hash of its members
  const uint64_t size = text.size();
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view with_newline = text.substr(0, nl == std::string_view::npos ? text.size() : nl + 1);
    const std::string_view line = text.substr(0, nl);
    text.remove_prefix(with_newline.size());
    const uint64_t line_offset = offset;
    offset += with_newline.size();
    ++line_no;
    FieldCursor c = job_fields(line, source, line_no);
    const bool trailer = head.version >= 2 && head.in_records;
    if (trailer && line.rfind("checksum ", 0) == 0) {
      c.next("checksum");
      integrity.checksum_line(c, line_offset, head.header.world_size);
      integrity.block_ends(offset);
      continue;
    }
    if (trailer && line.rfind("eof ", 0) == 0) {
      if (nl == std::string_view::npos) c.fail("a complete 'eof' line (" + IntegrityCheck::kCorrupted + ")");
      c.next("eof");
      integrity.end_line(c, line_offset, head.header.world_size);
      continue;
    }
    if (integrity.ended()) c.fail("nothing after the 'eof' line (" + IntegrityCheck::kCorrupted + ")");
    integrity.block_continues(with_newline);
    if (line.empty() || line[0] == '#') continue;
    if (!head.in_records) {
      head.read(c);
    } else if (line[0] >= 'a' && line[0] <= 'z') {
      JobAnnotation a = read_annotation(c, line_no, head.version, communicator_members);
      if (on_annotation) on_annotation(std::move(a));
    } else {
      on_record(read_record(c, line_no, head.header.world_size));
    }
  }
  if (!head.in_records) throw FormatError(std::string(source) + ": expected a 'records' line, found end of file");
  if (head.version >= 2) integrity.at_end_of_file(size);
  return head.header;
}

JobFile parse_job_file(std::string_view text, std::string_view source) {
  JobFile file;
  file.header = for_each_job_record(
      text, source, [&](const JobRecord& r) { file.records.push_back(r); },
      [&](JobAnnotation&& a) { file.annotations.push_back(std::move(a)); });
  return file;
}

JobFile read_job_file(const std::string& path) { return parse_job_file(read_dump_text(path), path); }

std::string job_program(const JobFile& file) {
  for (const JobAnnotation& a : file.annotations)
    if (a.keyword == "program" && a.fields.size() == 1) return unescape_name(a.fields[0]);
  return {};
}

}  // namespace mpimon
