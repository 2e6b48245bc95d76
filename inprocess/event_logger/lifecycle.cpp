// The event logger's life: MPI_T and the handles before PMPI_Init, the output after it,
// the statistics and the file at MPI_Finalize, and the log published inside
// PMPI_Finalize under the run's one number (files/output_names.h).
#include "logger.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "files/output_names.h"

namespace mpimon::mel {

// Stops logging for good (after the output failed, or nothing to log).
void disable(Logger& g) {
  free_all_handles(g);
  std::lock_guard<std::mutex> lock(g.mutex);
  g.closed = true;
  g.pending.clear();
}

namespace {

// One message line on stderr in one write: several ranks write theirs at the same moment,
// and Open MPI 5's launcher forwards each write as it comes (a line printed in pieces by
// fprintf came out interleaved with the other ranks' there).
void say(const std::string& line) {
  const std::string text = line + "\n";
  if (::write(STDERR_FILENO, text.data(), text.size()) < 0) {
    // Nowhere else to say it.
  }
}

void print_from_rank_zero(const Logger& g, const std::string& line) {
  if (g.world_rank == 0 && !line.empty()) say(line);
}

// The name of the clock a source counts (source info key MPIMON_EVENTS_CLOCK), or "".
// Needs MPI initialised (MPI_Info_get).
std::string clock_of(int source) {
  MPI_Info info = MPI_INFO_NULL;
  if (MPI_T_source_get_info(source, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, &info) !=
          MPI_SUCCESS ||
      info == MPI_INFO_NULL)
    return "";
  char value[64] = {};
  int flag = 0;
  if (PMPI_Info_get(info, MPIMON_EVENTS_CLOCK, sizeof value - 1, value, &flag) != MPI_SUCCESS) flag = 0;
  PMPI_Info_free(&info);
  return flag ? value : "";
}

// The sources read at MPI_Init, on one timeline (sources of the same clock share an origin).
Timeline place_sources(const Logger& g) {
  Timeline timeline;
  for (size_t i = 0; i < g.readings.size(); ++i) {
    const SourceReading& r = g.readings[i];
    if (!r.on_demand) continue;
    const int source = static_cast<int>(i);
    if (source == g.reference_source)
      timeline.set_reference(source, r.ticks_per_second, clock_of(source), r.ticks);
    else
      timeline.add_source(source, r.ticks_per_second, clock_of(source), r.before, r.ticks, r.after);
  }
  return timeline;
}

int publish_log(MPI_Comm, int, void*, void*);

// MEL_FORMAT=otf2: the trace's records, timed from CLOCK_REALTIME at the timeline's
// origin (read now on both clocks).
std::unique_ptr<Trace> open_trace(const Logger& g, const Timeline& timeline) {
  if (!g.formats.otf2) return nullptr;
  timespec now{};
  MPI_Count ticks = 0;
  const bool on_timeline = g.reference_source >= 0 && timeline.knows(g.reference_source) &&
                           MPI_T_source_get_timestamp(g.reference_source, &ticks) == MPI_SUCCESS;
  clock_gettime(CLOCK_REALTIME, &now);
  const double seconds = on_timeline ? timeline.seconds(g.reference_source, ticks) : 0;
  const int64_t now_ns = static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
  return std::make_unique<Trace>(now_ns - static_cast<int64_t>(seconds * 1e9));
}

}  // namespace

// Before PMPI_Init: MPI_T, sources, types, handles on the predefined communicators.
void before_init(int thread_level) {
  Logger& g = logger();
  int provided = 0;
  if (MPI_T_init_thread(thread_level, &provided) != MPI_SUCCESS) return;
  g.mpit_initialized = true;
  const char* selection = std::getenv("MEL_EVENTS");
  g.wanted = parse_event_list(selection ? selection : "");

  // The timeline's origin is now (MPI_Init), on the first source that tells the time on
  // demand; every other such source is read between two readings of it. Sources without
  // on-demand timestamps are placed at their first event.
  int sources = 0;
  if (MPI_T_source_get_num(&sources) != MPI_SUCCESS) sources = 0;
  std::vector<SourceReading> readings(static_cast<size_t>(sources));
  std::vector<long long> ticks_per_second(static_cast<size_t>(sources), 1000000000);
  for (int i = 0; i < sources; ++i) {
    MPI_Count tps = 0;
    if (MPI_T_source_get_info(i, nullptr, nullptr, nullptr, nullptr, nullptr, &tps, nullptr, nullptr) == MPI_SUCCESS &&
        tps > 0)
      ticks_per_second[static_cast<size_t>(i)] = readings[static_cast<size_t>(i)].ticks_per_second = tps;
  }
  for (int i = 0; i < sources; ++i) {
    SourceReading& r = readings[static_cast<size_t>(i)];
    MPI_Count before = 0, ticks = 0, after = 0;
    if (g.reference_source < 0) {
      if (MPI_T_source_get_timestamp(i, &ticks) != MPI_SUCCESS) continue;
      g.reference_source = i;
      before = after = ticks;
    } else if (MPI_T_source_get_timestamp(g.reference_source, &before) != MPI_SUCCESS ||
               MPI_T_source_get_timestamp(i, &ticks) != MPI_SUCCESS ||
               MPI_T_source_get_timestamp(g.reference_source, &after) != MPI_SUCCESS) {
      continue;
    }
    r.on_demand = true;
    r.before = before;
    r.ticks = ticks;
    r.after = after;
  }
  g.readings = std::move(readings);

  add_new_types(g);
  {
    std::lock_guard<std::mutex> lock(g.mutex);
    g.source_ticks_per_second = std::move(ticks_per_second);
  }
  g.attaching.store(true, std::memory_order_release);
  attach(g, MPI_T_BIND_NO_OBJECT, nullptr, MPI_COMM_NULL, MPI_WIN_NULL);
  const MPI_Comm world = MPI_COMM_WORLD, self = MPI_COMM_SELF;
  communicator_created(&world);
  communicator_created(&self);
}

// MEL_FORMAT's output formats; one line from rank 0 and the text log when they cannot be
// written (no MEL_OUTPUT for an archive, no OTF2 in this build).
void choose_output_formats(Logger& g, const char* prefix) {
  const char* formats = std::getenv("MEL_FORMAT");
  std::string error;
  g.formats = parse_output_formats(formats ? formats : "", error);
  if (g.formats.otf2 && (prefix == nullptr || *prefix == '\0'))
    error = "MEL_FORMAT=otf2 needs MEL_OUTPUT (the archive is <MEL_OUTPUT>.otf2): writing the text log";
  else if (g.formats.otf2 && !otf2_built())
    error = "MEL_FORMAT=otf2: this event logger was built without OTF2 (libotf2-trace-dev): writing the text log";
  if (!error.empty()) g.formats = OutputFormats{};
  print_from_rank_zero(g, error.empty() ? "" : "mel: " + error);
}

// One line from rank 0 naming the wanted event types no library registered.
void warn_unknown_events(Logger& g) {
  std::vector<std::string> unknown;
  for (const std::string& name : g.wanted) {
    bool found = false;
    for (const auto& slot : g.types) found = found || slot->type.name == name;
    if (!found) unknown.push_back(name);
  }
  print_from_rank_zero(g, unknown_events_warning(unknown));
}

// After PMPI_Init: value names, warnings, the output; then what arrived meanwhile.
void after_init() {
  Logger& g = logger();
  PMPI_Comm_rank(MPI_COMM_WORLD, &g.world_rank);
  const char* prefix = std::getenv("MEL_OUTPUT");
  choose_output_formats(g, prefix);
  if (prefix != nullptr && *prefix != '\0') {
    // Every rank publishes (collectively) at MPI_Finalize, whatever happens below.
    g.to_file = true;
    g.output_prefix = prefix;
    int keyval = MPI_KEYVAL_INVALID;
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, publish_log, &keyval, nullptr) == MPI_SUCCESS)
      PMPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr);
  }
  if (!g.mpit_initialized) {
    print_from_rank_zero(g, "mel: MPI_T_init_thread failed: no events logged");
    return;
  }
  // Types registered during MPI_Init (by components loaded then): handles on the objects
  // that exist so far (unbound, MPI_COMM_WORLD, MPI_COMM_SELF).
  const size_t first_new = g.types.size();
  add_new_types(g);
  if (g.types.size() > first_new) {
    std::lock_guard<std::mutex> lock(g.objects_mutex);
    for (auto& [key, object] : g.objects) allocate_handles(g, *object, first_new);
  }
  if (g.types.empty()) {
    print_from_rank_zero(g, "mel: the MPI_T events library reports no event types: nothing to log");
    disable(g);
    return;
  }
  warn_unknown_events(g);
  attach_every_object(g);

  std::vector<EventType> completed;
  for (const auto& slot : g.types) completed.push_back(slot->selected ? complete_type(*slot) : slot->type);
  const Timeline timeline = place_sources(g);

  mpimon::NewFile file;
  if (g.to_file) {
    mpimon::FileError error;
    file = mpimon::NewFile::create(log_file_path(g.output_prefix, g.world_rank), error);
    if (error) {
      say("mel: rank " + std::to_string(g.world_rank) + ": event log not written: " + error.message +
          "; logging disabled");
      disable(g);
      return;
    }
  }

  std::unique_ptr<Trace> trace = open_trace(g, timeline);
  std::lock_guard<std::mutex> lock(g.mutex);
  for (size_t i = 0; i < g.types.size(); ++i) g.types[i]->type = std::move(completed[i]);
  g.timeline = timeline;
  g.trace = std::move(trace);
  g.statistics.set_logged_events(g.wanted);
  g.file = std::move(file);
  g.line_prefix = "rank " + std::to_string(g.world_rank) + ": ";
  for (Pending& p : g.pending) {
    if (p.dropped >= 0)
      log_dropped(g, *p.slot, p.dropped);
    else
      log_instance(g, *p.slot, seconds_of(g, p.stamp), p.payload.data(), p.payload.size());
  }
  if (g.pending_overflow > 0)
    write_text(g, "mel: " + std::to_string(g.pending_overflow) + " events during MPI_Init not logged (buffer full)\n");
  g.pending.clear();
  g.pending.shrink_to_fit();
  g.ready = true;
}

void finish() {
  Logger& g = logger();
  if (!g.mpit_initialized) return;
  g.mpit_initialized = false;
  free_all_handles(g);
  {
    std::lock_guard<std::mutex> lock(g.mutex);
    if (g.to_file) flush_buffer(g);
  }
  MPI_T_finalize();

  std::lock_guard<std::mutex> lock(g.mutex);
  if (g.closed) return;
  g.closed = true;
  if (!g.ready) return;
  write_text(g, g.statistics.report());
  if (!g.file.is_open()) return;
  flush_buffer(g);
  if (!g.file_error) g.file.finish(g.file_error);  // fsync and size check
  if (g.file_error) {
    say("mel: rank " + std::to_string(g.world_rank) + ": event log not written: " + g.file_error.message);
    g.file.discard();
  }
  // Published by publish_log, inside PMPI_Finalize.
}

namespace {

// MPI_COMM_SELF's attribute delete callback, at the start of PMPI_Finalize (after
// mpimon's end-of-job dump): every rank takes part, with or without a log to publish.
int publish_log(MPI_Comm, int, void*, void*) {
  Logger& g = logger();
  mpimon::NewFile file;
  {
    std::lock_guard<std::mutex> lock(g.mutex);
    file = std::move(g.file);
  }
  if (g.world_rank == 0) mpimon::remove_stale_temporaries(mpimon::folder_of(g.output_prefix));
  std::vector<mpimon::RunOutput> outputs(1);
  outputs[0].file = &file;
  outputs[0].name_for = [&](int n) { return log_file_path(mpimon::numbered_name(g.output_prefix, n), g.world_rank); };
  const int run = mpimon::publish_run_outputs(outputs, [](int mine) {
    int values[2] = {mine, -mine};
    PMPI_Allreduce(MPI_IN_PLACE, values, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return std::make_pair(values[0], -values[1]);
  });
  if (outputs[0].error)
    say("mel: rank " + std::to_string(g.world_rank) + ": event log not written: " + outputs[0].error.message);
  if (g.formats.otf2) {  // every rank takes part, with or without records
    std::unique_ptr<Trace> trace;
    {
      std::lock_guard<std::mutex> lock(g.mutex);
      trace = std::move(g.trace);
    }
    const std::string error =
        write_otf2_archive(trace.get(), mpimon::numbered_name(g.output_prefix, run), g.world_rank);
    if (!error.empty()) say("mel: rank " + std::to_string(g.world_rank) + ": " + error);
  }
  if (run > 0 && g.world_rank == 0)
    say("mel: event logs of an earlier run are in the way, and nothing is overwritten: this run's logs are " +
        mpimon::numbered_name(g.output_prefix, run) + ".<rank>.log");
  return MPI_SUCCESS;
}

// A process that exits without MPI_Finalize leaves no temporary file behind.
__attribute__((destructor)) void remove_unfinished_log() {
  Logger& g = logger();
  std::unique_lock<std::mutex> lock(g.mutex, std::try_to_lock);
  if (lock.owns_lock()) g.file.discard();
}

}  // namespace

}  // namespace mpimon::mel
