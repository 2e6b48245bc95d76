// The coll/splittree module of one intracommunicator: the five tree collectives, S for
// each (constant-size buffers: ibcast, ireduce, iallreduce; doubling: igather, iscatter),
// and the modules below it for what it does not do (non-commutative reductions).
//
// S is a local choice: every process runs the same tree and the same messages, only which
// of its own threads runs each edge depends on S, so processes on different hosts may use
// different values (no agreement, no communication).
#include "coll_splittree.h"

#include <string>

#include "host_plan.h"
#include "split_tree_collectives.h"
#include "split_tree_model.h"

namespace mpimon::splittree {

struct Module {
  mca_coll_base_module_t super;
  mca_coll_base_module_ireduce_fn_t below_ireduce;
  mca_coll_base_module_t* below_ireduce_module;
  mca_coll_base_module_iallreduce_fn_t below_iallreduce;
  mca_coll_base_module_t* below_iallreduce_module;
  mca_coll_base_module_t* retained[2];
  int retained_count;
  int s_constant;  // S for ibcast, ireduce, iallreduce
  int s_doubling;  // S for igather, iscatter
};

}  // namespace mpimon::splittree

using mpimon_splittree_module_t = mpimon::splittree::Module;
static void construct_module(mpimon_splittree_module_t* m) {
  m->below_ireduce = nullptr;
  m->below_ireduce_module = nullptr;
  m->below_iallreduce = nullptr;
  m->below_iallreduce_module = nullptr;
  m->retained_count = 0;
  m->s_constant = m->s_doubling = 0;
}
static void destruct_module(mpimon_splittree_module_t* m) {
  for (int i = 0; i < m->retained_count; ++i) OBJ_RELEASE(m->retained[i]);
}
static OBJ_CLASS_INSTANCE(mpimon_splittree_module_t, mca_coll_base_module_t, construct_module, destruct_module);

namespace mpimon::splittree {
namespace {

Module* self(mca_coll_base_module_t* module) { return reinterpret_cast<Module*>(module); }

bool commutative(ompi_op_t* op) {
  int commute = 0;
  PMPI_Op_commutative(reinterpret_cast<MPI_Op>(op), &commute);
  return commute != 0;
}

int ibcast(void* buffer, int count, ompi_datatype_t* type, int root, ompi_communicator_t* comm,
           ompi_request_t** request, mca_coll_base_module_t* module) {
  *request = Engine::instance().start(make_bcast(buffer, count, type, root, comm, self(module)->s_constant), comm);
  return OMPI_SUCCESS;
}

int ireduce(const void* send, void* receive, int count, ompi_datatype_t* type, ompi_op_t* op, int root,
            ompi_communicator_t* comm, ompi_request_t** request, mca_coll_base_module_t* module) {
  Module* m = self(module);
  if (!commutative(op))  // the tree reduces in its own order
    return m->below_ireduce(send, receive, count, type, op, root, comm, request, m->below_ireduce_module);
  *request =
      Engine::instance().start(make_reduce(send, receive, count, type, op, root, comm, m->s_constant, false), comm);
  return OMPI_SUCCESS;
}

int iallreduce(const void* send, void* receive, int count, ompi_datatype_t* type, ompi_op_t* op,
               ompi_communicator_t* comm, ompi_request_t** request, mca_coll_base_module_t* module) {
  Module* m = self(module);
  if (!commutative(op))
    return m->below_iallreduce(send, receive, count, type, op, comm, request, m->below_iallreduce_module);
  *request = Engine::instance().start(make_reduce(send, receive, count, type, op, 0, comm, m->s_constant, true), comm);
  return OMPI_SUCCESS;
}

int igather(const void* send, int send_count, ompi_datatype_t* send_type, void* receive, int receive_count,
            ompi_datatype_t* receive_type, int root, ompi_communicator_t* comm, ompi_request_t** request,
            mca_coll_base_module_t* module) {
  *request = Engine::instance().start(make_gather(send, send_count, send_type, receive, receive_count, receive_type,
                                                  root, comm, self(module)->s_doubling),
                                      comm);
  return OMPI_SUCCESS;
}

int iscatter(const void* send, int send_count, ompi_datatype_t* send_type, void* receive, int receive_count,
             ompi_datatype_t* receive_type, int root, ompi_communicator_t* comm, ompi_request_t** request,
             mca_coll_base_module_t* module) {
  *request = Engine::instance().start(make_scatter(send, send_count, send_type, receive, receive_count, receive_type,
                                                   root, comm, self(module)->s_doubling),
                                      comm);
  return OMPI_SUCCESS;
}

// Members of `comm` on this host.
int ranks_on_this_host(ompi_communicator_t* comm) {
  int here = 0;
  const ompi_group_t* group = comm->c_local_group;
  for (int i = 0; i < group->grp_proc_count; ++i) {
    const auto p = reinterpret_cast<uintptr_t>(group->grp_proc_pointers[i]);
    if (p & 1) continue;  // a sentinel: a process Open MPI never needed to look at, not on this host
    here += OPAL_PROC_ON_LOCAL_NODE(reinterpret_cast<const ompi_proc_t*>(p)->super.proc_flags) ? 1 : 0;
  }
  return std::max(here, 1);
}

int choose_levels(int n, int on_host, const HostPlan& host, BufferGrowth growth) {
  const int h = tree_height(n);
  if (settings().levels >= 0) return std::min(settings().levels, h);
  return best_levels({n, communication_cores(n, on_host, host.free_cores), growth});
}

int module_enable(mca_coll_base_module_t* module, ompi_communicator_t* comm) {
  Module* m = self(module);
  // What the modules enabled before us installed (we take over only these two slots'
  // fallbacks; Open MPI releases their owner's reference per slot it gives us).
  m->below_ireduce = comm->c_coll->coll_ireduce;
  m->below_ireduce_module = comm->c_coll->coll_ireduce_module;
  m->below_iallreduce = comm->c_coll->coll_iallreduce;
  m->below_iallreduce_module = comm->c_coll->coll_iallreduce_module;
  if (m->below_ireduce == nullptr || m->below_iallreduce == nullptr) {
    warn("no module below to fall back on for non-commutative reductions on " + std::string(comm->c_name) +
             ": split tree off there",
         true);
    return OMPI_ERROR;
  }
  for (mca_coll_base_module_t* below : {m->below_ireduce_module, m->below_iallreduce_module}) {
    if (below == nullptr) continue;
    OBJ_RETAIN(below);
    m->retained[m->retained_count++] = below;
  }
  const HostPlan& host = host_plan();
  const int n = ompi_comm_size(comm), on_host = ranks_on_this_host(comm);
  m->s_constant = choose_levels(n, on_host, host, BufferGrowth::constant);
  m->s_doubling = choose_levels(n, on_host, host, BufferGrowth::doubling);
  Engine::instance().set_thread_binding(host.thread_cpuset);
  if (settings().verbose && ompi_comm_rank(comm) == 0) {
    warn(std::string(comm->c_name) + ": " + std::to_string(n) + " ranks (" + std::to_string(on_host) +
             " on this host, " + std::to_string(host.free_cores) + " of " + std::to_string(host.cores) +
             " cores free), H = " + std::to_string(tree_height(n)) + ", S = " + std::to_string(m->s_constant) +
             " (ibcast, ireduce, iallreduce), " + std::to_string(m->s_doubling) +
             " (igather, iscatter); progress thread on core " + std::to_string(host.thread_core) +
             (host.problem.empty() ? "" : " (" + host.problem + ")"),
         false);
  }
  return OMPI_SUCCESS;
}

int module_disable(mca_coll_base_module_t*, ompi_communicator_t*) { return OMPI_SUCCESS; }

}  // namespace

mca_coll_base_module_t* new_module() {
  Module* m = OBJ_NEW(mpimon_splittree_module_t);
  if (m == nullptr) return nullptr;
  m->super.coll_module_enable = module_enable;
  m->super.coll_module_disable = module_disable;
  m->super.coll_ibcast = ibcast;
  m->super.coll_ireduce = ireduce;
  m->super.coll_iallreduce = iallreduce;
  m->super.coll_igather = igather;
  m->super.coll_iscatter = iscatter;
  return &m->super;
}

}  // namespace mpimon::splittree
