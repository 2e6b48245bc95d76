// Per-snapshot cost of the time series for one process (no MPI), in CPU time of the
// snapshotting thread (wall time on these shared machines is meaningless): the process talks to P
// peers in two categories (application and internal point-to-point, as a stencil does);
// between snapshots every record changes (the worst case) or none does (an idle
// interval). One snapshot = reading the engine without a lock, encoding what changed,
// framing it and appending it to a file, exactly as the series' thread does.
//
//   mpimon_bench_series <folder>     (prints a Markdown table)
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "formats/series_format.h"
#include "formats/series_frame.h"
#include "series/series_writer.h"

using namespace mpimon;

namespace {

// CPU time of this thread: what a snapshot costs, whatever else the (shared) machine runs.
double thread_seconds() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

struct Cost {
  double microseconds = 0;
  double bytes = 0;
};

// Mean cost of `snapshots` snapshots; `change` runs before each.
template <typename Change>
Cost measure(const Engine& engine, series::DeltaEncoder& encoder, series::TotalsView& now, int fd, int snapshots,
             Change&& change, const std::vector<std::string>& lines) {
  Cost c;
  for (int s = 0; s < snapshots; ++s) {
    change();
    const double began = thread_seconds();
    series::live_totals(engine, now);
    const std::string frame = series::encode_frame({series::FrameKind::snapshot, 0, static_cast<uint64_t>(s + 1), 0},
                                                   encoder.payload(now, lines));
    if (::write(fd, frame.data(), frame.size()) != static_cast<ssize_t>(frame.size())) std::perror("write");
    encoder.commit();
    c.microseconds += (thread_seconds() - began) * 1e6;
    c.bytes += static_cast<double>(frame.size());
  }
  c.microseconds /= snapshots;
  c.bytes /= snapshots;
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string folder = argc > 1 ? argv[1] : ".";
  const std::string path = folder + "/bench-series";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
  if (fd < 0) {
    std::perror(path.c_str());
    return 1;
  }
  std::printf(
      "| peers | records | CPU us per snapshot, all changed | bytes per snapshot, all changed | CPU us per "
      "snapshot, idle | bytes per snapshot, idle |\n|---:|---:|---:|---:|---:|---:|\n");
  // One communicator's collective classes change at every snapshot too (an annotation line).
  for (int peers : {6, 64, 1000, 10000, 100000}) {
    Engine engine;
    series::DeltaEncoder encoder;
    series::TotalsView now;  // reused, as the series' thread does
    const int32_t world = 100000;
    auto peer = [&](int p) { return static_cast<int32_t>((static_cast<int64_t>(p) * 7919) % world); };
    uint64_t round = 0;
    std::vector<std::string> lines{"collectives 0 MPI_COMM_WORLD 0 0 0 0 0 0"};
    auto change_all = [&] {
      ++round;
      for (int p = 0; p < peers; ++p) {
        engine.record(peer(p), Category::external, 8192);
        engine.record(peer(p), Category::internal, 64);
      }
      lines[0] = "collectives 0 MPI_COMM_WORLD 0 0 0 0 " + std::to_string(round) + " " + std::to_string(round * 8);
    };
    const int snapshots = peers >= 10000 ? 20 : 200;
    measure(engine, encoder, now, fd, 1, change_all, lines);  // the first snapshot holds everything
    const Cost changed = measure(engine, encoder, now, fd, snapshots, change_all, lines);
    const Cost idle = measure(
        engine, encoder, now, fd, snapshots, [] {}, lines);
    std::printf("| %d | %d | %.1f | %.0f | %.1f | %.0f |\n", peers, 2 * peers, changed.microseconds, changed.bytes,
                idle.microseconds, idle.bytes);
  }
  ::close(fd);
  ::unlink(path.c_str());
  return 0;
}
