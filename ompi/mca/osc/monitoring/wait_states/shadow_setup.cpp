// Creating and freeing the objects behind one window's wait states, the clock offsets,
// and the shadow window's one-sided primitives (see shadow_setup.h).
#include "wait_states/shadow_setup.h"

#include "runtime/ompi_glue.h"

#include <cstring>
#include <string>

#include "runtime/runtime.h"
#include "wait_states/window_tracker.h"

namespace mpimon::osc::wait_states {

using namespace mpimon::wait_states;

namespace {

bool creating = false;              // our shadow window is being created (single-threaded processes only)
std::string last_shadow_component;  // the OSC component that created it

// Tags on our private communicator (nothing else uses it).
constexpr int kTagDomain = 1, kTagPing = 2, kTagPong = 3, kTagPost = 4;
constexpr int kClockSamples = 10;

// The segmented copy-scan of clock offsets (analyses/wait_states/clock_offsets.h), as an MPI operation.
void scan_function(void* in, void* inout, int* length, MPI_Datatype*) {
  const auto* earlier = static_cast<const ScanElement*>(in);
  auto* later = static_cast<ScanElement*>(inout);
  for (int i = 0; i < *length; ++i) later[i] = scan_combine(earlier[i], later[i]);
}
MPI_Datatype scan_type = MPI_DATATYPE_NULL;
MPI_Op scan_op = MPI_OP_NULL;

// This process's offset against rank 0 of `comm`: one leader per run of consecutive ranks
// on one host measures it with ping-pongs, the others of the run take the leader's.
std::optional<ClockOffset> measure_clock(MPI_Comm comm, int rank, int size) {
  if (scan_op == MPI_OP_NULL) {  // created once, used until process exit
    PMPI_Type_contiguous(3, MPI_INT64_T, &scan_type);
    PMPI_Type_commit(&scan_type);
    PMPI_Op_create(scan_function, 0, &scan_op);
  }
  const Settings& settings = current_settings();
  const bool own_domain = !settings.testing_shift.ranks.empty() &&
                          settings.testing_shift.applies_to(settings.world_rank, settings.host_name);
  uint64_t domain = clock_domain_id(settings.host_name, own_domain), left = domain;
  int rc = PMPI_Sendrecv(&domain, 1, MPI_UINT64_T, rank + 1 < size ? rank + 1 : MPI_PROC_NULL, kTagDomain, &left, 1,
                         MPI_UINT64_T, rank > 0 ? rank - 1 : MPI_PROC_NULL, kTagDomain, comm, MPI_STATUS_IGNORE);
  const bool leader = rank == 0 || left != domain;
  int mine = leader && rank != 0 ? 1 : 0, remote_leaders = 0;
  if (rc == MPI_SUCCESS) rc = PMPI_Reduce(&mine, &remote_leaders, 1, MPI_INT, MPI_SUM, 0, comm);
  ClockOffset offset;
  if (rc == MPI_SUCCESS && rank == 0) {
    // Serve each leader in turn (the order in which they ask).
    for (int i = 0; i < remote_leaders && rc == MPI_SUCCESS; ++i) {
      int64_t ping = 0;
      MPI_Status status;
      rc = PMPI_Recv(&ping, 1, MPI_INT64_T, MPI_ANY_SOURCE, kTagPing, comm, &status);
      for (int k = 0; k < kClockSamples && rc == MPI_SUCCESS; ++k) {
        if (k > 0) rc = PMPI_Recv(&ping, 1, MPI_INT64_T, status.MPI_SOURCE, kTagPing, comm, MPI_STATUS_IGNORE);
        int64_t reference = host_now();
        if (rc == MPI_SUCCESS) rc = PMPI_Send(&reference, 1, MPI_INT64_T, status.MPI_SOURCE, kTagPong, comm);
      }
    }
  } else if (rc == MPI_SUCCESS && leader) {
    std::vector<ClockSample> samples;
    for (int k = 0; k < kClockSamples && rc == MPI_SUCCESS; ++k) {
      ClockSample sample;
      sample.sent = host_now();
      rc = PMPI_Send(&sample.sent, 1, MPI_INT64_T, 0, kTagPing, comm);
      if (rc == MPI_SUCCESS) rc = PMPI_Recv(&sample.reference, 1, MPI_INT64_T, 0, kTagPong, comm, MPI_STATUS_IGNORE);
      sample.received = host_now();
      samples.push_back(sample);
    }
    if (const auto estimate = estimate_offset(samples)) offset = *estimate;
  }
  ScanElement in{leader ? 1 : 0, offset.offset, offset.uncertainty}, out;
  if (rc == MPI_SUCCESS) rc = PMPI_Scan(&in, &out, 1, scan_type, scan_op, comm);
  if (rc != MPI_SUCCESS) return std::nullopt;
  return ClockOffset{out.offset, out.uncertainty};
}

std::vector<void*> communicator_table() {
  std::vector<void*> table(static_cast<size_t>(ompi_mpi_communicators.size));
  for (size_t i = 0; i < table.size(); ++i)
    table[i] = opal_pointer_array_get_item(&ompi_mpi_communicators, static_cast<int>(i));
  return table;
}

// Every communicator created since `before` (ours, and the ones the OSC component made
// for the shadow window) becomes private: the PML layer records none of its traffic.
void register_new_communicators(const std::vector<void*>& before, Shadow& shadow) {
  const std::vector<void*> after = communicator_table();
  for (size_t i = 0; i < after.size(); ++i) {
    if (after[i] == nullptr || (i < before.size() && before[i] == after[i])) continue;
    const uint32_t cid = mpimon::ompi_release::local_context_id(static_cast<const ompi_communicator_t*>(after[i]));
    Runtime::instance().add_private_communicator(cid);
    shadow.private_cids.push_back(cid);
  }
}

void release(Shadow& shadow) {
  if (shadow.win != MPI_WIN_NULL) PMPI_Win_free(&shadow.win);
  if (shadow.comm != MPI_COMM_NULL) PMPI_Comm_free(&shadow.comm);
  for (uint32_t cid : shadow.private_cids) Runtime::instance().remove_private_communicator(cid);
  shadow.private_cids.clear();
  shadow.base = nullptr;
}

}  // namespace

bool creating_shadow() { return creating; }
void shadow_created_by(const char* component_name) { last_shadow_component = component_name; }

std::optional<ClockOffset> set_up_shadow(ompi_communicator_t* comm, const ShadowLayout& layout, Shadow& shadow) {
  Runtime& runtime = Runtime::instance();
  // A mixed deployment (some ranks without our components, which never call what
  // follows): no collective call of ours, no wait states. Every rank of ours reaches the
  // same verdict at the end of MPI_Init; the one line saying so is already printed.
  if (!runtime.all_ranks_monitored()) return std::nullopt;
  runtime.set_recording(false);  // none of this is the application's traffic
  const std::vector<void*> before = communicator_table();
  // A copy of the window's communicator (MPI_Comm_create: the user's attributes are not
  // copied, unlike a dup).
  MPI_Group group;
  int rc = PMPI_Comm_group(comm, &group);
  if (rc == MPI_SUCCESS) {
    rc = PMPI_Comm_create(comm, group, &shadow.comm);
    PMPI_Group_free(&group);
  }
  if (rc == MPI_SUCCESS) {
    PMPI_Comm_set_errhandler(shadow.comm, MPI_ERRORS_RETURN);
    PMPI_Comm_rank(shadow.comm, &shadow.rank);
    PMPI_Comm_size(shadow.comm, &shadow.size);
    creating = true;
    rc = PMPI_Win_allocate(static_cast<MPI_Aint>(layout.bytes()), 1, MPI_INFO_NULL, shadow.comm, &shadow.base,
                           &shadow.win);
    creating = false;
  }
  if (rc == MPI_SUCCESS) {
    PMPI_Win_set_errhandler(shadow.win, MPI_ERRORS_RETURN);
    shadow.flush_needs_target = last_shadow_component == "pt2pt";
    std::memset(shadow.base, 0, layout.bytes());  // every record empty
  }
  // Every process's memory is ready before anyone writes into it, and all agree.
  int ok = rc == MPI_SUCCESS ? 1 : 0, all_ok = 0;
  if (shadow.comm != MPI_COMM_NULL && PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, shadow.comm) != MPI_SUCCESS)
    all_ok = 0;
  register_new_communicators(before, shadow);
  std::optional<ClockOffset> clock;
  if (all_ok) clock = measure_clock(shadow.comm, shadow.rank, shadow.size);
  if (clock) {  // the origin of the fence records' times
    shadow.created = shadow.rank == 0 ? host_now() : 0;
    if (PMPI_Bcast(&shadow.created, 1, MPI_INT64_T, 0, shadow.comm) != MPI_SUCCESS) clock.reset();
  }
  if (!clock) {
    release(shadow);
    warn("rank " + std::to_string(current_settings().world_rank) +
         ": wait states off for a window: cannot create its shadow window (MPI error " + std::to_string(rc) + ")");
  }
  runtime.set_recording(true);
  return clock;
}

std::optional<Nanos> tear_down_shadow(Shadow& shadow, Nanos offset_at_creation) {
  if (shadow.win == MPI_WIN_NULL || !Runtime::instance().all_ranks_monitored()) return std::nullopt;
  Runtime& runtime = Runtime::instance();
  runtime.set_recording(false);
  const auto clock = measure_clock(shadow.comm, shadow.rank, shadow.size);
  // Our puts complete at their targets before the shadow goes (every process is in
  // MPI_Win_free: the targets make progress).
  for (int target : shadow.open_epochs) PMPI_Win_unlock(target, shadow.win);
  shadow.open_epochs.clear();
  shadow.unflushed.clear();
  release(shadow);
  runtime.set_recording(true);
  if (!clock) return std::nullopt;
  return clock->offset - offset_at_creation;
}

// ---------------------------------------------------------------------------------------
// One-sided primitives

void Shadow::open_epoch(int target) {
  if (open_epochs.count(target)) return;
  if (PMPI_Win_lock(MPI_LOCK_SHARED, target, MPI_MODE_NOCHECK, win) == MPI_SUCCESS) open_epochs.insert(target);
}

void Shadow::put_bytes(const void* data, size_t bytes, int target, size_t disp) {
  if (target == rank) {
    std::memcpy(base + disp, data, bytes);
    return;
  }
  open_epoch(target);
  if (PMPI_Put(data, static_cast<int>(bytes), MPI_BYTE, target, static_cast<MPI_Aint>(disp), static_cast<int>(bytes),
               MPI_BYTE, win) != MPI_SUCCESS)
    return;
  if (flush_needs_target) {
    PMPI_Win_flush_local(target, win);
    unflushed.insert(target);
  } else {
    PMPI_Win_flush(target, win);
  }
}

void Shadow::send_post_record(const PostRecord& record, int origin) {
  MPI_Request request;
  if (PMPI_Isend(&record, sizeof record, MPI_BYTE, origin, kTagPost, comm, &request) == MPI_SUCCESS)
    PMPI_Request_free(&request);  // completes on its own; nobody waits for it
}

PostRecord Shadow::receive_post_record(int target) {
  PostRecord record{};
  PMPI_Recv(&record, sizeof record, MPI_BYTE, target, kTagPost, comm, MPI_STATUS_IGNORE);
  return record;
}

void Shadow::accumulate_max(FenceRecord record, int target, size_t disp) {
  open_epoch(target);
  if (PMPI_Accumulate(&record, 1, MPI_UINT64_T, target, static_cast<MPI_Aint>(disp), 1, MPI_UINT64_T, MPI_MAX, win) ==
      MPI_SUCCESS)
    PMPI_Win_flush(target, win);
  unflushed.erase(target);
}

bool Shadow::get(void* out, size_t bytes, int target, size_t disp) {
  if (target == rank) {
    sync();
    std::memcpy(out, base + disp, bytes);
    return true;
  }
  open_epoch(target);
  if (PMPI_Get(out, static_cast<int>(bytes), MPI_BYTE, target, static_cast<MPI_Aint>(disp), static_cast<int>(bytes),
               MPI_BYTE, win) != MPI_SUCCESS)
    return false;
  return PMPI_Win_flush_local(target, win) == MPI_SUCCESS;
}

void Shadow::sync() { PMPI_Win_sync(win); }

FenceRecord Shadow::take_fence_record(size_t disp) {
  sync();
  FenceRecord r;
  std::memcpy(&r, base + disp, sizeof r);
  const FenceRecord empty = 0;
  std::memcpy(base + disp, &empty, sizeof empty);
  return r;
}

std::optional<FenceExtremes> Shadow::fence_extremes(Interval mine) {
  struct {
    long value;
    int rank;
  } in[2] = {{static_cast<long>(mine.enter), rank}, {static_cast<long>(-mine.exit), rank}}, out[2];
  if (PMPI_Allreduce(in, out, 2, MPI_LONG_INT, MPI_MAXLOC, comm) != MPI_SUCCESS) return std::nullopt;
  return FenceExtremes{out[0].value, out[0].rank, -out[1].value};
}

}  // namespace mpimon::osc::wait_states
