// The event logger's output and the callbacks the events library calls: the logger's hot
// path (one event: copy its payload, stamp it, format it, write it), kept in one file.
#include "logger.h"

#include <cstdio>

namespace mpimon::mel {

// ---------------------------------------------------------------------------------------
// Output (callers hold the mutex)

constexpr size_t kFileBuffer = 1 << 20;

void flush_buffer(Logger& g) {
  if (!g.file_error && !g.buffer.empty()) g.file.write(g.buffer, g.file_error);
  g.buffer.clear();
}

void write_text(Logger& g, const std::string& text) {
  if (g.to_file) {
    if (g.file_error) return;
    g.buffer += text;
    if (g.buffer.size() >= kFileBuffer) flush_buffer(g);
  } else {
    const std::string lines = prefix_lines(text, g.line_prefix);
    std::fwrite(lines.data(), 1, lines.size(), stderr);
  }
}

// Seconds on the timeline (mutex held, sources placed): a source not on it yet is placed
// by its first event.
double seconds_of(Logger& g, const Stamp& stamp) {
  if (stamp.source < 0 || !stamp.has_timestamp) return 0;
  if (!g.timeline.knows(stamp.source)) {
    const auto i = static_cast<size_t>(stamp.source);
    const long long tps = i < g.source_ticks_per_second.size() ? g.source_ticks_per_second[i] : 1000000000;
    if (stamp.has_reference_now)
      g.timeline.add_source(stamp.source, tps, "", stamp.reference_now, stamp.timestamp, stamp.reference_now);
    else
      g.timeline.set_reference(stamp.source, tps, "", stamp.timestamp);  // no reference at all: it starts here
  }
  return g.timeline.seconds(stamp.source, stamp.timestamp);
}

void log_instance(Logger& g, TypeSlot& slot, double seconds, const unsigned char* payload, size_t size) {
  const std::vector<Value> values = decode_payload(slot.type, payload, size);
  if (g.formats.text) write_text(g, format_event_line(seconds, slot.type, values) + "\n");
  if (g.trace) g.trace->record(slot.type, values, seconds);
  g.statistics.record(slot.type, values, seconds);
}

void log_dropped(Logger& g, TypeSlot& slot, long long count) {
  write_text(g, format_dropped_line(count, slot.type.name) + "\n");
  g.statistics.record_dropped(slot.type.name, count);
}

// ---------------------------------------------------------------------------------------
// Callbacks (any thread; never throw)

void on_event(MPI_T_event_instance instance, MPI_T_event_registration, MPI_T_cb_safety, void* user_data) noexcept {
  try {
    auto* slot = static_cast<TypeSlot*>(user_data);
    if (slot == nullptr) return;
    Logger& g = logger();
    int source = -1;
    MPI_Count timestamp = 0;
    if (MPI_T_event_get_source(instance, &source) != MPI_SUCCESS) source = -1;
    const bool has_timestamp = MPI_T_event_get_timestamp(instance, &timestamp) == MPI_SUCCESS;
    thread_local std::vector<unsigned char> payload;
    payload.assign(slot->buffer_size, 0);
    if (MPI_T_event_copy(instance, payload.data()) != MPI_SUCCESS) {
      // Element by element, then (read and copy write at the same displacements).
      for (size_t i = 0; i < slot->displacements.size(); ++i)
        MPI_T_event_read(instance, static_cast<int>(i), payload.data() + slot->displacements[i]);
    }

    Stamp stamp{source, has_timestamp, timestamp, false, 0};
    // A source that cannot tell the time on demand is placed on the timeline at its first
    // event, by the reference source's clock now (a call allowed in callbacks).
    if (g.reference_source >= 0 && source >= 0 && source != g.reference_source &&
        !(static_cast<size_t>(source) < g.readings.size() && g.readings[static_cast<size_t>(source)].on_demand)) {
      MPI_Count now = 0;
      stamp.has_reference_now = MPI_T_source_get_timestamp(g.reference_source, &now) == MPI_SUCCESS;
      stamp.reference_now = now;
    }

    std::lock_guard<std::mutex> lock(g.mutex);
    if (g.closed) return;
    if (g.ready) {
      log_instance(g, *slot, seconds_of(g, stamp), payload.data(), payload.size());
    } else if (g.pending.size() < kMaxPending) {
      g.pending.push_back(Pending{slot, stamp, payload, -1});
    } else {
      ++g.pending_overflow;
    }
  } catch (...) {
  }
}

void on_dropped(MPI_Count count, MPI_T_event_registration, int, MPI_T_cb_safety, void* user_data) noexcept {
  try {
    auto* slot = static_cast<TypeSlot*>(user_data);
    if (slot == nullptr) return;
    Logger& g = logger();
    std::lock_guard<std::mutex> lock(g.mutex);
    if (g.closed) return;
    if (g.ready)
      log_dropped(g, *slot, static_cast<long long>(count));
    else
      g.pending.push_back(Pending{slot, {}, {}, static_cast<long long>(count)});
  } catch (...) {
  }
}

void on_handle_freed(MPI_T_event_registration, MPI_T_cb_safety, void*) noexcept { logger().live_handles.fetch_sub(1); }

}  // namespace mpimon::mel
