// The event logger's logs (event_log_reader.h): every event of every rank as columns, the
// drops, and the statistics each rank wrote at MPI_Finalize.
#include <pybind11/stl.h>

#include <map>

#include "bindings.h"
#include "event_log_reader.h"

namespace mpimon::python {

namespace {

py::object value_object(const mel::LoggedValue& v) {
  switch (v.kind) {
    case mel::LoggedValue::integer:
      return py::int_(v.integer_value);
    case mel::LoggedValue::number:
      return py::float_(v.number_value);
    default:
      return py::str(v.text_value);
  }
}

// Columns: rank, seconds, event, and one column per element name (None where an event
// has no such element); drops and statistics per rank.
py::dict read_events(const std::string& path) {
  std::vector<int32_t> rank;
  std::vector<double> seconds;
  py::list event;
  std::map<std::string, py::list> elements;  // element name -> values (None where absent)
  std::vector<int32_t> traffic_rank;
  std::vector<int64_t> traffic_peer;
  std::vector<uint8_t> traffic_sent;
  std::vector<uint64_t> traffic_messages, traffic_bytes;
  py::list drops, statistics, files;
  size_t rows = 0;
  for (const auto& [r, file] : mel::event_log_files(path)) {
    const mel::EventLog log = mel::read_event_log(file);
    files.append(file);
    for (const mel::LoggedEvent& e : log.events) {
      rank.push_back(r);
      seconds.push_back(e.seconds);
      event.append(e.name);
      for (const auto& [name, value] : e.elements) {
        py::list& column = elements[name];
        while (py::len(column) < rows) column.append(py::none());
        column.append(value_object(value));
      }
      ++rows;
    }
    for (const mel::LoggedDrop& d : log.drops) drops.append(py::make_tuple(r, d.name, d.count));
    for (const std::string& s : log.statistics) statistics.append(py::make_tuple(r, s));
    for (const mel::LoggedTraffic& t : log.traffic) {
      traffic_rank.push_back(r);
      traffic_peer.push_back(t.peer);
      traffic_sent.push_back(t.sent ? 1 : 0);
      traffic_messages.push_back(t.messages);
      traffic_bytes.push_back(t.bytes);
    }
  }
  py::dict columns;
  for (auto& [name, column] : elements) {
    while (py::len(column) < rows) column.append(py::none());
    columns[py::str(name)] = column;
  }
  py::dict traffic;
  traffic["rank"] = to_numpy(std::move(traffic_rank));
  traffic["peer"] = to_numpy(std::move(traffic_peer));
  traffic["sent"] = to_numpy(std::move(traffic_sent));
  traffic["messages"] = to_numpy(std::move(traffic_messages));
  traffic["bytes"] = to_numpy(std::move(traffic_bytes));
  py::dict d;
  d["rank"] = to_numpy(std::move(rank));
  d["seconds"] = to_numpy(std::move(seconds));
  d["event"] = event;
  d["elements"] = columns;
  d["drops"] = drops;
  d["statistics"] = statistics;
  d["traffic"] = traffic;
  d["files"] = files;
  return d;
}

}  // namespace

void bind_events(py::module_& m) { m.def("read_events", &read_events, py::arg("path")); }

}  // namespace mpimon::python
