// Job files and .prof dumps: what `mpimon matrix` and `mpimon show` read, read the same
// way (tools/mpimon/series_input.h resolve_inputs, then dumps.h read_dumps), so that the
// matrices are the tools' matrices, cell for cell; and every record as written (the job
// file's reader, the .prof reader) with its size histogram.
#include <pybind11/stl.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "dumps.h"
#include "hostfile.h"
#include "nbc_summary.h"
#include "readers/job_reader.h"
#include "readers/wait_annotations_reader.h"
#include "series_input.h"

namespace mpimon::python {

namespace {

using tools::Dumps;

// What read_inputs (the commands' reading) gives, kept for the matrix selections.
struct OpenDumps {
  Dumps dumps;
  std::vector<std::string> notes;  // what the commands print on stderr (series not finished, skipped lines)
};

OpenDumps open_dumps(const std::vector<std::string>& arguments, bool annotations) {
  if (arguments.empty()) throw std::invalid_argument("no input given");
  std::ostringstream notes;
  const tools::ResolvedInputs inputs = tools::resolve_inputs(arguments, {}, notes);
  OpenDumps out{
      tools::read_dumps(inputs.files, annotations ? tools::Annotations::read : tools::Annotations::skip, inputs.load),
      {}};
  std::string line;
  std::istringstream lines(notes.str());
  while (std::getline(lines, line)) out.notes.push_back(line);
  if (const std::string note = out.dumps.foreign_lines_note(); !note.empty()) out.notes.push_back("mpimon: " + note);
  return out;
}

py::dict header_dict(const JobHeader& h) {
  py::dict d;
  d["world_size"] = h.world_size;
  d["enable_level"] = h.enable_level;
  d["open_mpi"] = h.open_mpi_version;
  d["start"] = h.start_time;
  d["end"] = h.end_time;
  return d;
}

// A selection's non-zero cells (sorted by sender, receiver) as four columns.
py::dict cells_of(const OpenDumps& o, const std::string& selection) {
  const std::vector<tools::Cell> cells = o.dumps.matrix.cells(tools::Selection::of(selection));
  std::vector<int32_t> from, to;
  std::vector<uint64_t> messages, bytes;
  for (const tools::Cell& c : cells) {
    from.push_back(c.from);
    to.push_back(c.to);
    messages.push_back(c.traffic.messages);
    bytes.push_back(c.traffic.bytes);
  }
  py::dict d;
  d["sender"] = to_numpy(std::move(from));
  d["receiver"] = to_numpy(std::move(to));
  d["messages"] = to_numpy(std::move(messages));
  d["bytes"] = to_numpy(std::move(bytes));
  return d;
}

py::list categories_of(const OpenDumps& o) {
  py::list names;
  for (int c = 0; c < kCategoryCount; ++c)
    if (o.dumps.matrix.has(static_cast<Category>(c))) names.append(category_name(static_cast<Category>(c)));
  return names;
}

py::dict collectives_of(const OpenDumps& o) {
  static const char* kClasses[3] = {"one_to_all", "all_to_one", "all_to_all"};
  py::list rank, communicator, cls;
  std::vector<uint64_t> calls, bytes;
  for (const tools::CollectiveRow& row : o.dumps.collectives)
    for (int k = 0; k < 3; ++k) {
      if (row.classes[k].messages == 0 && row.classes[k].bytes == 0) continue;
      rank.append(row.rank);
      communicator.append(row.communicator);
      cls.append(kClasses[k]);
      calls.push_back(row.classes[k].messages);
      bytes.push_back(row.classes[k].bytes);
    }
  py::dict d;
  d["rank"] = rank;
  d["communicator"] = communicator;
  d["class"] = cls;
  d["calls"] = to_numpy(std::move(calls));
  d["bytes"] = to_numpy(std::move(bytes));
  return d;
}

py::dict window_syncs_of(const OpenDumps& o) {
  py::list rank, window, kind;
  std::vector<uint64_t> calls;
  std::vector<double> seconds;
  for (const tools::WindowSyncRow& row : o.dumps.window_syncs) {
    rank.append(row.rank);
    window.append(row.window);
    kind.append(row.kind);
    calls.push_back(row.calls);
    seconds.push_back(row.seconds);
  }
  py::dict d;
  d["rank"] = rank;
  d["window"] = window;
  d["kind"] = kind;
  d["calls"] = to_numpy(std::move(calls));
  d["seconds"] = to_numpy(std::move(seconds));
  return d;
}

py::list annotations_of(const OpenDumps& o) {
  py::list out;
  for (const JobAnnotation& a : o.dumps.annotations) out.append(py::make_tuple(a.keyword, a.line, a.fields));
  return out;
}

// One row per (file, rank): what the rank asked, what reached the file system, what
// failed there, what it sent in the collective-buffering shuffle.
py::list io_rows_of(const OpenDumps& o) {
  py::list rows;
  for (const auto& [identity, file] : o.dumps.io.files()) {
    for (const auto& [rank, use] : file.ranks) {
      py::dict r;
      r["file"] = file.name.empty() ? identity : file.name;
      r["rank"] = rank;
      r["io"] = use.io;
      r["fcoll"] = use.fcoll;
      for (int d = 0; d < mpi_io::kDirectionCount; ++d) {
        const std::string dir = mpi_io::direction_name(static_cast<mpi_io::Direction>(d));
        r[py::str(dir + "_asked_calls")] = use.asked_calls(static_cast<mpi_io::Direction>(d));
        r[py::str(dir + "_asked_bytes")] = use.asked_bytes(static_cast<mpi_io::Direction>(d));
        r[py::str(dir + "_reached_operations")] = use.fs[d].operations;
        r[py::str(dir + "_reached_bytes")] = use.fs[d].bytes;
        r[py::str(dir + "_failed_operations")] = use.fs[d].failed_operations;
        r[py::str(dir + "_failed_bytes")] = use.fs[d].failed_bytes;
        r[py::str(dir + "_seconds")] = use.seconds[d];
      }
      uint64_t shuffle_messages = 0, shuffle_bytes = 0;
      for (const auto& [peer, traffic] : use.shuffle) {
        shuffle_messages += traffic.messages;
        shuffle_bytes += traffic.bytes;
      }
      r["shuffle_messages"] = shuffle_messages;
      r["shuffle_bytes"] = shuffle_bytes;
      rows.append(r);
    }
  }
  return rows;
}

py::dict wait_states_of(const OpenDumps& o) {
  const wait_states::WaitAnnotations w = wait_states::read_wait_annotations(
      o.dumps.annotations, o.dumps.files.empty() ? "" : o.dumps.files.back(), o.dumps.header.world_size);
  py::list waiter, window, pattern, culprit;
  std::vector<uint64_t> count;
  std::vector<double> seconds;
  for (const wait_states::WaitStateLine& line : w.waits) {
    waiter.append(line.waiter);
    window.append(line.window);
    pattern.append(wait_states::pattern_name(line.pattern));
    culprit.append(line.culprit);
    count.push_back(line.count);
    seconds.push_back(line.seconds);
  }
  py::dict d;
  d["waiter"] = waiter;
  d["window"] = window;
  d["pattern"] = pattern;
  d["culprit"] = culprit;
  d["count"] = to_numpy(std::move(count));
  d["seconds"] = to_numpy(std::move(seconds));
  return d;
}

// The nonblocking collectives' overlap (`nbc_overlap` lines), summed by the tools' own
// summary (nbc_summary.h, what `mpimon show` and `mpimon report` print): over all ranks
// per (communicator, kind) when `per_rank` is false, else per (rank, communicator, kind),
// each rank's lines summed alone. Lines the summary leaves out (malformed) are left out.
py::dict nbc_overlap_of(const OpenDumps& o, bool per_rank) {
  // rank -> its lines (-1: every rank's, for the summary, which takes them all, as
  // `mpimon show` does); per rank, a rank field that is not a number leaves the line out
  std::map<int64_t, std::vector<JobAnnotation>> groups;
  for (const JobAnnotation& a : o.dumps.nbc) {
    if (a.keyword != "nbc_overlap" || a.fields.empty()) continue;
    int64_t rank = -1;
    if (per_rank) {
      const std::string& field = a.fields[0];
      const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), rank);
      if (error != std::errc{} || end != field.data() + field.size() || rank < 0) continue;
    }
    groups[rank].push_back(a);
  }
  py::list communicator, kind;
  std::vector<int64_t> rank;
  std::vector<uint8_t> followed;
  std::vector<uint64_t> ranks, not_followed, calls, waited, bytes, before, measured, histogram;
  std::vector<double> duration, blocked, mean, weighted;
  py::list lowest_rank;
  for (const auto& [r, lines] : groups) {
    const tools::NbcSummary summary = tools::summarize_nbc(lines);
    for (const auto& [key, s] : summary.kinds) {
      rank.push_back(r);
      communicator.append(key.first);
      kind.append(key.second);
      ranks.push_back(s.ranks);
      not_followed.push_back(s.not_followed_ranks);
      followed.push_back(!s.not_followed());
      calls.push_back(s.calls);
      waited.push_back(s.waited);
      duration.push_back(s.duration);
      blocked.push_back(s.blocked);
      bytes.push_back(s.bytes);
      before.push_back(s.before);
      measured.push_back(s.measured);
      mean.push_back(s.mean_overlap());
      weighted.push_back(s.weighted_overlap());
      histogram.insert(histogram.end(), s.histogram, s.histogram + tools::kNbcBuckets);
      lowest_rank.append(s.lowest_rank);
    }
  }
  py::dict d;
  if (per_rank) d["rank"] = to_numpy(std::move(rank));
  d["communicator"] = communicator;
  d["kind"] = kind;
  if (!per_rank) {
    d["ranks"] = to_numpy(std::move(ranks));
    d["not_followed_ranks"] = to_numpy(std::move(not_followed));
  } else {
    d["followed"] = to_numpy(std::move(followed));  // 0: the rank followed no call of it ("not followed")
  }
  d["calls"] = to_numpy(std::move(calls));
  d["waited"] = to_numpy(std::move(waited));
  d["duration"] = to_numpy(std::move(duration));
  d["blocked"] = to_numpy(std::move(blocked));
  d["bytes"] = to_numpy(std::move(bytes));
  d["bytes_before_wait"] = to_numpy(std::move(before));
  d["measured"] = to_numpy(std::move(measured));
  d["mean_overlap"] = to_numpy(std::move(mean));
  d["byte_weighted_overlap"] = to_numpy(std::move(weighted));
  if (!per_rank) d["lowest_rank"] = lowest_rank;
  d["histogram"] = to_numpy_2d(std::move(histogram), tools::kNbcBuckets);
  return d;
}

// The `nbc_sampling` schedules as the tools print them ("128 after the first 64").
std::vector<std::string> nbc_samplings_of(const OpenDumps& o) {
  const tools::NbcSummary summary = tools::summarize_nbc(o.dumps.nbc);
  return {summary.samplings.begin(), summary.samplings.end()};
}

// Records as written: (recorder, peer, category, counters, histogram).
struct RecordColumns {
  std::vector<int32_t> recorder, peer;
  std::vector<uint8_t> category;
  std::vector<uint64_t> messages, bytes, histogram;
  py::list files;
  void add(int32_t r, int32_t p, Category c, uint64_t m, uint64_t b, const uint64_t* h, const std::string& file) {
    recorder.push_back(r);
    peer.push_back(p);
    category.push_back(static_cast<uint8_t>(c));
    messages.push_back(m);
    bytes.push_back(b);
    histogram.insert(histogram.end(), h, h + kHistogramBuckets);
    files.append(file);
  }
  py::dict take() {
    py::dict d;
    d["rank"] = to_numpy(std::move(recorder));
    d["peer"] = to_numpy(std::move(peer));
    d["category"] = to_numpy(std::move(category));
    d["messages"] = to_numpy(std::move(messages));
    d["bytes"] = to_numpy(std::move(bytes));
    d["histogram"] = to_numpy_2d(std::move(histogram), kHistogramBuckets);
    d["file"] = files;
    return d;
  }
};

py::dict job_records(const std::string& path) {
  RecordColumns columns;
  const JobFile job = read_job_file(path);
  for (const JobRecord& r : job.records)
    columns.add(r.source, r.destination, r.category, r.counters.messages, r.counters.bytes, r.counters.histogram, path);
  py::dict d = columns.take();
  d["header"] = header_dict(job.header);
  d["program"] = job_program(job);
  return d;
}

Category category_of_kind(char kind) {
  switch (kind) {
    case 'E':
      return Category::external;
    case 'I':
      return Category::internal;
    case 'C':
      return Category::coll;
    case 'S':
      return Category::osc_sent;
    case 'R':
      return Category::osc_recv;
    default:
      return Category::io_shuffle;  // 'F'
  }
}

// Every E/I/C/S/R/F line of the .prof files the arguments name (as the tools expand them).
py::dict prof_records(const std::vector<std::string>& arguments) {
  RecordColumns columns;
  const std::vector<std::string> files = tools::expand_dump_arguments(arguments);
  tools::for_each_dump(
      files, tools::load_dump_file,
      [](std::string_view, const std::string& name) {
        throw FormatError(name + ": a job file, not a .prof dump (read it with mpimon.read_job)");
      },
      [&](const ProfFile& file, const std::string& name) {
        for (const ProfLine& l : file.lines)
          columns.add(l.me, l.peer, category_of_kind(l.kind), l.messages, l.bytes, l.histogram.data(), name);
      });
  py::dict d = columns.take();
  d["files"] = files;
  return d;
}

// mpirun's hostfile, read by the tools' reader (`mpimon place --hostfile`).
py::list hostfile(const std::string& path) {
  py::list hosts;
  for (const tools::HostfileHost& h : tools::read_hostfile(path))
    hosts.append(
        py::make_tuple(h.name, h.slots ? py::object(py::int_(*h.slots)) : py::object(py::none()), h.max_slots, h.line));
  return hosts;
}

}  // namespace

void bind_dumps(py::module_& m) {
  py::class_<OpenDumps>(m, "Dumps", "Job files or .prof dumps read as `mpimon matrix` reads them.")
      .def_property_readonly("files", [](const OpenDumps& o) { return o.dumps.files; })
      .def_property_readonly("ranks", [](const OpenDumps& o) { return o.dumps.matrix.ranks(); })
      .def_property_readonly("has_header", [](const OpenDumps& o) { return o.dumps.have_header; })
      .def_property_readonly("header", [](const OpenDumps& o) { return header_dict(o.dumps.header); })
      .def_property_readonly("notes", [](const OpenDumps& o) { return o.notes; })
      .def("categories", &categories_of)
      .def("cells", &cells_of, py::arg("selection"))
      .def("collectives", &collectives_of)
      .def("window_syncs", &window_syncs_of)
      .def("annotations", &annotations_of)
      .def("io", &io_rows_of)
      .def("wait_states", &wait_states_of)
      .def("nbc_overlap", &nbc_overlap_of, py::arg("per_rank"))
      .def("nbc_samplings", &nbc_samplings_of);
  m.def("open_dumps", &open_dumps, py::arg("arguments"), py::arg("annotations") = true);
  m.def("job_records", &job_records, py::arg("path"));
  m.def("prof_records", &prof_records, py::arg("arguments"));
  m.def("read_hostfile", &hostfile, py::arg("path"));
  m.def("selection_names", [] { return tools::Selection::names(); });
  py::list categories;
  for (int c = 0; c < kCategoryCount; ++c) categories.append(category_name(static_cast<Category>(c)));
  m.attr("CATEGORIES") = categories;
  m.attr("HISTOGRAM_BUCKETS") = kHistogramBuckets;
}

}  // namespace mpimon::python
