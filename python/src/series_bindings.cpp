// Time series (readers/series_reader.h): every snapshot and final frame of every rank, as
// the increases it carries (one row per (frame, peer, category)), and the series' facts.
#include <pybind11/stl.h>

#include "bindings.h"
#include "readers/series_reader.h"

namespace mpimon::python {

namespace {

py::dict read_series(const std::string& folder) {
  std::vector<int32_t> rank, peer;
  std::vector<uint64_t> interval, messages, bytes;
  std::vector<int64_t> time_us;
  std::vector<uint8_t> category, final;
  std::vector<uint64_t> frame;  // the row's frame, an index into the frames' columns
  std::vector<int32_t> frame_rank;
  std::vector<uint64_t> frame_interval;
  std::vector<int64_t> frame_time_us;
  std::vector<uint8_t> frame_final;
  const series::SeriesInfo info = series::read_series(folder, [&](const series::SeriesFrame& f) {
    frame_rank.push_back(f.rank);
    frame_interval.push_back(f.interval);
    frame_time_us.push_back(f.time_us);
    frame_final.push_back(f.kind == series::FrameKind::final ? 1 : 0);
    for (const Record& r : f.delta->records) {
      frame.push_back(frame_rank.size() - 1);
      rank.push_back(f.rank);
      interval.push_back(f.interval);
      time_us.push_back(f.time_us);
      final.push_back(f.kind == series::FrameKind::final ? 1 : 0);
      peer.push_back(r.peer);
      category.push_back(static_cast<uint8_t>(r.category));
      messages.push_back(r.counters.messages);
      bytes.push_back(r.counters.bytes);
    }
  });
  py::dict d;
  d["frame"] = to_numpy(std::move(frame));
  d["rank"] = to_numpy(std::move(rank));
  d["interval"] = to_numpy(std::move(interval));
  d["time_us"] = to_numpy(std::move(time_us));
  d["final"] = to_numpy(std::move(final));
  d["peer"] = to_numpy(std::move(peer));
  d["category"] = to_numpy(std::move(category));
  d["messages"] = to_numpy(std::move(messages));
  d["bytes"] = to_numpy(std::move(bytes));
  py::dict frames;
  frames["rank"] = to_numpy(std::move(frame_rank));
  frames["interval"] = to_numpy(std::move(frame_interval));
  frames["time_us"] = to_numpy(std::move(frame_time_us));
  frames["final"] = to_numpy(std::move(frame_final));
  d["frames"] = frames;
  d["world_size"] = info.job.world_size;
  d["enable_level"] = info.job.enable_level;
  d["open_mpi"] = info.job.open_mpi_version;
  d["job_start_us"] = info.job.job_start_us;
  d["interval_us"] = info.job.interval_us;
  d["finished"] = info.finished();
  d["end"] = info.describe_end();
  d["notes"] = info.notes;
  return d;
}

}  // namespace

void bind_series(py::module_& m) { m.def("read_series", &read_series, py::arg("folder")); }

}  // namespace mpimon::python
