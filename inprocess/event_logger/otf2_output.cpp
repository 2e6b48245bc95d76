// The OTF2 archive of the event logger (otf2_output.h). Three parts: the records kept
// during the run (Trace::record), the collective operations OTF2 needs, made of PMPI
// calls on MPI_COMM_WORLD (never our wrappers, never counted: this runs inside
// PMPI_Finalize after mpimon's dump), and the archive itself.
#include "otf2_output.h"

#include <mpi.h>
#ifdef MPIMON_HAVE_OTF2
#include <otf2/otf2.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "communication_events.h"

namespace mpimon::mel {

namespace fs = std::filesystem;

OutputFormats parse_output_formats(const std::string& value, std::string& error) {
  OutputFormats formats;
  if (value.empty()) return formats;
  formats.text = false;
  std::string unknown;
  for (const std::string& word : parse_event_list(value)) {  // the same separators as MEL_EVENTS
    if (word == "text") {
      formats.text = true;
    } else if (word == "otf2") {
      formats.otf2 = true;
    } else {
      unknown += (unknown.empty() ? "" : ", ") + word;
    }
  }
  if (!unknown.empty()) {
    error = "MEL_FORMAT: unknown format " + unknown + " (text, otf2): writing the text log";
    return OutputFormats{};
  }
  if (!formats.text && !formats.otf2) formats.text = true;
  return formats;
}

// ---------------------------------------------------------------------------------------
// Records

namespace {

int64_t integer(const EventType& type, const std::vector<Value>& values, std::string_view name, int64_t otherwise) {
  const int i = element_index(type, name);
  int64_t v = otherwise;
  if (i < 0 || static_cast<size_t>(i) >= values.size() || !values[static_cast<size_t>(i)].as_integer(v))
    return otherwise;
  return v;
}

const std::vector<std::string>& value_names(const EventType& type, std::string_view name) {
  static const std::vector<std::string> none;
  const int i = element_index(type, name);
  return i < 0 ? none : type.elements[static_cast<size_t>(i)].value_names;
}

}  // namespace

void Trace::record(const EventType& type, const std::vector<Value>& values, double seconds) {
  TraceRecord r;
  r.seconds = seconds;
  const std::string& name = type.name;
  if (name == MPIMON_EVENT_PML_SEND_POSTED || name == MPIMON_EVENT_PML_RECV_COMPLETED) {
    r.kind = name == MPIMON_EVENT_PML_SEND_POSTED ? TraceRecord::send : TraceRecord::recv;
    r.object = static_cast<int32_t>(integer(type, values, "comm_id", 0));
    r.peer = static_cast<int32_t>(integer(type, values, "peer", -1));
    r.tag = static_cast<int32_t>(integer(type, values, "tag", 0));
    r.bytes = static_cast<uint64_t>(integer(type, values, "bytes", 0));
    if (r.peer < 0) return;  // a receive without a source (cancelled): no message
  } else if (name == MPIMON_EVENT_COLL_BEGIN || name == MPIMON_EVENT_COLL_END) {
    r.kind = name == MPIMON_EVENT_COLL_BEGIN ? TraceRecord::coll_begin : TraceRecord::coll_end;
    if (coll_kinds_.empty()) coll_kinds_ = value_names(type, "kind");
    r.op = static_cast<uint8_t>(integer(type, values, "kind", 0));
    r.object = static_cast<int32_t>(integer(type, values, "comm_id", 0));
    r.peer = static_cast<int32_t>(integer(type, values, "root", -1));
    r.bytes = static_cast<uint64_t>(integer(type, values, "bytes", 0));
    r.other_bytes = static_cast<uint64_t>(integer(type, values, "request", 0));
  } else if (name == MPIMON_EVENT_OSC_OP_ISSUED) {
    r.kind = TraceRecord::rma;
    r.object = static_cast<int32_t>(integer(type, values, "win_id", 0));
    r.peer = static_cast<int32_t>(integer(type, values, "target", -1));
    r.bytes = static_cast<uint64_t>(integer(type, values, "bytes_sent", 0));
    r.other_bytes = static_cast<uint64_t>(integer(type, values, "bytes_recv", 0));
  } else if (name == MPIMON_EVENT_OSC_SYNC_BEGIN || name == MPIMON_EVENT_OSC_SYNC_END) {
    r.kind = name == MPIMON_EVENT_OSC_SYNC_BEGIN ? TraceRecord::sync_begin : TraceRecord::sync_end;
    if (sync_kinds_.empty()) sync_kinds_ = value_names(type, "kind");
    r.op = static_cast<uint8_t>(integer(type, values, "kind", 0));
    r.object = static_cast<int32_t>(integer(type, values, "win_id", 0));
  } else if (name == MPIMON_EVENT_IO_ACCESS) {
    // Raised when the data-access call returns, with the time spent inside it: the begin
    // record goes back by that time. The bytes are those asked (count x type size).
    const std::vector<std::string>& kinds = value_names(type, "kind");
    const int64_t kind = integer(type, values, "kind", -1);
    if (kind < 0 || static_cast<size_t>(kind) >= kinds.size()) return;
    const std::string& access = kinds[static_cast<size_t>(kind)];
    const std::vector<std::string>& calls = value_names(type, "call");
    const int64_t call = integer(type, values, "call", 0);
    r.op = static_cast<uint8_t>(
        (access.rfind("write", 0) == 0 ? kIoWrite : 0) |
        (access.ends_with("_all") || access.ends_with("_ordered") ? kIoCollective : 0) |
        (call > 0 && static_cast<size_t>(call) < calls.size() && calls[static_cast<size_t>(call)] != "blocking"
             ? kIoNonblocking
             : 0));
    r.object = static_cast<int32_t>(integer(type, values, "file_id", 0));
    r.other_bytes = io_operations_++;
    const uint64_t asked = static_cast<uint64_t>(integer(type, values, "bytes", 0));
    double inside = 0;
    const int s = element_index(type, "seconds");
    if (s >= 0 && static_cast<size_t>(s) < values.size() && values[static_cast<size_t>(s)].kind == ValueKind::floating)
      inside = values[static_cast<size_t>(s)].floating_value;
    r.kind = TraceRecord::io_begin;
    r.seconds = seconds - std::max(inside, 0.0);
    r.bytes = asked;
    records_.push_back(r);
    r.kind = TraceRecord::io_end;
    r.seconds = seconds;
    r.bytes = integer(type, values, "result", -1) == 0 ? asked : 0;  // a failed call moved nothing we know of
  } else {
    return;
  }
  records_.push_back(r);
}

#ifdef MPIMON_HAVE_OTF2

bool otf2_built() { return true; }

namespace {

// ---------------------------------------------------------------------------------------
// OTF2's collective operations over MPI_COMM_WORLD, with PMPI.

MPI_Datatype mpi_type(OTF2_Type type) {
  switch (type) {
    case OTF2_TYPE_UINT8:
      return MPI_UINT8_T;
    case OTF2_TYPE_INT8:
      return MPI_INT8_T;
    case OTF2_TYPE_UINT16:
      return MPI_UINT16_T;
    case OTF2_TYPE_INT16:
      return MPI_INT16_T;
    case OTF2_TYPE_UINT32:
      return MPI_UINT32_T;
    case OTF2_TYPE_INT32:
      return MPI_INT32_T;
    case OTF2_TYPE_FLOAT:
      return MPI_FLOAT;
    case OTF2_TYPE_UINT64:
      return MPI_UINT64_T;
    case OTF2_TYPE_INT64:
      return MPI_INT64_T;
    case OTF2_TYPE_DOUBLE:
      return MPI_DOUBLE;
    default:
      return MPI_BYTE;
  }
}

OTF2_CallbackCode status(int rc) { return rc == MPI_SUCCESS ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_ERROR; }

OTF2_CallbackCode get_size(void*, OTF2_CollectiveContext*, uint32_t* size) {
  int n = 0;
  const int rc = PMPI_Comm_size(MPI_COMM_WORLD, &n);
  *size = static_cast<uint32_t>(n);
  return status(rc);
}
OTF2_CallbackCode get_rank(void*, OTF2_CollectiveContext*, uint32_t* rank) {
  int r = 0;
  const int rc = PMPI_Comm_rank(MPI_COMM_WORLD, &r);
  *rank = static_cast<uint32_t>(r);
  return status(rc);
}
OTF2_CallbackCode create_local(void*, OTF2_CollectiveContext** local, OTF2_CollectiveContext*, uint32_t, uint32_t,
                               uint32_t, uint32_t, uint32_t, uint32_t) {
  *local = nullptr;  // the POSIX substrate: one file per location, no local communicators
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode free_local(void*, OTF2_CollectiveContext*) { return OTF2_CALLBACK_SUCCESS; }
OTF2_CallbackCode barrier(void*, OTF2_CollectiveContext*) { return status(PMPI_Barrier(MPI_COMM_WORLD)); }
OTF2_CallbackCode bcast(void*, OTF2_CollectiveContext*, void* data, uint32_t n, OTF2_Type type, uint32_t root) {
  return status(PMPI_Bcast(data, static_cast<int>(n), mpi_type(type), static_cast<int>(root), MPI_COMM_WORLD));
}
OTF2_CallbackCode gather(void*, OTF2_CollectiveContext*, const void* in, void* out, uint32_t n, OTF2_Type type,
                         uint32_t root) {
  return status(PMPI_Gather(in, static_cast<int>(n), mpi_type(type), out, static_cast<int>(n), mpi_type(type),
                            static_cast<int>(root), MPI_COMM_WORLD));
}
std::vector<int> counts_and_displacements(const uint32_t* counts, std::vector<int>& displacements) {
  int size = 0;
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> c(static_cast<size_t>(size));
  displacements.assign(static_cast<size_t>(size), 0);
  int at = 0;
  for (int i = 0; i < size; ++i) {
    c[static_cast<size_t>(i)] = static_cast<int>(counts[i]);
    displacements[static_cast<size_t>(i)] = at;
    at += c[static_cast<size_t>(i)];
  }
  return c;
}
OTF2_CallbackCode gatherv(void*, OTF2_CollectiveContext*, const void* in, uint32_t n, void* out,
                          const uint32_t* out_counts, OTF2_Type type, uint32_t root) {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<int> counts, displacements;
  if (rank == static_cast<int>(root)) counts = counts_and_displacements(out_counts, displacements);
  return status(PMPI_Gatherv(in, static_cast<int>(n), mpi_type(type), out, counts.data(), displacements.data(),
                             mpi_type(type), static_cast<int>(root), MPI_COMM_WORLD));
}
OTF2_CallbackCode scatter(void*, OTF2_CollectiveContext*, const void* in, void* out, uint32_t n, OTF2_Type type,
                          uint32_t root) {
  return status(PMPI_Scatter(in, static_cast<int>(n), mpi_type(type), out, static_cast<int>(n), mpi_type(type),
                             static_cast<int>(root), MPI_COMM_WORLD));
}
OTF2_CallbackCode scatterv(void*, OTF2_CollectiveContext*, const void* in, const uint32_t* in_counts, void* out,
                           uint32_t n, OTF2_Type type, uint32_t root) {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<int> counts, displacements;
  if (rank == static_cast<int>(root)) counts = counts_and_displacements(in_counts, displacements);
  return status(PMPI_Scatterv(in, counts.data(), displacements.data(), mpi_type(type), out, static_cast<int>(n),
                              mpi_type(type), static_cast<int>(root), MPI_COMM_WORLD));
}

const OTF2_CollectiveCallbacks kCollectives = {nullptr, get_size, get_rank, create_local, free_local, barrier,
                                               bcast,   gather,   gatherv,  scatter,      scatterv};

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
OTF2_TimeStamp post_flush(void*, OTF2_FileType, OTF2_LocationRef) { return 0; }
const OTF2_FlushCallbacks kFlush = {pre_flush, post_flush};

// ---------------------------------------------------------------------------------------
// What every rank tells rank 0 for the global definitions.

struct RankFacts {
  uint64_t events = 0;
  int64_t first_ns = INT64_MAX, last_ns = INT64_MIN;
  std::set<int32_t> comms, windows, files;  // files: MPI_File_c2f ids, the rank's own
};

// Every rank's facts at rank 0 (a gather of counts, then of the ids): O(ranks + ids).
std::vector<RankFacts> gather_facts(const RankFacts& mine, int rank, int size) {
  std::vector<int64_t> flat{static_cast<int64_t>(mine.events), mine.first_ns, mine.last_ns,
                            static_cast<int64_t>(mine.comms.size()), static_cast<int64_t>(mine.windows.size())};
  flat.insert(flat.end(), mine.comms.begin(), mine.comms.end());
  flat.insert(flat.end(), mine.windows.begin(), mine.windows.end());
  flat.insert(flat.end(), mine.files.begin(), mine.files.end());
  int count = static_cast<int>(flat.size());
  std::vector<int> counts(static_cast<size_t>(rank == 0 ? size : 0)), displacements(counts.size());
  PMPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int64_t> all;
  if (rank == 0) {
    int at = 0;
    for (size_t i = 0; i < counts.size(); ++i) displacements[i] = at, at += counts[i];
    all.resize(static_cast<size_t>(at));
  }
  PMPI_Gatherv(flat.data(), count, MPI_INT64_T, all.data(), counts.data(), displacements.data(), MPI_INT64_T, 0,
               MPI_COMM_WORLD);
  std::vector<RankFacts> facts;
  for (size_t i = 0; i < counts.size(); ++i) {
    const int64_t* p = all.data() + displacements[i];
    RankFacts f;
    f.events = static_cast<uint64_t>(p[0]);
    f.first_ns = p[1];
    f.last_ns = p[2];
    const auto comms = static_cast<size_t>(p[3]), windows = static_cast<size_t>(p[4]);
    for (size_t k = 0; k < comms; ++k) f.comms.insert(static_cast<int32_t>(p[5 + k]));
    for (size_t k = 0; k < windows; ++k) f.windows.insert(static_cast<int32_t>(p[5 + comms + k]));
    for (size_t k = 5 + comms + windows; k < static_cast<size_t>(counts[i]); ++k)
      f.files.insert(static_cast<int32_t>(p[k]));
    facts.push_back(std::move(f));
  }
  return facts;
}

// The OTF2 collective operation of a collective kind ("iallreduce" -> ALLREDUCE).
OTF2_CollectiveOp collective_op(std::string kind) {
  if (kind.rfind("i", 0) == 0) kind.erase(0, 1);
  if (kind.rfind("neighbor_", 0) == 0) kind.erase(0, 9);  // OTF2 has no neighbourhood operations
  static const std::map<std::string, OTF2_CollectiveOp> ops{
      {"barrier", OTF2_COLLECTIVE_OP_BARRIER},
      {"bcast", OTF2_COLLECTIVE_OP_BCAST},
      {"gather", OTF2_COLLECTIVE_OP_GATHER},
      {"gatherv", OTF2_COLLECTIVE_OP_GATHERV},
      {"scatter", OTF2_COLLECTIVE_OP_SCATTER},
      {"scatterv", OTF2_COLLECTIVE_OP_SCATTERV},
      {"allgather", OTF2_COLLECTIVE_OP_ALLGATHER},
      {"allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV},
      {"alltoall", OTF2_COLLECTIVE_OP_ALLTOALL},
      {"alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV},
      {"alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW},
      {"allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE},
      {"reduce", OTF2_COLLECTIVE_OP_REDUCE},
      {"reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER},
      {"scan", OTF2_COLLECTIVE_OP_SCAN},
      {"exscan", OTF2_COLLECTIVE_OP_EXSCAN},
      {"reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK}};
  const auto it = ops.find(kind);
  return it == ops.end() ? OTF2_CollectiveOp{OTF2_COLLECTIVE_OP_BARRIER} : it->second;
}

bool nonblocking(const std::string& kind) { return kind.rfind("i", 0) == 0; }

// "allreduce" -> "MPI_Allreduce", "fence" -> "MPI_Win_fence".
std::string region_name(const std::string& kind, bool window) {
  std::string name = kind;
  if (!name.empty()) name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
  return (window ? "MPI_Win_" + kind : "MPI_" + name);
}

// The archive's ids: strings, regions (collective kinds, then synchronisation kinds),
// communicators and windows by their sorted ids.
struct Ids {
  std::vector<std::string> coll_kinds, sync_kinds;
  std::map<int32_t, uint32_t> comm, win;
  uint32_t world_comm = 0;           // the communicator of the windows (ids of windows' groups are not logged)
  std::map<int32_t, uint32_t> file;  // this rank's file ids -> its I/O handles (numbered rank after rank)
  OTF2_RegionRef coll_region(uint8_t op) const { return op; }
  OTF2_RegionRef sync_region(uint8_t op) const { return static_cast<OTF2_RegionRef>(coll_kinds.size() + op); }
};

std::string check(OTF2_ErrorCode code, const char* what) {
  return code == OTF2_SUCCESS ? "" : std::string(what) + ": " + OTF2_Error_GetDescription(code);
}

void write_definitions(OTF2_Archive* archive, const Ids& ids, const std::vector<RankFacts>& facts) {
  OTF2_GlobalDefWriter* defs = OTF2_Archive_GetGlobalDefWriter(archive);
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (const RankFacts& f : facts) first = std::min(first, f.first_ns), last = std::max(last, f.last_ns);
  if (first > last) first = last = 0;
  OTF2_GlobalDefWriter_WriteClockProperties(defs, 1000000000, static_cast<uint64_t>(first),
                                            static_cast<uint64_t>(last - first + 1), static_cast<uint64_t>(first));
  uint32_t next_string = 0;
  auto string = [&](const std::string& text) {
    OTF2_GlobalDefWriter_WriteString(defs, next_string, text.c_str());
    return next_string++;
  };
  const uint32_t empty = string("");
  const uint32_t mpi = string("MPI");
  OTF2_GlobalDefWriter_WriteParadigm(defs, OTF2_PARADIGM_MPI, mpi, OTF2_PARADIGM_CLASS_PROCESS);
  const uint32_t machine = string("machine"), node = string("job");
  OTF2_GlobalDefWriter_WriteSystemTreeNode(defs, 0, node, machine, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  const auto size = static_cast<uint32_t>(facts.size());
  std::vector<uint64_t> members(size);
  for (uint32_t r = 0; r < size; ++r) {
    const uint32_t name = string("MPI Rank " + std::to_string(r));
    OTF2_GlobalDefWriter_WriteLocationGroup(defs, r, name, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocation(defs, r, string("Master thread of rank " + std::to_string(r)),
                                       OTF2_LOCATION_TYPE_CPU_THREAD, facts[r].events, r);
    members[r] = r;
  }
  uint32_t region = 0;
  for (const std::string& kind : ids.coll_kinds) {
    const uint32_t name = string(region_name(kind, false));
    OTF2_GlobalDefWriter_WriteRegion(defs, region++, name, name, empty, OTF2_REGION_ROLE_COLL_ONE2ALL,
                                     OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, empty, 0, 0);
  }
  for (const std::string& kind : ids.sync_kinds) {
    const uint32_t name = string(region_name(kind, true));
    OTF2_GlobalDefWriter_WriteRegion(defs, region++, name, name, empty, OTF2_REGION_ROLE_BARRIER, OTF2_PARADIGM_MPI,
                                     OTF2_REGION_FLAG_NONE, empty, 0, 0);
  }
  // Group 0: the locations in rank order; group 1: every rank, the members of each
  // communicator (the logger knows a communicator's id, not its members: ranks in the
  // events are world ranks, so every communicator is defined over MPI_COMM_WORLD's ranks).
  OTF2_GlobalDefWriter_WriteGroup(defs, 0, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                  OTF2_GROUP_FLAG_NONE, size, members.data());
  OTF2_GlobalDefWriter_WriteGroup(defs, 1, empty, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                  size, members.data());
  for (const auto& [id, ref] : ids.comm)
    OTF2_GlobalDefWriter_WriteComm(defs, ref, string(id == 0 ? "MPI_COMM_WORLD" : "communicator " + std::to_string(id)),
                                   1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
  for (const auto& [id, ref] : ids.win)
    OTF2_GlobalDefWriter_WriteRmaWin(defs, ref, string("window " + std::to_string(id)), ids.world_comm,
                                     OTF2_RMA_WIN_FLAG_NONE);
  // MPI-IO: one file and one handle per (rank, file id), rank after rank. The events carry
  // the process's MPI_File_c2f index, not the file's name (the logger does not see
  // MPI_File_open), so the same file opened by several ranks is one handle per rank.
  uint32_t handle = 0;
  for (uint32_t r = 0; r < size; ++r)
    for (const int32_t id : facts[r].files) {
      if (handle == 0) {
        const uint32_t mpi_io = string("MPI-IO");
        OTF2_GlobalDefWriter_WriteIoParadigm(defs, 0, mpi_io, mpi_io, OTF2_IO_PARADIGM_CLASS_PARALLEL,
                                             OTF2_IO_PARADIGM_FLAG_NONE, 0, nullptr, nullptr, nullptr);
      }
      const uint32_t name = string("file " + std::to_string(id) + " of rank " + std::to_string(r));
      OTF2_GlobalDefWriter_WriteIoRegularFile(defs, handle, name, 0);
      OTF2_GlobalDefWriter_WriteIoHandle(defs, handle, name, handle, 0, OTF2_IO_HANDLE_FLAG_PRE_CREATED,
                                         OTF2_UNDEFINED_COMM, OTF2_UNDEFINED_IO_HANDLE);
      OTF2_GlobalDefWriter_WriteIoPreCreatedHandleState(defs, handle, OTF2_IO_ACCESS_MODE_READ_WRITE,
                                                        OTF2_IO_STATUS_FLAG_NONE);
      ++handle;
    }
}

void write_events(OTF2_EvtWriter* w, const Trace& trace, const Ids& ids, std::vector<TraceRecord> records) {
  std::stable_sort(records.begin(), records.end(),
                   [](const TraceRecord& a, const TraceRecord& b) { return a.seconds < b.seconds; });
  const int64_t origin = trace.origin_ns();
  for (const TraceRecord& r : records) {
    const auto t = static_cast<OTF2_TimeStamp>(origin + static_cast<int64_t>(r.seconds * 1e9));
    const uint32_t peer = r.peer < 0 ? uint32_t{OTF2_UNDEFINED_UINT32} : static_cast<uint32_t>(r.peer);
    switch (r.kind) {
      case TraceRecord::send:
        OTF2_EvtWriter_MpiSend(w, nullptr, t, peer, ids.comm.at(r.object), static_cast<uint32_t>(r.tag), r.bytes);
        break;
      case TraceRecord::recv:
        OTF2_EvtWriter_MpiRecv(w, nullptr, t, peer, ids.comm.at(r.object), static_cast<uint32_t>(r.tag), r.bytes);
        break;
      case TraceRecord::coll_begin: {
        const std::string& kind = r.op < ids.coll_kinds.size() ? ids.coll_kinds[r.op] : std::string("barrier");
        if (nonblocking(kind)) {
          OTF2_EvtWriter_NonBlockingCollectiveRequest(w, nullptr, t, r.other_bytes);
        } else {
          OTF2_EvtWriter_Enter(w, nullptr, t, ids.coll_region(r.op));
          OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, t);
        }
        break;
      }
      case TraceRecord::coll_end: {
        const std::string& kind = r.op < ids.coll_kinds.size() ? ids.coll_kinds[r.op] : std::string("barrier");
        if (nonblocking(kind)) {
          OTF2_EvtWriter_NonBlockingCollectiveComplete(w, nullptr, t, collective_op(kind), ids.comm.at(r.object), peer,
                                                       r.bytes, 0, r.other_bytes);
        } else {
          OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, t, collective_op(kind), ids.comm.at(r.object), peer, r.bytes, 0);
          OTF2_EvtWriter_Leave(w, nullptr, t, ids.coll_region(r.op));
        }
        break;
      }
      case TraceRecord::rma:
        if (r.bytes > 0 || r.other_bytes == 0)
          OTF2_EvtWriter_RmaPut(w, nullptr, t, ids.win.at(r.object), peer, r.bytes, 0);
        if (r.other_bytes > 0) OTF2_EvtWriter_RmaGet(w, nullptr, t, ids.win.at(r.object), peer, r.other_bytes, 0);
        break;
      case TraceRecord::sync_begin:
        OTF2_EvtWriter_Enter(w, nullptr, t, ids.sync_region(r.op));
        break;
      case TraceRecord::sync_end:
        OTF2_EvtWriter_Leave(w, nullptr, t, ids.sync_region(r.op));
        break;
      case TraceRecord::io_begin: {
        OTF2_IoOperationFlag flags = OTF2_IO_OPERATION_FLAG_NONE;
        if (r.op & kIoCollective) flags |= OTF2_IO_OPERATION_FLAG_COLLECTIVE;
        if (r.op & kIoNonblocking) flags |= OTF2_IO_OPERATION_FLAG_NON_BLOCKING;
        OTF2_EvtWriter_IoOperationBegin(w, nullptr, t, ids.file.at(r.object),
                                        r.op & kIoWrite ? OTF2_IO_OPERATION_MODE_WRITE : OTF2_IO_OPERATION_MODE_READ,
                                        flags, r.bytes, r.other_bytes);
        break;
      }
      case TraceRecord::io_end:
        OTF2_EvtWriter_IoOperationComplete(w, nullptr, t, ids.file.at(r.object), r.bytes, r.other_bytes);
        break;
    }
  }
}

// Events the archive holds for a record (an RMA operation may be a put and a get; a
// blocking collective is a region and the collective).
uint64_t otf2_events(const TraceRecord& r, const std::vector<std::string>& coll_kinds) {
  if (r.kind == TraceRecord::rma) return (r.bytes > 0 || r.other_bytes == 0 ? 1 : 0) + (r.other_bytes > 0 ? 1 : 0);
  if (r.kind == TraceRecord::coll_begin || r.kind == TraceRecord::coll_end)
    return r.op < coll_kinds.size() && nonblocking(coll_kinds[r.op]) ? 1 : 2;
  return 1;
}

// Rank 0 decides whether the archive can be written (nothing overwritten), for all; an
// earlier run's temporary, killed while writing, is removed.
bool archive_may_be_written(const std::string& final_path, const std::string& temporary, int world_rank) {
  int go = 1;
  if (world_rank == 0) {
    std::error_code ec;
    if (fs::exists(final_path, ec)) go = 0;
    fs::remove_all(temporary, ec);
  }
  PMPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return go != 0;
}

// This rank's time span, event count and the objects its records name.
RankFacts facts_of(const Trace& t, const Ids& ids) {
  RankFacts mine;
  for (const TraceRecord& r : t.records()) {
    const int64_t ns = t.origin_ns() + static_cast<int64_t>(r.seconds * 1e9);
    mine.first_ns = std::min(mine.first_ns, ns);
    mine.last_ns = std::max(mine.last_ns, ns);
    mine.events += otf2_events(r, ids.coll_kinds);
    if (r.kind == TraceRecord::rma || r.kind == TraceRecord::sync_begin || r.kind == TraceRecord::sync_end)
      mine.windows.insert(r.object);
    else if (r.kind == TraceRecord::io_begin || r.kind == TraceRecord::io_end)
      mine.files.insert(r.object);
    else
      mine.comms.insert(r.object);
  }
  return mine;
}

// The kinds' names from the rank that knows most (every rank has the same event types; a
// rank that saw no collective has none of its own).
void agree_on_kind_names(Ids& ids, int world_rank) {
  for (std::vector<std::string>* kinds : {&ids.coll_kinds, &ids.sync_kinds}) {
    std::string joined;
    for (const std::string& k : *kinds) joined += k + ",";
    int length = static_cast<int>(joined.size());
    PMPI_Allreduce(MPI_IN_PLACE, &length, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int longest_rank[2] = {static_cast<int>(joined.size()), world_rank};
    PMPI_Allreduce(MPI_IN_PLACE, longest_rank, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD);
    joined.resize(static_cast<size_t>(length));
    PMPI_Bcast(joined.data(), length, MPI_CHAR, longest_rank[1], MPI_COMM_WORLD);
    *kinds = split_value_names(std::string_view(joined).substr(0, joined.empty() ? 0 : joined.size() - 1));
  }
}

// Communicator and window ids known to every rank (the union, in order, from rank 0's
// gathered facts); this rank's I/O handles follow those of the ranks before it.
void number_objects(Ids& ids, const RankFacts& mine, const std::vector<RankFacts>& facts, int world_rank) {
  std::set<int32_t> comms{0}, windows;
  for (const RankFacts& f : facts)
    comms.insert(f.comms.begin(), f.comms.end()), windows.insert(f.windows.begin(), f.windows.end());
  std::vector<int32_t> flat(comms.begin(), comms.end());
  flat.push_back(-1);
  flat.insert(flat.end(), windows.begin(), windows.end());
  int count = static_cast<int>(flat.size());
  PMPI_Bcast(&count, 1, MPI_INT, 0, MPI_COMM_WORLD);
  flat.resize(static_cast<size_t>(count));
  PMPI_Bcast(flat.data(), count, MPI_INT32_T, 0, MPI_COMM_WORLD);
  bool in_windows = false;
  for (int32_t id : flat) {
    if (id == -1 && !in_windows) {
      in_windows = true;
      continue;
    }
    if (in_windows)
      ids.win.emplace(id, static_cast<uint32_t>(ids.win.size()));
    else
      ids.comm.emplace(id, static_cast<uint32_t>(ids.comm.size()));
  }
  ids.world_comm = ids.comm.at(0);
  uint64_t files = mine.files.size(), first_handle = 0;
  PMPI_Exscan(&files, &first_handle, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (world_rank == 0) first_handle = 0;  // Exscan leaves rank 0's undefined
  for (const int32_t id : mine.files) ids.file.emplace(id, static_cast<uint32_t>(first_handle + ids.file.size()));
}

// This rank's events and (empty) local definitions into the archive in `temporary`;
// rank 0 also writes the global definitions. "" or what failed.
std::string write_archive(const std::string& temporary, const Trace& t, const Ids& ids,
                          const std::vector<RankFacts>& facts, int world_rank) {
  OTF2_Archive* archive = OTF2_Archive_Open(temporary.c_str(), "traces", OTF2_FILEMODE_WRITE, 1024 * 1024,
                                            4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (archive == nullptr) return "cannot open the OTF2 archive " + temporary;
  std::string error = check(OTF2_Archive_SetFlushCallbacks(archive, &kFlush, nullptr), "flush callbacks");
  if (error.empty())
    error =
        check(OTF2_Archive_SetCollectiveCallbacks(archive, &kCollectives, nullptr, nullptr, nullptr), "collectives");
  if (error.empty()) error = check(OTF2_Archive_SetCreator(archive, "mpimon event logger"), "creator");
  if (error.empty()) error = check(OTF2_Archive_OpenEvtFiles(archive), "event files");
  if (error.empty()) {
    OTF2_EvtWriter* writer = OTF2_Archive_GetEvtWriter(archive, static_cast<OTF2_LocationRef>(world_rank));
    write_events(writer, t, ids, t.records());
    error = check(OTF2_Archive_CloseEvtWriter(archive, writer), "event writer");
    OTF2_ErrorCode closed = OTF2_Archive_CloseEvtFiles(archive);
    if (error.empty()) error = check(closed, "event files");
  }
  if (error.empty()) {
    // Each location's (empty) local definitions: readers expect one file per location.
    OTF2_Archive_OpenDefFiles(archive);
    OTF2_DefWriter* local = OTF2_Archive_GetDefWriter(archive, static_cast<OTF2_LocationRef>(world_rank));
    OTF2_Archive_CloseDefWriter(archive, local);
    OTF2_Archive_CloseDefFiles(archive);
    if (world_rank == 0) write_definitions(archive, ids, facts);
  }
  const OTF2_ErrorCode closed = OTF2_Archive_Close(archive);
  if (error.empty()) error = check(closed, "closing the archive");
  return error;
}

// The archive under its final name only if every rank wrote its part; else removed.
std::string publish_if_every_rank_wrote(const std::string& temporary, const std::string& final_path, std::string error,
                                        int world_rank) {
  int ok = error.empty() ? 1 : 0;
  PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (world_rank == 0) {
    std::error_code ec;
    if (ok) fs::rename(temporary, final_path, ec);
    if (!ok || ec) {
      fs::remove_all(temporary, ec);
      if (error.empty()) error = ok ? "cannot name the archive " + final_path : "another rank failed";
    }
  }
  return error;
}

}  // namespace

std::string write_otf2_archive(const Trace* trace, const std::string& archive_prefix, int world_rank) {
  int size = 0;
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string final_path = archive_prefix + ".otf2";
  const std::string temporary = final_path + ".tmp";
  if (!archive_may_be_written(final_path, temporary, world_rank))
    return world_rank == 0 ? final_path + " exists: the OTF2 archive of this run is not written" : "";

  static const Trace empty_trace(0);
  const Trace& t = trace ? *trace : empty_trace;
  Ids ids;
  ids.coll_kinds = t.collective_kinds();
  ids.sync_kinds = t.sync_kinds();
  const RankFacts mine = facts_of(t, ids);
  agree_on_kind_names(ids, world_rank);
  const std::vector<RankFacts> facts = gather_facts(mine, world_rank, size);
  number_objects(ids, mine, facts, world_rank);
  std::string error = write_archive(fs::path(temporary).string(), t, ids, facts, world_rank);
  error = publish_if_every_rank_wrote(temporary, final_path, std::move(error), world_rank);
  return error.empty() ? "" : "OTF2 archive not written: " + error;
}

#else

bool otf2_built() { return false; }
std::string write_otf2_archive(const Trace*, const std::string&, int) { return ""; }

#endif

}  // namespace mpimon::mel
