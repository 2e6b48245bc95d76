#include "readers/prof_reader.h"

#include "files/site_log.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

#include "readers/text_fields.h"

namespace mpimon {

namespace {

// .prof fields are tab-separated (an empty field between two tabs is a field).
FieldCursor prof_fields(std::string_view line, std::string_view source, size_t line_no) {
  return FieldCursor(line, source, line_no, {FieldCursor::Separator::tab});
}

// "<n> <suffix>"
uint64_t number_with_suffix(FieldCursor& p, std::string_view suffix, const char* what) {
  std::string_view f = p.next(what);
  if (f.size() <= suffix.size() + 1 || f.substr(f.size() - suffix.size()) != suffix ||
      f[f.size() - suffix.size() - 1] != ' ')
    p.fail(std::string(what) + " ('<number> " + std::string(suffix) + "'), found '" + std::string(f) + "'");
  return p.number<uint64_t>(f.substr(0, f.size() - suffix.size() - 1), what);
}

// Rank fields: MPI sizes are `int`, so the highest rank is INT_MAX - 1.
int32_t rank_field(FieldCursor& p, const char* what) {
  const int32_t rank = p.number<int32_t>(what);
  if (rank < 0 || rank > 2147483646) p.fail(std::string(what) + " in [0, 2147483646], found " + std::to_string(rank));
  return rank;
}

// Splits off the "[<job>,<rank>]<stdout>:" (or "<stderr>:") of mpirun --tag-output: the
// tag "[<job>,<rank>]" (empty when there is none) and the rest of the line. Open MPI 5.0's
// PRRTE writes one space after the colon ("[1,0]<stdout>: E\t..."), 4.1 none.
std::pair<std::string_view, std::string_view> split_tag(std::string_view line) {
  if (line.empty() || line[0] != '[') return {{}, line};
  const size_t close = line.find(']');
  if (close == std::string_view::npos) return {{}, line};
  for (size_t i = 1; i < close; ++i)
    if (!(line[i] >= '0' && line[i] <= '9') && line[i] != ',') return {{}, line};
  std::string_view rest = line.substr(close + 1);
  for (std::string_view stream : {"<stdout>:", "<stderr>:"})
    if (rest.substr(0, stream.size()) == stream) {
      rest.remove_prefix(stream.size());
      if (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
      return {line.substr(0, close + 1), rest};
    }
  return {{}, line};
}

bool is_record_kind(std::string_view kind) {
  return kind.size() == 1 && std::string_view("EISRC").find(kind[0]) != std::string_view::npos;
}
int class_index(std::string_view kind) { return kind == "O2A" ? 0 : kind == "A2O" ? 1 : kind == "A2A" ? 2 : -1; }

// "# SYNC\t<me>\t<window>\t<kind>\t<n> calls\t<seconds> s"
ProfSync parse_sync(FieldCursor& p, size_t line_no) {
  ProfSync s;
  s.line = line_no;
  p.next("'# SYNC'");
  s.me = rank_field(p, "the rank");
  s.window = p.next("a window name");
  s.kind = p.next("a synchronisation kind");
  s.calls = number_with_suffix(p, "calls", "a call count");
  const std::string_view seconds = p.next("seconds ('<number> s')");
  if (seconds.size() < 3 || seconds.substr(seconds.size() - 2) != " s") p.fail("seconds ('<number> s')");
  const std::string_view number = seconds.substr(0, seconds.size() - 2);
  const std::optional<double> value = parse_number<double>(number);
  if (!value || !(*value >= 0) || *value > 1e300)
    p.fail("a number of seconds >= 0, found '" + std::string(number) + "'");
  s.seconds = *value;
  if (!p.at_end()) p.fail("end of line after the seconds");
  return s;
}

// The fields after the kind of an E, I, S, R, C or "# F" line.
ProfLine parse_record_line(FieldCursor& p, char kind, size_t line_no) {
  ProfLine l;
  l.kind = kind;
  l.line = line_no;
  l.me = rank_field(p, "the sender's rank");
  l.peer = rank_field(p, "the peer's rank");
  l.bytes = number_with_suffix(p, "bytes", "a byte count");
  l.messages = number_with_suffix(p, "msgs sent", "a message count");
  if (!p.at_end()) {
    std::string_view h = p.next("a histogram");
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
  return l;
}

// The D blocks the class lines fill, per source: a tagged capture interleaves the ranks'
// lines, and the tag tells whose they are. An untagged capture (mpirun's plain stdout)
// interleaves them too, so there a class line goes to the open block its rank already
// fills, else to the newest block nobody fills yet: each rank prints its D line before its
// class lines, and D lines of one communicator are the same text on every rank.
struct Block {
  size_t index = 0;
  bool classes[3] = {};
};
using OpenBlocks = std::map<std::string_view, std::vector<Block>>;

// A '#' line: a section title, "# SYNC", "# F", or one of the MPI-IO lines.
void read_comment_line(std::string_view line, std::string_view source, size_t line_no, ProfFile& file) {
  if (line == "# POINT TO POINT" || line == "# OSC" || line == "# COLLECTIVES" || line == "# MPI-IO")
    file.has_monitoring_output = true;
  if (line.substr(0, 7) == "# SYNC\t") {
    FieldCursor p = prof_fields(line, source, line_no);
    file.syncs.push_back(parse_sync(p, line_no));
  } else if (line.substr(0, 4) == "# F\t") {
    FieldCursor p = prof_fields(line.substr(2), source, line_no);
    p.next("a line kind");
    file.lines.push_back(parse_record_line(p, 'F', line_no));
  } else {
    file.io.add_prof_line(line, source, line_no);
  }
}

// "D\t<name>\tprocs: <world ranks>": a communicator block opens (its rank is the class lines').
ProfCommunicator parse_communicator(FieldCursor& p, size_t line_no) {
  ProfCommunicator c;
  c.line = line_no;
  c.name = p.next("a communicator name");
  const std::string_view procs = p.next("'procs: <world ranks>'");
  if (procs.substr(0, 7) != "procs: ") p.fail("'procs: <world ranks>', found '" + std::string(procs) + "'");
  for (std::string_view list = procs.substr(7); !list.empty();) {
    const size_t comma = list.find(',');
    const int32_t member = p.number<int32_t>(list.substr(0, comma), "a world rank");
    if (member < 0 || member > 2147483646) p.fail("world ranks in [0, 2147483646]");
    ++c.members;
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
  }
  if (!p.at_end()) p.fail("end of line after the members");
  return c;
}

// "<O2A|A2O|A2A>\t<rank>\t<n> bytes\t<n> msgs sent": class k of the block it belongs to.
void read_class_line(FieldCursor& p, std::string_view kind, int k, std::vector<Block>& open, ProfFile& file) {
  if (open.empty()) p.fail("a D line before " + std::string(kind));
  const int32_t me = rank_field(p, "the rank");
  Block* target = &open.back();
  if (open.size() > 1) {  // untagged capture: find the block this rank fills
    Block* mine = nullptr;
    Block* unclaimed = nullptr;
    for (Block& b : open) {
      const int32_t owner = file.communicators[b.index].me;
      if (owner == me && !b.classes[k]) mine = &b;
      if (owner < 0) unclaimed = &b;
    }
    if (mine != nullptr)
      target = mine;
    else if (unclaimed != nullptr)
      target = unclaimed;
  }
  ProfCommunicator& block = file.communicators[target->index];
  if (target->classes[k]) p.fail("one " + std::string(kind) + " line per D line");
  if (block.me >= 0 && block.me != me) p.fail("rank " + std::to_string(block.me) + " as on the lines before");
  block.me = me;
  block.bytes[k] = number_with_suffix(p, "bytes", "a byte count");
  block.calls[k] = number_with_suffix(p, "msgs sent", "a call count");
  if (!p.at_end()) p.fail("end of line after the call count");
  target->classes[k] = true;
  if (target->classes[0] && target->classes[1] && target->classes[2] && open.size() > 1)
    open.erase(open.begin() + (target - open.data()));  // complete: no later line belongs to it
}

}  // namespace

ProfFile parse_prof(std::string_view text, std::string_view source, ProfInput input) {
  ProfFile file;
  size_t line_no = 0;
  OpenBlocks open_blocks;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::string_view tag;
    if (input == ProfInput::capture) std::tie(tag, line) = split_tag(line);
    if (line.empty()) continue;
    if (line[0] == '#') {
      read_comment_line(line, source, line_no, file);
      continue;
    }
    const std::string_view kind = line.substr(0, line.find('\t'));
    const bool known = is_record_kind(kind) || kind == "D" || class_index(kind) >= 0;
    if (input == ProfInput::capture && (!known || kind.size() == line.size())) {
      if (file.foreign_lines++ == 0) file.first_foreign_line = line_no;
      continue;
    }
    FieldCursor p = prof_fields(line, source, line_no);
    p.next("a line kind");
    if (!known) p.fail("a line kind (E, I, S, R, C, D, O2A, A2O, A2A or '#'), found '" + std::string(kind) + "'");
    file.has_monitoring_output = true;
    if (kind == "D") {
      file.communicators.push_back(parse_communicator(p, line_no));
      std::vector<Block>& open = open_blocks[tag];
      if (input != ProfInput::capture || !tag.empty()) open.clear();  // one source: only the newest D is open
      open.push_back(Block{file.communicators.size() - 1});
    } else if (const int k = class_index(kind); k >= 0) {
      read_class_line(p, kind, k, open_blocks[tag], file);
    } else {
      file.lines.push_back(parse_record_line(p, kind[0], line_no));
    }
  }
  return file;
}

std::string read_dump_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FormatError(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw FormatError(path + ": read error");
  std::string content = text.str();
  // A site log (files/site_log.h) is a job file compressed with gzip: read through. Memory
  // stays proportional to the file: job text compresses 6-7 times (docs/performance.md, "Site
  // log"), so more than 256 times (at least 64 MiB) is a bomb someone planted, not a log.
  if (looks_gzipped(content)) {
    try {
      content = gzip_decompress(content, std::max<uint64_t>(uint64_t{1} << 26, uint64_t{256} * content.size()));
    } catch (const std::runtime_error& e) {
      throw FormatError(path + ": " + e.what());
    }
  }
  // Neither format ever holds a NUL byte: one means a write that did not complete (what
  // Open MPI 4.1.4's MPI-IO left on a full disk), never "no traffic". (An empty file is
  // refused by the tools' reader, tools/mpimon/dumps.cpp.)
  if (const size_t nul = content.find('\0'); nul != std::string::npos)
    throw FormatError(path + ": expected text, found a NUL byte at offset " + std::to_string(nul) +
                      " (incomplete or corrupted file: a disk that filled up while it was written?)");
  return content;
}

ProfFile read_prof_file(const std::string& path) { return parse_prof(read_dump_text(path), path); }

}  // namespace mpimon
