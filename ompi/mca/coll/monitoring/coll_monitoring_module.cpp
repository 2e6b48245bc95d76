// The COLL module: stacked on top of the modules each communicator selected. Enabled last
// (priority 100), it saves the function/module pairs the others installed, forwards every
// call to them and records the call with the rules of coll_accounting.h. One generic
// wrapper serves every collective; the table below says which rule and class each uses.
#include "coll_monitoring.h"

#include <atomic>
#include <cstddef>
#include <map>
#include <mutex>
#include <new>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "coll_accounting.h"
#include "coll_monitoring_events.h"
#include "coll_monitoring_nbc.h"
#include "runtime/runtime.h"

namespace mpimon::coll {

// Our module. The C base must come first: Open MPI only sees mca_coll_base_module_t.
struct Module {
  mca_coll_base_module_t super;
  ompi_communicator_t* comm;
  CommunicatorClasses* classes;                  // this communicator's per-class totals
  CommunicatorCache* cache;                      // what its accounting keeps from call to call
  mca_coll_base_comm_coll_t saved;               // the pairs installed before us
  mca_coll_base_module_t* retained[kSlotCount];  // previous modules we hold a reference on
  int retained_count;
  bool closed;
  // Which of the application's nonblocking collectives here are followed for their
  // overlap (analyses/nbc_schedule.h): per kind, the calls left until the next one asks
  // decide_following() (1: the next call decides); the exact calls left on this
  // communicator. Kept here, in what every call on the communicator touches anyway: no
  // thread-local access, nothing added to the call. MPI forbids two threads to call
  // collectives on one communicator at once: no lock.
  uint64_t nbc_countdown[kNbcKindCount];
  uint32_t nbc_exact_left;
};

namespace {

std::atomic<bool> recording{true};
LocalJob job;

// Collectives that modules implement with other collectives (allgatherv as gatherv +
// bcast, intercommunicator collectives on the local communicator, ...) call back into
// c_coll: only the outermost call, the one the application made, is recorded.
// initial-exec: a direct %fs access instead of a __tls_get_addr call per collective (one
// int fits in the static TLS glibc reserves for dlopen'ed libraries).
thread_local int nesting __attribute__((tls_model("initial-exec"))) = 0;
Engine* engine = nullptr;

// Communicators with our module, for the class performance variables.
std::mutex modules_mutex;
std::map<const ompi_communicator_t*, Module*> modules_by_comm;

void construct_module(Module* m) {
  m->comm = nullptr;
  m->classes = nullptr;
  m->cache = nullptr;
  m->retained_count = 0;
  m->closed = false;
  for (uint64_t& countdown : m->nbc_countdown) countdown = 1;  // each kind's first call decides
  m->nbc_exact_left = 0;                                       // set when enabled
}

// Runs when the last slot referencing us is released (communicator freed): the modules
// we stacked on are released once each reference we took.
void destruct_module(Module* m) {
  for (int i = 0; i < m->retained_count; ++i) OBJ_RELEASE(m->retained[i]);
  m->retained_count = 0;
  delete m->cache;
  m->cache = nullptr;
}

}  // namespace
}  // namespace mpimon::coll

// The opal class of our module (C linkage names, hidden).
using mpimon_coll_module_t = mpimon::coll::Module;
static OBJ_CLASS_INSTANCE(mpimon_coll_module_t, mca_coll_base_module_t, mpimon::coll::construct_module,
                          mpimon::coll::destruct_module);

namespace mpimon::coll {
namespace {

// ---------------------------------------------------------------------------------------
// The generic wrapper

template <typename Fn, typename Tuple, size_t... I>
int call_saved(Fn fn, mca_coll_base_module_t* module, Tuple& args, std::index_sequence<I...>) {
  return fn(std::get<I>(args)..., module);
}

// Position of the communicator among a slot's arguments, and the root argument: the int
// right before the communicator in every rooted collective (bcast, gather(v), reduce,
// scatter(v) and their i-forms); other slots have none (-1).
template <typename... Args>
constexpr size_t comm_position() {
  constexpr bool is_comm[] = {std::is_same_v<Args, ompi_communicator_t*>...};
  for (size_t i = 0; i < sizeof...(Args); ++i)
    if (is_comm[i]) return i;
  return sizeof...(Args);
}

template <typename... Args>
int32_t root_of(Args... args) {
  constexpr size_t c = comm_position<Args...>();
  if constexpr (c > 0 && c < sizeof...(Args)) {
    using Before = std::tuple_element_t<c - 1, std::tuple<Args...>>;
    if constexpr (std::is_same_v<Before, int>) return std::get<c - 1>(std::forward_as_tuple(args...));
  }
  return -1;
}

// The NbcKind of a nonblocking event kind (same names), -1 for the others.
#define MPIMON_KIND_NAME(name) std::string_view(#name),
constexpr std::string_view kCollKindNames[] = {MPIMON_COLL_KINDS(MPIMON_KIND_NAME)};
constexpr std::string_view kNbcKindNames[] = {MPIMON_NBC_KINDS(MPIMON_KIND_NAME)};
#undef MPIMON_KIND_NAME
constexpr int nbc_kind_index(int coll_kind) {
  for (int i = 0; i < kNbcKindCount; ++i)
    if (kNbcKindNames[i] == kCollKindNames[coll_kind]) return i;
  return -1;
}

template <auto FnMember, auto ModuleMember, typename Rule, CollectiveClass Class, int Kind, typename Fn>
struct Wrapper;

template <auto FnMember, auto ModuleMember, typename Rule, CollectiveClass Class, int Kind, typename... Args>
struct Wrapper<FnMember, ModuleMember, Rule, Class, Kind, int (*)(Args...)> {
  static constexpr size_t n = sizeof...(Args);
  // Nonblocking slots end with (..., comm, request, module).
  static constexpr bool nonblocking =
      std::is_same_v<std::tuple_element_t<n - 2, std::tuple<Args...>>, ompi_request_t**>;
  static_assert(nonblocking == (nbc_kind_index(Kind) >= 0), "nonblocking slots are the NbcKinds");
  static constexpr int kNbc = nbc_kind_index(Kind);  // its NbcKind, -1 for a blocking slot

  // flatten: the rule is instantiated twice (accounting and the begin event's totals), and
  // GCC would then call it out of line here, on the hot path.
  [[gnu::flatten]] static int call(Args... args) {
    auto arguments = std::forward_as_tuple(args...);
    auto* self = reinterpret_cast<Module*>(std::get<n - 1>(arguments));  // every slot ends with the module
    // A module's own collective inside the application's (allgatherv as gatherv + bcast,
    // intercommunicator collectives on the local communicator, ...): forwarded untouched.
    if (nesting != 0) [[unlikely]]
      return forward(self, arguments);
    if constexpr (nonblocking) {
      // The application's call (or Open MPI's own, told apart when its turn comes):
      // followed for its overlap when its turn came and the schedule says so, through the
      // events path when a tool listens, else recorded like a blocking collective.
      if (--self->nbc_countdown[kNbc] == 0) [[unlikely]]
        return call_deciding(__builtin_return_address(0), args...);
      if (events_listened()) [[unlikely]]
        return call_nonblocking(nullptr, args...);
    } else {
      if (events_listened()) [[unlikely]]
        return call_with_events(args...);
    }
    if (!Rule::silent(Sends(*engine, job, self->comm, *self->cache), args...)) return call_recorded(args...);
    // A call that sends nothing here (a bcast at a leaf, a reduce at its root): only the
    // return code is kept across the forwarded call (no register saved for the rest).
    nesting = 1;
    const int rc = forward(self, arguments);
    nesting = 0;
    return rc;
  }

  // The nonblocking call that brought its communicator's countdown of its kind to zero
  // (`caller`: the slot's return address). Open MPI's own call (a context-id agreement)
  // decides nothing: the next call of the kind decides. The application's is followed or
  // not (decide_following).
  [[gnu::noinline]] static int call_deciding(const void* caller, Args... args) {
    auto* self = reinterpret_cast<Module*>(std::get<n - 1>(std::forward_as_tuple(args...)));
    bool follow = false;
    if (!recording.load(std::memory_order_relaxed) || !called_by_application(caller)) {
      self->nbc_countdown[kNbc] = 1;
    } else {
      follow =
          decide_following(self->nbc_exact_left, self->nbc_countdown[kNbc], self->classes, static_cast<NbcKind>(kNbc));
    }
    return call_nonblocking(follow ? caller : nullptr, args...);
  }

  // The application's call that sends: forwarded, then recorded if it succeeded.
  [[gnu::noinline, gnu::flatten]] static int call_recorded(Args... args) {
    auto arguments = std::forward_as_tuple(args...);
    auto* self = reinterpret_cast<Module*>(std::get<n - 1>(arguments));
    nesting = 1;
    const int rc = forward(self, arguments);
    nesting = 0;
    if (rc != OMPI_SUCCESS || !recording.load(std::memory_order_relaxed)) [[unlikely]]
      return rc;  // an error (or our own dump's traffic): record nothing
    record(self, args...);
    return rc;
  }

  template <typename Tuple>
  [[gnu::always_inline]] static int forward(Module* self, Tuple& arguments) {
    return call_saved(self->saved.*FnMember, self->saved.*ModuleMember, arguments, std::make_index_sequence<n - 1>{});
  }

  [[gnu::always_inline]] static void record(Module* self, Args... args) {
    Sends sends(*engine, job, self->comm, *self->cache);
    Rule::apply(sends, args...);
    if (sends.messages() > 0) self->classes->add(Class, sends.total());
  }

  // The begin/end events' payload (bytes by the accounting rules, nothing recorded).
  static mpimon_coll_event event_of(Module* self, Args... args) {
    mpimon_coll_event event{};
    event.comm_id = static_cast<int32_t>(mpimon::ompi_release::local_context_id(self->comm));
    event.kind = Kind;
    event.root = root_of(args...);
    Sends totals(Sends::TotalsOnly{}, *engine, job, self->comm, *self->cache);
    Rule::apply(totals, args...);
    event.bytes = totals.total();
    return event;
  }

  // The application's blocking collective while a tool listens: begin event, the call,
  // the accounting, end event.
  [[gnu::noinline]] static int call_with_events(Args... args) {
    auto arguments = std::forward_as_tuple(args...);
    auto* self = reinterpret_cast<Module*>(std::get<n - 1>(arguments));
    const bool recording_on = recording.load(std::memory_order_relaxed);  // off: our own dump
    const MPI_T_cb_safety context = call_context();
    const mpimon_coll_event event = event_of(self, args...);
    if (recording_on && begin_listened()) raise_begin(self->comm, event, context);
    ++nesting;
    const int rc =
        call_saved(self->saved.*FnMember, self->saved.*ModuleMember, arguments, std::make_index_sequence<n - 1>{});
    --nesting;
    if (rc != OMPI_SUCCESS || !recording_on) return rc;
    record(self, args...);
    if (end_listened()) raise_end(self->comm, event, context);
    return rc;
  }

  // A nonblocking collective (outermost) whose turn came or a tool listens to: tracked
  // from the call to its request's completion when followed (`caller`: the slot's return
  // address, null when not followed; coll_monitoring_nbc.h), recorded, and its events
  // raised when a tool listens (the end event at completion).
  [[gnu::noinline]] static int call_nonblocking(const void* caller, Args... args) {
    auto arguments = std::forward_as_tuple(args...);
    auto* self = reinterpret_cast<Module*>(std::get<n - 1>(arguments));
    const bool recording_on = recording.load(std::memory_order_relaxed);  // off: our own dump
    const bool events = events_listened();
    MPI_T_cb_safety context = MPI_T_CB_REQUIRE_NONE;
    mpimon_coll_event event{};
    if (events) [[unlikely]] {
      context = call_context();
      event = event_of(self, args...);
      if (recording_on && begin_listened()) raise_begin(self->comm, event, context);
    }
    NbcStart start;
    if (recording_on && caller != nullptr) start = begin_nbc(self->comm, static_cast<NbcKind>(kNbc), self->classes);
    ++nesting;
    const int rc =
        call_saved(self->saved.*FnMember, self->saved.*ModuleMember, arguments, std::make_index_sequence<n - 1>{});
    --nesting;
    ompi_request_t* request = nullptr;
    const bool end_event = events && rc == OMPI_SUCCESS && recording_on && end_listened();
    if (rc == OMPI_SUCCESS && recording_on) {
      record(self, args...);
      request = *std::get<n - 2>(arguments);
      event.request = reinterpret_cast<uintptr_t>(request);
    }
    after_nbc(start, rc, self->comm, request, end_event ? &event : nullptr, context);
    return rc;
  }
};

// Each rule: apply() records a call; silent() tells a call that sends nothing here
// (Rules::<rule>_silent for the rooted ones, never for the others).
#define MPIMON_RULE_STRUCT(name, silent_body)                           \
  struct name##_rule {                                                  \
    template <typename... A>                                            \
    [[gnu::always_inline]] static void apply(Sends& s, A... a) {        \
      Rules::name(s, a...);                                             \
    }                                                                   \
    template <typename... A>                                            \
    [[gnu::always_inline]] static bool silent(const Sends& s, A... a) { \
      silent_body;                                                      \
    }                                                                   \
  }
#define MPIMON_RULE(name) MPIMON_RULE_STRUCT(name, ((void)s, ((void)a, ...)); return false)
#define MPIMON_ROOTED_RULE(name) MPIMON_RULE_STRUCT(name, return Rules::name##_silent(s, a...))
MPIMON_RULE(same_to_all);
MPIMON_RULE(allgatherv);
MPIMON_RULE(allreduce);
MPIMON_RULE(alltoallv);
MPIMON_RULE(alltoallw);
MPIMON_RULE(barrier);
MPIMON_ROOTED_RULE(bcast);
MPIMON_RULE(prefix);
MPIMON_ROOTED_RULE(gather);
MPIMON_ROOTED_RULE(gatherv);
MPIMON_ROOTED_RULE(reduce);
MPIMON_RULE(reduce_scatter);
MPIMON_RULE(reduce_scatter_block);
MPIMON_ROOTED_RULE(scatter);
MPIMON_ROOTED_RULE(scatterv);
MPIMON_RULE(neighbor_same);
MPIMON_RULE(neighbor_alltoallv);
MPIMON_RULE(neighbor_alltoallw);
#undef MPIMON_ROOTED_RULE
#undef MPIMON_RULE_STRUCT
#undef MPIMON_RULE

// The table: every counted slot of Open MPI 4.1.4's coll interface, its rule and class.
// (The persistent *_init slots and reduce_local are left to the modules below: not
// counted, never touched.)
#define MPIMON_COLL_SLOTS(X)                                 \
  X(allgather, same_to_all, all_to_all)                      \
  X(allgatherv, allgatherv, all_to_all)                      \
  X(allreduce, allreduce, all_to_all)                        \
  X(alltoall, same_to_all, all_to_all)                       \
  X(alltoallv, alltoallv, all_to_all)                        \
  X(alltoallw, alltoallw, all_to_all)                        \
  X(barrier, barrier, all_to_all)                            \
  X(bcast, bcast, one_to_all)                                \
  X(exscan, prefix, all_to_all)                              \
  X(gather, gather, all_to_one)                              \
  X(gatherv, gatherv, all_to_one)                            \
  X(reduce, reduce, all_to_one)                              \
  X(reduce_scatter, reduce_scatter, all_to_all)              \
  X(reduce_scatter_block, reduce_scatter_block, all_to_all)  \
  X(scan, prefix, all_to_all)                                \
  X(scatter, scatter, one_to_all)                            \
  X(scatterv, scatterv, one_to_all)                          \
  X(iallgather, same_to_all, all_to_all)                     \
  X(iallgatherv, allgatherv, all_to_all)                     \
  X(iallreduce, allreduce, all_to_all)                       \
  X(ialltoall, same_to_all, all_to_all)                      \
  X(ialltoallv, alltoallv, all_to_all)                       \
  X(ialltoallw, alltoallw, all_to_all)                       \
  X(ibarrier, barrier, all_to_all)                           \
  X(ibcast, bcast, one_to_all)                               \
  X(iexscan, prefix, all_to_all)                             \
  X(igather, gather, all_to_one)                             \
  X(igatherv, gatherv, all_to_one)                           \
  X(ireduce, reduce, all_to_one)                             \
  X(ireduce_scatter, reduce_scatter, all_to_all)             \
  X(ireduce_scatter_block, reduce_scatter_block, all_to_all) \
  X(iscan, prefix, all_to_all)                               \
  X(iscatter, scatter, one_to_all)                           \
  X(iscatterv, scatterv, one_to_all)                         \
  X(neighbor_allgather, neighbor_same, all_to_all)           \
  X(neighbor_allgatherv, neighbor_same, all_to_all)          \
  X(neighbor_alltoall, neighbor_same, all_to_all)            \
  X(neighbor_alltoallv, neighbor_alltoallv, all_to_all)      \
  X(neighbor_alltoallw, neighbor_alltoallw, all_to_all)      \
  X(ineighbor_allgather, neighbor_same, all_to_all)          \
  X(ineighbor_allgatherv, neighbor_same, all_to_all)         \
  X(ineighbor_alltoall, neighbor_same, all_to_all)           \
  X(ineighbor_alltoallv, neighbor_alltoallv, all_to_all)     \
  X(ineighbor_alltoallw, neighbor_alltoallw, all_to_all)

#define MPIMON_COUNT_SLOT(name, rule, klass) +1
static_assert(0 MPIMON_COLL_SLOTS(MPIMON_COUNT_SLOT) == kSlotCount, "kSlotCount matches the table");
static_assert(MPIMON_COLL_KIND_COUNT == kSlotCount, "every counted slot has an event kind (communication_events.h)");
#undef MPIMON_COUNT_SLOT

template <auto FnMember, auto ModuleMember, typename Rule, CollectiveClass Class, int Kind>
constexpr auto wrapper_for() {
  using Fn = std::remove_reference_t<decltype(std::declval<mca_coll_base_comm_coll_t>().*FnMember)>;
  return &Wrapper<FnMember, ModuleMember, Rule, Class, Kind, Fn>::call;
}

void install_wrappers(Module* m) {
#define MPIMON_INSTALL(name, rule, klass)                                                                    \
  m->super.coll_##name =                                                                                     \
      wrapper_for<&mca_coll_base_comm_coll_t::coll_##name, &mca_coll_base_comm_coll_t::coll_##name##_module, \
                  rule##_rule, CollectiveClass::klass, MPIMON_COLL_KIND_##name>();
  MPIMON_COLL_SLOTS(MPIMON_INSTALL)
#undef MPIMON_INSTALL
}

// In enable: stack on what the others installed. A slot nobody provides stays NULL in
// our module too (Open MPI then leaves it alone).
void save_previous(Module* m, ompi_communicator_t* comm) {
  m->saved = *comm->c_coll;
#define MPIMON_SAVE(name, rule, klass)                                         \
  if (m->saved.coll_##name == nullptr) {                                       \
    m->super.coll_##name = nullptr;                                            \
  } else if (m->saved.coll_##name##_module != nullptr) {                       \
    /* Open MPI releases the previous owner's reference when it installs us */ \
    OBJ_RETAIN(m->saved.coll_##name##_module);                                 \
    m->retained[m->retained_count++] = m->saved.coll_##name##_module;          \
  }
  MPIMON_COLL_SLOTS(MPIMON_SAVE)
#undef MPIMON_SAVE
}

std::vector<int32_t> members_of(ompi_communicator_t* comm) {
  std::vector<int32_t> ranks;
  const ompi_group_t* group = comm->c_local_group;
  ranks.reserve(group->grp_proc_count);
  for (int i = 0; i < group->grp_proc_count; ++i) ranks.push_back(world_rank_in_group(group, i, job));
  return ranks;
}

int module_enable(mca_coll_base_module_t* base, ompi_communicator_t* comm) {
  auto* m = reinterpret_cast<Module*>(base);
  m->comm = comm;
  m->cache = new CommunicatorCache;
  save_previous(m, comm);
  m->classes = Runtime::instance().communicators.open(comm->c_name, members_of(comm),
                                                      mpimon::ompi_release::local_context_id(comm));
  m->nbc_exact_left = nbc_schedule().exact_calls;
  {
    std::lock_guard lock(modules_mutex);
    modules_by_comm[comm] = m;
  }
  raise_communicator_created(comm);
  return OMPI_SUCCESS;
}

// Called once per slot we own when the communicator is freed: close our entry on the
// first call (the communicator and its name are still valid then).
int module_disable(mca_coll_base_module_t* base, ompi_communicator_t* comm) {
  auto* m = reinterpret_cast<Module*>(base);
  if (m->closed) return OMPI_SUCCESS;
  m->closed = true;
  {
    std::lock_guard lock(modules_mutex);
    auto it = modules_by_comm.find(comm);
    if (it != modules_by_comm.end() && it->second == m) modules_by_comm.erase(it);
  }
  if (m->classes != nullptr) {
    forget_nbc_destination(m->classes);  // collectives still pending here record nowhere
    Runtime::instance().communicators.close(m->classes, comm->c_name, Runtime::instance().world_rank());
  }
  m->classes = nullptr;
  raise_communicator_freed(comm);
  // Event registrations bound to this communicator end here (a later communicator at the
  // same address does not inherit them).
  mpimon_events_object_freed(MPI_T_BIND_MPI_COMM, comm);
  return OMPI_SUCCESS;
}

}  // namespace

mca_coll_base_module_t* new_module() {
  Module* m = OBJ_NEW(mpimon_coll_module_t);
  if (m == nullptr) return nullptr;
  m->super.coll_module_enable = module_enable;
  m->super.coll_module_disable = module_disable;
  install_wrappers(m);
  return &m->super;
}

void set_recording(bool on) { recording.store(on, std::memory_order_relaxed); }

bool recording_now() { return recording.load(std::memory_order_relaxed); }

void start() {
  job = LocalJob::of_this_process();
  engine = &Runtime::instance().engine;
  start_events(engine->threaded());
  start_nbc(engine->threaded());
}

const CommunicatorClasses* classes_of(const ompi_communicator_t* comm) {
  std::lock_guard lock(modules_mutex);
  auto it = modules_by_comm.find(comm);
  return it == modules_by_comm.end() ? nullptr : it->second->classes;
}

uint64_t Sends::every_other_slow(Engine& engine, const LocalJob& job, ompi_communicator_t* comm,
                                 CommunicatorCache& cache, bool record, uint64_t bytes) {
  using State = CommunicatorCache::EveryOther;
  const bool inter = OMPI_COMM_IS_INTER(comm);
  const int n = comm->c_remote_group->grp_proc_count, me = inter ? -1 : comm->c_my_rank;
  const auto sent = static_cast<uint64_t>(me < 0 ? n : n - 1);
  if (!record) return sent;
  if (cache.every_other_state == State::unknown) {
    // The first such call: cache every member's counters, unless a member belongs to
    // another job or the process is multi-threaded.
    cache.every_other_state = State::unusable;
    Counters** counters = engine.threaded() ? nullptr : new (std::nothrow) Counters*[n > 0 ? n : 1];
    int count = 0;
    for (int i = 0; counters != nullptr && i < n; ++i) {
      if (i == me) continue;
      int32_t peer;
      if (!find_world_rank(comm, i, job, peer)) {
        delete[] counters;
        counters = nullptr;
        break;
      }
      counters[count++] = &engine.counters().find_or_insert(Engine::key(peer, Category::coll));
    }
    if (counters != nullptr) {
      cache.every_other = counters;
      cache.every_other_count = count;
      cache.every_other_state = State::ready;
    }
  }
  const unsigned bucket = histogram_bucket(bytes);
  for (int i = 0; i < n; ++i) {
    if (i == me) continue;
    int32_t peer;
    if (find_world_rank(comm, i, job, peer)) {
      engine.record(peer, Category::coll, bytes, bucket);
    } else {
      engine.record_other_job(Category::coll, bytes);
    }
  }
  return sent;
}

const std::vector<int>& Sends::out_neighbours() const {
  const std::vector<int>* known = cache_.out_neighbours.load(std::memory_order_acquire);
  if (known != nullptr) return *known;
  auto* mine = new std::vector<int>(coll::out_neighbours(comm_));
  if (cache_.out_neighbours.compare_exchange_strong(known, mine, std::memory_order_acq_rel)) return *mine;
  delete mine;  // another thread's first call published first
  return *known;
}

std::vector<int> out_neighbours(ompi_communicator_t* comm) {
  std::vector<int> out;
  int status = MPI_UNDEFINED;
  PMPI_Topo_test(comm, &status);
  if (status == MPI_CART) {
    int dims = 0;
    PMPI_Cartdim_get(comm, &dims);
    for (int d = 0; d < dims; ++d) {
      int lower = MPI_PROC_NULL, upper = MPI_PROC_NULL;
      PMPI_Cart_shift(comm, d, 1, &lower, &upper);
      out.push_back(lower);
      out.push_back(upper);
    }
  } else if (status == MPI_GRAPH) {
    int count = 0;
    PMPI_Graph_neighbors_count(comm, comm->c_my_rank, &count);
    out.resize(count);
    PMPI_Graph_neighbors(comm, comm->c_my_rank, count, out.data());
  } else if (status == MPI_DIST_GRAPH) {
    int in = 0, outdegree = 0, weighted = 0;
    PMPI_Dist_graph_neighbors_count(comm, &in, &outdegree, &weighted);
    std::vector<int> sources(in), source_weights(in), destination_weights(outdegree);
    out.resize(outdegree);
    PMPI_Dist_graph_neighbors(comm, in, sources.data(), weighted ? source_weights.data() : MPI_UNWEIGHTED, outdegree,
                              out.data(), weighted ? destination_weights.data() : MPI_UNWEIGHTED);
  }
  return out;
}

}  // namespace mpimon::coll
