#include "dumps.h"

#include "files/site_log.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <unordered_map>

#include "readers/job_reader.h"
#include "readers/prof_reader.h"
#include "readers/text_fields.h"
#include "readers/traffic_annotations_reader.h"

namespace mpimon::tools {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------
// File names and arguments

namespace {

// A dump file name "<prefix>.<rank>.prof", split.
struct DumpName {
  std::string prefix;
  int32_t rank = -1;
  // "<base>_<phase>" prefixes (pml_monitoring_flush phases as aggregate_profile names them)
  std::string base;
  int64_t phase = -1;
};

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A non-negative number of at most 10 digits up to `limit`, or -1.
int64_t small_number(std::string_view digits, int64_t limit) {
  if (!all_digits(digits) || digits.size() > 10) return -1;
  const int64_t value = *parse_number<int64_t>(digits);  // 10 digits always fit
  return value <= limit ? value : -1;
}

DumpName split_dump_name(std::string_view file_name) {
  DumpName d;
  if (file_name.size() < 5 || file_name.substr(file_name.size() - 5) != ".prof") return d;
  const std::string_view stem = file_name.substr(0, file_name.size() - 5);
  const size_t dot = stem.rfind('.');
  if (dot == std::string_view::npos) return d;
  const int64_t rank = small_number(stem.substr(dot + 1), kMaxRank);
  if (rank < 0) return d;
  d.rank = static_cast<int32_t>(rank);
  d.prefix = stem.substr(0, dot);
  const size_t underscore = d.prefix.rfind('_');
  if (underscore != std::string::npos) {
    d.phase = small_number(std::string_view(d.prefix).substr(underscore + 1), INT64_MAX);
    if (d.phase >= 0) d.base = d.prefix.substr(0, underscore);
  }
  return d;
}

struct Found {
  fs::path path;
  DumpName name;
};

std::vector<Found> dump_files_in(const fs::path& folder) {
  std::vector<Found> found;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    DumpName name = split_dump_name(it->path().filename().string());
    if (name.rank >= 0) found.push_back({it->path(), std::move(name)});
  }
  return found;
}

void sort_by_phase_and_rank(std::vector<Found>& files) {
  std::sort(files.begin(), files.end(), [](const Found& a, const Found& b) {
    return std::tie(a.name.phase, a.name.prefix, a.name.rank) < std::tie(b.name.phase, b.name.prefix, b.name.rank);
  });
}

std::string list_of(const std::set<std::string>& names) {
  std::string out;
  size_t shown = 0;
  for (const std::string& n : names) {
    if (shown == 6) return out + ", ... (" + std::to_string(names.size()) + " in all)";
    out += (shown++ ? ", " : "") + n;
  }
  return out;
}

std::string first_line_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line(64, '\0');
  in.read(line.data(), static_cast<std::streamsize>(line.size()));
  line.resize(static_cast<size_t>(in.gcount()));
  return line;
}

// A site log (files/site_log.h): a gzip-compressed job file named *.mpimon (read_dump_text
// decompresses it; reading checks the rest).
bool is_site_log(const fs::path& path) { return path.extension() == ".mpimon" && looks_gzipped(first_line_of(path)); }

// A folder: its .prof files of one prefix, or the phases of one base, or its one job file.
std::vector<fs::path> expand_folder(const std::string& argument) {
  std::vector<Found> found = dump_files_in(argument);
  std::set<std::string> prefixes, bases;
  bool all_phases = true;
  for (const Found& f : found) {
    prefixes.insert(f.name.prefix);
    bases.insert(f.name.base);
    all_phases = all_phases && f.name.phase >= 0;
  }
  if (prefixes.size() > 1 && !(all_phases && bases.size() == 1))
    throw FormatError(argument + ": holds the .prof files of several dumps (" + list_of(prefixes) +
                      "): name one, e.g. " + (fs::path(argument) / *prefixes.begin()).string());
  std::vector<fs::path> out;
  if (!found.empty()) {
    sort_by_phase_and_rank(found);
    for (const Found& f : found) out.push_back(f.path);
    return out;
  }
  std::set<std::string> job_files;
  std::error_code ec;
  for (fs::directory_iterator it(argument, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec) && (is_job_text(first_line_of(it->path())) || is_site_log(it->path())))
      job_files.insert(it->path().string());
  if (job_files.size() > 1)
    throw FormatError(argument + ": holds several job files (" + list_of(job_files) + "): name one");
  if (job_files.empty())
    throw FormatError(argument + ": expected <prefix>.<rank>.prof files or a job file in this folder, found none");
  return {fs::path(*job_files.begin())};
}

// A prefix P: P.<rank>.prof, else P_<phase>.<rank>.prof.
std::vector<fs::path> expand_prefix(const std::string& argument) {
  const fs::path path(argument);
  const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
  const std::string prefix = path.filename().string();
  std::vector<Found> exact, phases;
  for (Found& f : dump_files_in(folder)) {
    if (f.name.prefix == prefix)
      exact.push_back(std::move(f));
    else if (f.name.phase >= 0 && f.name.base == prefix)
      phases.push_back(std::move(f));
  }
  std::vector<Found>& chosen = exact.empty() ? phases : exact;
  if (chosen.empty())
    throw FormatError(argument + ": no such file, and no " + prefix + ".<rank>.prof or " + prefix +
                      "_<phase>.<rank>.prof files in " + folder.string());
  sort_by_phase_and_rank(chosen);
  std::vector<fs::path> out;
  for (const Found& f : chosen) out.push_back(f.path);
  return out;
}

}  // namespace

int32_t rank_in_file_name(std::string_view path) {
  const size_t slash = path.rfind('/');
  return split_dump_name(slash == std::string_view::npos ? path : path.substr(slash + 1)).rank;
}

bool is_job_text(std::string_view text) { return text.substr(0, 17) == "# mpimon job file"; }

std::vector<std::string> expand_dump_arguments(const std::vector<std::string>& arguments) {
  std::vector<std::string> files;
  std::set<fs::path> seen;
  for (const std::string& argument : arguments) {
    std::error_code ec;
    std::vector<fs::path> paths;
    if (fs::is_regular_file(argument, ec)) {
      paths.push_back(argument);
    } else if (fs::is_directory(argument, ec)) {
      paths = expand_folder(argument);
    } else {
      paths = expand_prefix(argument);
    }
    for (const fs::path& p : paths) {
      std::error_code canonical_error;
      const fs::path key = fs::weakly_canonical(p, canonical_error);
      if (seen.insert(canonical_error ? p : key).second) files.push_back(p.string());
    }
  }
  return files;
}

std::string load_dump_file(const std::string& path) { return read_dump_text(path); }

// ---------------------------------------------------------------------------------------
// Reading

namespace {

// A record's counts: below the tools' limit; no bytes without a message. False: no
// traffic at all (0 messages, 0 bytes), nothing to add.
bool check_counts(const std::string& file, size_t line, uint64_t messages, uint64_t bytes) {
  if (messages >= kCountLimit || bytes >= kCountLimit) fail_at(file, line, "counts below 2^60 (1 EiB)");
  if (messages == 0 && bytes > 0)
    fail_at(file, line, "a message count above 0 for " + std::to_string(bytes) + " bytes");
  return messages > 0;
}

// An annotation's rank, checked against the world size once the header is known.
struct PendingRank {
  int64_t rank;
  size_t line;
};

// The annotations the tools read (collectives, window_sync: readers/traffic_annotations_reader.h)
// become rows; other keywords are kept as written for the report's sections (docs/formats.md:
// readers ignore what they do not know). Returns the annotation's rank, or -1 for other keywords.
int64_t read_annotation(Dumps& dumps, JobAnnotation&& a, const std::string& file, bool keep) {
  if (a.keyword == "collectives") {
    const CollectivesLine line = read_collectives_line(a, file);
    CollectiveRow row;
    row.rank = line.rank;
    row.communicator = line.communicator;
    bool any = false;
    for (int c = 0; c < 3; ++c) {
      row.classes[c] = {line.calls[c], line.bytes[c]};
      any = any || line.calls[c] > 0;
    }
    if (keep && any) dumps.collectives.push_back(std::move(row));
    return line.rank;
  }
  if (a.keyword == "window_sync") {
    WindowSyncLine line = read_window_sync_line(a, file);
    const int32_t rank = line.rank;
    if (keep) dumps.window_syncs.push_back(std::move(line));
    return rank;
  }
  if (keep) dumps.annotations.push_back(std::move(a));
  return -1;
}

// The lines of the job file's records of one (source, destination, category): for the
// error about a repeated record (a second pass, on that error only).
std::vector<size_t> lines_of(std::string_view text, const std::string& file, Category category, int32_t source,
                             int32_t destination) {
  std::vector<size_t> lines;
  for_each_job_record(text, file, [&](const JobRecord& r) {
    if (r.category == category && r.source == source && r.destination == destination) lines.push_back(r.line);
  });
  return lines;
}

void read_job(Dumps& dumps, std::string_view text, const std::string& file, bool keep_annotations) {
  const TrafficMatrix::Mark mark = dumps.matrix.mark();
  std::vector<PendingRank> ranks;  // of the annotations, checked once the world size is known
  // Version 2 names a communicator in `collectives` lines by its identity; its
  // `communicator <identity> <name> <members>` line (anywhere in the file) has the name.
  const size_t first_row = dumps.collectives.size();
  std::unordered_map<std::string, std::string> communicator_names;
  std::unordered_map<std::string, std::string> communicator_fields;  // identity -> the name as written
  std::vector<JobAnnotation> io_annotations;                         // the MPI-IO lines (readers/io_reader.h)
  const size_t first_nbc = dumps.nbc.size();
  const JobHeader header = for_each_job_record(
      text, file,
      [&](const JobRecord& r) {
        if (check_counts(file, r.line, r.counters.messages, r.counters.bytes))
          dumps.matrix.add(r.category, r.source, r.destination, {r.counters.messages, r.counters.bytes});
      },
      [&](JobAnnotation&& a) {
        const size_t line = a.line;
        // Read below, once the world size is known; by every command (as the .prof lines
        // are), so that a damaged one is the same error everywhere.
        if (a.keyword.rfind("io_", 0) == 0) {
          io_annotations.push_back(std::move(a));
          return;
        }
        if (a.keyword == "communicator" && a.fields.size() == 3) {
          communicator_names[a.fields[0]] = unescape_name(a.fields[1]);  // as .prof D lines show it
          communicator_fields[a.fields[0]] = a.fields[1];
        }
        if (a.keyword == "nbc_overlap" || a.keyword == "nbc_sampling") dumps.nbc.push_back(a);
        if (const int64_t rank = read_annotation(dumps, std::move(a), file, keep_annotations); rank >= 0)
          ranks.push_back({rank, line});
      });
  for (size_t i = first_row; i < dumps.collectives.size(); ++i)
    if (const auto name = communicator_names.find(dumps.collectives[i].communicator); name != communicator_names.end())
      dumps.collectives[i].communicator = name->second;
  for (size_t i = first_nbc; i < dumps.nbc.size(); ++i)
    if (JobAnnotation& a = dumps.nbc[i]; a.keyword == "nbc_overlap" && a.fields.size() > 1)
      if (const auto name = communicator_fields.find(a.fields[1]); name != communicator_fields.end())
        a.fields[1] = name->second;
  for (const JobAnnotation& a : io_annotations) dumps.io.add_job_annotation(a, file, header.world_size);
  for (const PendingRank& r : ranks)
    if (r.rank >= header.world_size)
      fail_at(file, r.line,
              "a rank in [0, " + std::to_string(header.world_size) + "), found '" + std::to_string(r.rank) + "'");
  // One record per (source, destination, category): each rank writes its own.
  if (const auto repeated = dumps.matrix.repeated_since(mark)) {
    const auto& [category, cell] = *repeated;
    const bool transposed = category == Category::osc_recv;  // cells are oriented by data flow
    const int32_t source = transposed ? cell.to : cell.from, destination = transposed ? cell.from : cell.to;
    const std::vector<size_t> lines = lines_of(text, file, category, source, destination);
    fail_at(file, lines.size() > 1 ? lines[1] : 0,
            "one record per source, destination and category, found a second " + std::string(category_name(category)) +
                " record " + std::to_string(source) + " -> " + std::to_string(destination) + " (the first at line " +
                std::to_string(lines.empty() ? 0 : lines[0]) + ")");
  }
  dumps.matrix.cover_ranks(header.world_size);
  dumps.header = header;
  dumps.have_header = true;
}

Category category_of(char kind) {
  switch (kind) {
    case 'I':
      return Category::internal;
    case 'S':
      return Category::osc_sent;
    case 'R':
      return Category::osc_recv;
    case 'C':
      return Category::coll;
    case 'F':
      return Category::io_shuffle;
    default:
      return Category::external;
  }
}

ProfFile parse_input(std::string_view text, const std::string& file) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    throw FormatError(file + ": expected a monitoring dump (a job file or .prof lines), found an empty file");
  ProfFile parsed = parse_prof(text, file, ProfInput::capture);
  if (!parsed.has_monitoring_output)
    fail_at(file, 1, "monitoring output (.prof lines such as '# POINT TO POINT', or a job file), found none");
  return parsed;
}

void read_prof(Dumps& dumps, const ProfFile& parsed, const std::string& file, bool keep_annotations) {
  for (const ProfLine& l : parsed.lines)
    if (check_counts(file, l.line, l.messages, l.bytes))
      dumps.matrix.add(category_of(l.kind), l.me, l.peer, {l.messages, l.bytes});
  for (const ProfCommunicator& c : parsed.communicators) {
    CollectiveRow row;
    row.rank = c.me;
    row.communicator = c.name;
    bool any = false;
    for (int k = 0; k < 3; ++k) {
      if (c.calls[k] >= kCountLimit || c.bytes[k] >= kCountLimit) fail_at(file, c.line, "counts below 2^60 (1 EiB)");
      row.classes[k] = {c.calls[k], c.bytes[k]};
      any = any || c.calls[k] > 0;
    }
    if (keep_annotations && any && c.me >= 0) dumps.collectives.push_back(std::move(row));
  }
  for (const ProfSync& s : parsed.syncs) {
    if (!is_sync_kind(s.kind)) fail_at(file, s.line, "a synchronisation kind, found '" + s.kind + "'");
    if (s.calls >= kCountLimit) fail_at(file, s.line, "counts below 2^60 (1 EiB)");
    if (keep_annotations) dumps.window_syncs.push_back({s.me, unescape_name(s.window), s.kind, s.calls, s.seconds});
  }
  dumps.io.merge(parsed.io);  // always (as the job files' io_* annotations)
  if (parsed.foreign_lines > 0) {
    if (dumps.foreign_lines == 0) dumps.first_foreign = file + ":" + std::to_string(parsed.first_foreign_line);
    dumps.foreign_lines += parsed.foreign_lines;
    ++dumps.foreign_files;
  }
  if (const int32_t rank = rank_in_file_name(file); rank >= 0) dumps.matrix.cover_ranks(rank + 1);
}

}  // namespace

void for_each_dump(const std::vector<std::string>& files, const DumpLoader& load,
                   const std::function<void(std::string_view text, const std::string& name)>& on_job,
                   const std::function<void(const ProfFile& file, const std::string& name)>& on_prof) {
  for (const std::string& file : files) {
    const std::string text = load(file);
    if (is_job_text(text)) {
      on_job(text, file);
    } else {
      on_prof(parse_input(text, file), file);
    }
  }
}

Dumps read_dumps(const std::vector<std::string>& files, Annotations annotations, const DumpLoader& load) {
  Dumps dumps;
  dumps.files = files;
  const bool keep = annotations == Annotations::read;
  for_each_dump(
      files, load, [&](std::string_view text, const std::string& file) { read_job(dumps, text, file, keep); },
      [&](const ProfFile& parsed, const std::string& file) { read_prof(dumps, parsed, file, keep); });
  dumps.matrix.finish();
  return dumps;
}

std::string Dumps::foreign_lines_note() const {
  if (foreign_lines == 0) return {};
  return "skipped " + std::to_string(foreign_lines) + (foreign_lines == 1 ? " line that is" : " lines that are") +
         " not monitoring output (mpirun's or the application's) in " + std::to_string(foreign_files) +
         (foreign_files == 1 ? " file" : " files") + ", the first at " + first_foreign;
}

}  // namespace mpimon::tools
