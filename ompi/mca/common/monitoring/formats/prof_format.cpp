#include "formats/prof_format.h"

#include <map>

namespace mpimon {

namespace {

void append_line(std::string& out, std::string_view kind, int me, const Record& r) {
  out += kind;
  out += '\t' + std::to_string(me) + '\t' + std::to_string(r.peer) + '\t' + std::to_string(r.counters.bytes) +
         " bytes\t" + std::to_string(r.counters.messages) + " msgs sent";
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
    append_line(out, "E", me, *p.external);
    append_histogram(out, p.histogram);
  }
  if (split_internal) {
    for (const auto& [peer, p] : pml) {
      if (!p.internal) continue;
      append_line(out, "I", me, *p.internal);
      if (p.external) {
        out += '\n';
      } else {
        append_histogram(out, p.histogram);
      }
    }
  }
  out += "# OSC\n";
  for (const Record& r : records) {
    if (r.category == Category::osc_sent) {
      append_line(out, "S", me, r);
      out += '\n';
    }
    if (r.category == Category::osc_recv) {
      append_line(out, "R", me, r);
      out += '\n';
    }
  }
  out += extras.osc;
  out += "# COLLECTIVES\n";
  for (const Record& r : records) {
    if (r.category == Category::coll) {
      append_line(out, "C", me, r);
      out += '\n';
    }
  }
  out += extras.collectives;
  bool io = !extras.io.empty();
  for (const Record& r : records) io = io || r.category == Category::io_shuffle;
  if (io) {
    out += "# MPI-IO\n";
    for (const Record& r : records) {
      if (r.category != Category::io_shuffle) continue;
      append_line(out, "# F", me, r);
      append_histogram(out, r.counters.histogram);
    }
    out += extras.io;
  }
  return out;
}

}  // namespace mpimon
