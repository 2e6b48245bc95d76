// The wrappers of the io module. Each counted entry point finds the file's state by its
// Fortran index (one load and a bounds check), times the real call, and records it when
// it succeeded (an error of the real module records nothing and is returned unchanged).
// Calls that may communicate (open, close, set_view, sync, set_size, preallocate,
// seek_shared and the collective accesses) run inside the registry's window, in which
// the PML adapter tells the shuffle apart (file_registry.h). Entry points that only read
// state (get_size, get_view, get_position, ...) and set_atomicity are the real module's,
// untouched.
#include "io_monitoring.h"
#include "io_monitoring_events.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <type_traits>

#include "analyses/communicator_classes.h"  // members_hash
#include "formats/job_format.h"             // format_rank_ranges
#include "runtime/runtime.h"
#include "runtime/world_rank_ompi.h"

namespace mpimon::io {
namespace {

using mpi_io::Access;
using mpi_io::Call;
using mpi_io::MetaOp;

// The open files' states by Fortran index (MPI_File_c2f; small: the lowest free index is
// reused). Lookups take no lock; the array is replaced when it grows and old arrays are
// kept until the end (a thread that loaded one keeps a valid pointer).
class FileTable {
 public:
  MonitoredFile* get(int index) const noexcept {
    const Slots* slots = current_.load(std::memory_order_acquire);
    return static_cast<unsigned>(index) < slots->size ? slots->file[index].load(std::memory_order_relaxed) : nullptr;
  }
  void set(int index, MonitoredFile* file) {
    std::lock_guard lock(mutex_);
    Slots* slots = current_.load(std::memory_order_relaxed);
    if (static_cast<unsigned>(index) >= slots->size) {
      auto bigger = std::make_unique<Slots>(std::max<size_t>(static_cast<size_t>(index) + 1, 2 * slots->size));
      for (size_t i = 0; i < slots->size; ++i) bigger->file[i].store(slots->file[i].load(std::memory_order_relaxed));
      slots = bigger.get();
      all_.push_back(std::move(bigger));
      current_.store(slots, std::memory_order_release);
    }
    slots->file[index].store(file, std::memory_order_relaxed);
  }

 private:
  struct Slots {
    explicit Slots(size_t n) : size(n), file(new std::atomic<MonitoredFile*>[n]()) {}
    size_t size;
    std::unique_ptr<std::atomic<MonitoredFile*>[]> file;
  };
  std::vector<std::unique_ptr<Slots>> all_ = [] {
    std::vector<std::unique_ptr<Slots>> v;
    v.push_back(std::make_unique<Slots>(16));
    return v;
  }();
  std::atomic<Slots*> current_{all_.front().get()};
  std::mutex mutex_;
};

struct State {
  FileTable files;
  // The runtime's registry and its clock (no call into the runtime library per access).
  mpi_io::FileRegistry* registry = &Runtime::instance().files;
  const SyncClock* clock = &Runtime::instance().files.clock();
  std::mutex modules_mutex;
  std::map<const Module*, std::unique_ptr<Module>> modules;  // winner -> our table
};
State state;

mpi_io::FileRegistry& registry() { return *state.registry; }
uint64_t now() noexcept { return state.clock->now(); }

// count x type size, from an entry point's arguments (the int count and the datatype).
struct Size {
  uint64_t count = 0;
  const ompi_datatype_t* type = nullptr;
  void take(int n) { count = n < 0 ? 0 : static_cast<uint64_t>(n); }
  void take(size_t n) { count = n; }  // 6.0's io API 3.0.0
  void take(ompi_datatype_t* t) { type = t; }
  template <typename T>
  void take(const T&) {}
  uint64_t bytes() const { return type != nullptr ? count * type->super.size : 0; }
};
template <typename... Args>
uint64_t bytes_of(const Args&... args) {
  Size size;
  (size.take(args), ...);
  return size.bytes();
}
// The explicit offset of an _at call (its first argument after the file).
template <typename First, typename... Rest>
int64_t explicit_offset(const First& first, const Rest&...) {
  if constexpr (std::is_same_v<First, OMPI_MPI_OFFSET_TYPE>) return first;
  return -1;
}

// Calls that may communicate: in the window (the PML adapter's shuffle rule).
struct Window {
  Window() { registry().enter_communicating_call(); }
  ~Window() { registry().leave_communicating_call(); }
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;
};

// The fcoll of the file's view (ompio) after a collective call or a set_view.
void note_components(MonitoredFile& f, const ompi_file_t* fh) {
  if (!f.ompio || f.record == nullptr) return;
  const char* fcoll = ompio::fcoll_name(fh);
  if (fcoll != f.fcoll) {
    f.fcoll = fcoll;
    f.record->set_components("ompio", fcoll);
  }
}

template <auto Member, typename Fn = std::remove_cvref_t<decltype(std::declval<Module>().*Member)>>
struct Wrap;

template <auto Member, typename... Args>
struct Wrap<Member, int (*)(ompi_file_t*, Args...)> {
  // A data access of family A, called as How.
  template <Access A, Call How>
  static int access(ompi_file_t* fh, Args... args) {
    MonitoredFile& f = *state.files.get(fh->f_f_to_c_index);
    const int64_t offset = events_listened() ? access_offset<A>(f, fh, explicit_offset(args...)) : -1;
    const uint64_t start = now();
    int rc;
    bool aggregated = false;
    if constexpr (mpi_io::is_collective(A)) {
      Window window;
      const uint64_t operations = f.file_system_operations;
      rc = (f.real->*Member)(fh, args...);
      aggregated =
          f.file_system_operations != operations && f.fcoll != nullptr && std::string_view(f.fcoll) != "individual";
    } else {
      rc = (f.real->*Member)(fh, args...);
    }
    const uint64_t ticks = now() - start;
    const uint64_t bytes = bytes_of(args...);
    if (rc == OMPI_SUCCESS && f.record != nullptr && recording()) [[likely]] {
      f.record->add_access(A, How, bytes, ticks);
      if constexpr (mpi_io::is_collective(A)) {
        note_components(f, fh);
        f.record->add_collective(aggregated);
      }
    }
    if (events_listened()) [[unlikely]]
      access_event(fh, A, How, offset, bytes, ticks, rc);
    return rc;
  }

  // The _end of a split collective: its time, nothing else (the access counted at _begin).
  template <mpi_io::Timer T>
  static int split_end(ompi_file_t* fh, Args... args) {
    MonitoredFile& f = *state.files.get(fh->f_f_to_c_index);
    Window window;
    const uint64_t start = now();
    const int rc = (f.real->*Member)(fh, args...);
    if (rc == OMPI_SUCCESS && f.record != nullptr && recording()) f.record->add_time(T, now() - start);
    return rc;
  }

  // A counted metadata call; `communicates`: in the window.
  template <MetaOp Op, bool communicates>
  static int meta(ompi_file_t* fh, Args... args) {
    MonitoredFile& f = *state.files.get(fh->f_f_to_c_index);
    const uint64_t start = now();
    int rc;
    if constexpr (communicates) {
      Window window;
      rc = (f.real->*Member)(fh, args...);
    } else {
      rc = (f.real->*Member)(fh, args...);
    }
    if (rc == OMPI_SUCCESS && f.record != nullptr && recording()) {
      f.record->add_meta(Op, now() - start);
      if constexpr (Op == MetaOp::set_view) note_components(f, fh);
    }
    return rc;
  }
};

#define MPIMON_WRAP(member) Wrap<&Module::member>

// The file's identity: its name and the world ranks of its communicator.
mpi_io::FileIdentity identity_of(const ompi_file_t* fh) {
  mpi_io::FileIdentity id;
  id.name = fh->f_filename != nullptr ? fh->f_filename : "";
  const ompi_communicator_t* comm = fh->f_comm;
  const int size = ompi_comm_size(const_cast<ompi_communicator_t*>(comm));
  const LocalJob job = LocalJob::of_this_process();
  std::vector<int32_t> members(size);
  for (int r = 0; r < size; ++r) members[r] = world_rank_in_group(comm->c_local_group, r, job);
  id.members_hash = members_hash(members);
  id.members = size;
  id.first_member = ompi_comm_rank(const_cast<ompi_communicator_t*>(comm)) == 0;
  if (id.first_member) id.member_ranges = format_rank_ranges(members);
  return id;
}

// MPI_File_open, through the module's open (called by the io base right after our
// file_query won). Communicators that appear while it runs belong to the file.
int monitored_open(ompi_communicator_t* comm, const char* filename, int amode, opal_info_t* info, ompi_file_t* fh) {
  MonitoredFile& f = *state.files.get(fh->f_f_to_c_index);
  const std::vector<uint64_t> before = live_context_ids();
  const uint64_t start = now();
  int rc;
  {
    Window window;
    rc = f.real->io_module_file_open(comm, filename, amode, info, fh);
  }
  const uint64_t ticks = now() - start;
  if (rc != OMPI_SUCCESS || !recording()) return rc;
  mpi_io::FileRegistry& files = registry();
  f.record = files.open(identity_of(fh));
  f.record->set_components(f.real_component->io_version.mca_component_name, "");
  f.record->add_meta(MetaOp::open, ticks);
  files.bind_object(fh, f.record);
  const std::vector<uint64_t> after = live_context_ids();
  for (size_t word = 0; word < after.size(); ++word) {
    uint64_t created = after[word] & ~(word < before.size() ? before[word] : 0);
    while (created != 0) {
      const uint32_t cid = static_cast<uint32_t>(word * 64 + __builtin_ctzll(created));
      created &= created - 1;
      if (!files.add_communicator(cid, f.record))
        warn_once_per_job("a file's communicator has a context id beyond " +
                          std::to_string(mpi_io::FileRegistry::kCommunicatorLimit) +
                          ": its collective-I/O shuffle is counted as application traffic");
    }
  }
  if (f.ompio) {
    ompio::wrap_file_system(fh, f);
    note_components(f, fh);
  }
  return rc;
}

// MPI_File_close (and the file's destructor after a failed open): Open MPI ignores what
// this returns.
int monitored_close(ompi_file_t* fh) {
  MonitoredFile* f = state.files.get(fh->f_f_to_c_index);
  const uint64_t start = now();
  int rc;
  {
    Window window;
    rc = f->real->io_module_file_close(fh);
  }
  if (f->record != nullptr) {
    if (recording()) f->record->add_meta(MetaOp::close, now() - start);
    registry().unbind_object(fh);
    registry().close(f->record);
  }
  if (f->file_system != nullptr) ompio::release_file_system(*f);
  file_closed(fh);
  drop_monitored_file(fh);
  return rc;
}

std::unique_ptr<Module> build_module(const Module& real) {
  auto m = std::make_unique<Module>(real);
  m->io_module_file_open = monitored_open;
  m->io_module_file_close = monitored_close;
  m->io_module_file_set_size = MPIMON_WRAP(io_module_file_set_size)::meta<MetaOp::set_size, true>;
  m->io_module_file_preallocate = MPIMON_WRAP(io_module_file_preallocate)::meta<MetaOp::set_size, true>;
  m->io_module_file_set_view = MPIMON_WRAP(io_module_file_set_view)::meta<MetaOp::set_view, true>;
  m->io_module_file_sync = MPIMON_WRAP(io_module_file_sync)::meta<MetaOp::sync, true>;
  m->io_module_file_seek = MPIMON_WRAP(io_module_file_seek)::meta<MetaOp::seek, false>;
  m->io_module_file_seek_shared = MPIMON_WRAP(io_module_file_seek_shared)::meta<MetaOp::seek, true>;

  constexpr Call B = Call::blocking, N = Call::nonblocking, S = Call::split;
  m->io_module_file_read_at = MPIMON_WRAP(io_module_file_read_at)::access<Access::read_at, B>;
  m->io_module_file_read_at_all = MPIMON_WRAP(io_module_file_read_at_all)::access<Access::read_at_all, B>;
  m->io_module_file_write_at = MPIMON_WRAP(io_module_file_write_at)::access<Access::write_at, B>;
  m->io_module_file_write_at_all = MPIMON_WRAP(io_module_file_write_at_all)::access<Access::write_at_all, B>;
  m->io_module_file_iread_at = MPIMON_WRAP(io_module_file_iread_at)::access<Access::read_at, N>;
  m->io_module_file_iwrite_at = MPIMON_WRAP(io_module_file_iwrite_at)::access<Access::write_at, N>;
  m->io_module_file_iread_at_all = MPIMON_WRAP(io_module_file_iread_at_all)::access<Access::read_at_all, N>;
  m->io_module_file_iwrite_at_all = MPIMON_WRAP(io_module_file_iwrite_at_all)::access<Access::write_at_all, N>;
  m->io_module_file_read = MPIMON_WRAP(io_module_file_read)::access<Access::read, B>;
  m->io_module_file_read_all = MPIMON_WRAP(io_module_file_read_all)::access<Access::read_all, B>;
  m->io_module_file_write = MPIMON_WRAP(io_module_file_write)::access<Access::write, B>;
  m->io_module_file_write_all = MPIMON_WRAP(io_module_file_write_all)::access<Access::write_all, B>;
  m->io_module_file_iread = MPIMON_WRAP(io_module_file_iread)::access<Access::read, N>;
  m->io_module_file_iwrite = MPIMON_WRAP(io_module_file_iwrite)::access<Access::write, N>;
  m->io_module_file_iread_all = MPIMON_WRAP(io_module_file_iread_all)::access<Access::read_all, N>;
  m->io_module_file_iwrite_all = MPIMON_WRAP(io_module_file_iwrite_all)::access<Access::write_all, N>;
  m->io_module_file_read_shared = MPIMON_WRAP(io_module_file_read_shared)::access<Access::read_shared, B>;
  m->io_module_file_write_shared = MPIMON_WRAP(io_module_file_write_shared)::access<Access::write_shared, B>;
  m->io_module_file_iread_shared = MPIMON_WRAP(io_module_file_iread_shared)::access<Access::read_shared, N>;
  m->io_module_file_iwrite_shared = MPIMON_WRAP(io_module_file_iwrite_shared)::access<Access::write_shared, N>;
  m->io_module_file_read_ordered = MPIMON_WRAP(io_module_file_read_ordered)::access<Access::read_ordered, B>;
  m->io_module_file_write_ordered = MPIMON_WRAP(io_module_file_write_ordered)::access<Access::write_ordered, B>;

  using mpi_io::Timer;
  m->io_module_file_read_at_all_begin = MPIMON_WRAP(io_module_file_read_at_all_begin)::access<Access::read_at_all, S>;
  m->io_module_file_read_at_all_end = MPIMON_WRAP(io_module_file_read_at_all_end)::split_end<Timer::read>;
  m->io_module_file_write_at_all_begin =
      MPIMON_WRAP(io_module_file_write_at_all_begin)::access<Access::write_at_all, S>;
  m->io_module_file_write_at_all_end = MPIMON_WRAP(io_module_file_write_at_all_end)::split_end<Timer::write>;
  m->io_module_file_read_all_begin = MPIMON_WRAP(io_module_file_read_all_begin)::access<Access::read_all, S>;
  m->io_module_file_read_all_end = MPIMON_WRAP(io_module_file_read_all_end)::split_end<Timer::read>;
  m->io_module_file_write_all_begin = MPIMON_WRAP(io_module_file_write_all_begin)::access<Access::write_all, S>;
  m->io_module_file_write_all_end = MPIMON_WRAP(io_module_file_write_all_end)::split_end<Timer::write>;
  m->io_module_file_read_ordered_begin =
      MPIMON_WRAP(io_module_file_read_ordered_begin)::access<Access::read_ordered, S>;
  m->io_module_file_read_ordered_end = MPIMON_WRAP(io_module_file_read_ordered_end)::split_end<Timer::read>;
  m->io_module_file_write_ordered_begin =
      MPIMON_WRAP(io_module_file_write_ordered_begin)::access<Access::write_ordered, S>;
  m->io_module_file_write_ordered_end = MPIMON_WRAP(io_module_file_write_ordered_end)::split_end<Timer::write>;
  return m;
}

}  // namespace

const Module* monitoring_module(const Module* real) {
  std::lock_guard lock(state.modules_mutex);
  std::unique_ptr<Module>& m = state.modules[real];
  if (!m) m = build_module(*real);
  return m.get();
}

MonitoredFile* new_monitored_file(ompi_file_t* fh, const Module* real, const Component* component) {
  auto* f = new MonitoredFile;
  f->real = real;
  f->real_component = component;
  f->ompio = std::string_view(component->io_version.mca_component_name) == "ompio";
  state.files.set(fh->f_f_to_c_index, f);
  return f;
}

MonitoredFile* monitored_file(const ompi_file_t* fh) { return state.files.get(fh->f_f_to_c_index); }

void drop_monitored_file(const ompi_file_t* fh) {
  MonitoredFile* f = state.files.get(fh->f_f_to_c_index);
  state.files.set(fh->f_f_to_c_index, nullptr);
  delete f;
}

std::atomic<bool> recording_now{true};

void set_recording(bool on) { recording_now.store(on, std::memory_order_relaxed); }

}  // namespace mpimon::io
