// The five tree collectives as steps over the binomial tree (binomial_tree.h): which
// transfers, on which side (an edge of distance 2^k is the progress thread's when k >= S,
// the application's otherwise), and the local work between them.
//
//   bcast      receive from the parent; send to the children, the farthest first
//   reduce     receive each child's partial result, the nearest first, and reduce it into
//              an accumulator; send that to the parent (commutative operations only)
//   allreduce  reduce to rank 0, then bcast from it, in the receive buffer
//   gather     the blocks of a subtree travel packed and in rank order: own block first,
//              then each child's subtree; the root unpacks into place
//   scatter    the mirror: the root packs every block in tree order, each process keeps
//              its first block and passes the rest down
#include "split_tree_collectives.h"

#include <algorithm>

#include "binomial_tree.h"

namespace mpimon::splittree {

namespace {

Side side_of(int k, int s) { return BinomialTree::upper(k, s) ? Side::thread : Side::application; }

// Sends to the children at distances 2^(below - 1) down to 1, one step per side (the
// thread's, upper, first).
void add_child_sends(Collective& c, const BinomialTree& t, int below, int s,
                     const std::function<Transfer(int k, int child)>& transfer) {
  for (Side side : {Side::thread, Side::application}) {
    Step step{side, {}, {}};
    for (int k = below - 1; k >= 0; --k)
      if (t.child(k) >= 0 && side_of(k, s) == side) step.transfers.push_back(transfer(k, t.child(k)));
    if (!step.transfers.empty()) c.add(std::move(step));
  }
}

// Memory for `count` elements of `type` (its true extent), as a buffer pointer.
char* scratch_for(Collective& c, int count, ompi_datatype_t* type) {
  ptrdiff_t lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  ompi_datatype_get_extent(type, &lb, &extent);
  ompi_datatype_get_true_extent(type, &true_lb, &true_extent);
  const size_t span = count > 0 ? static_cast<size_t>(true_extent + (count - 1) * extent) : 0;
  return c.scratch(span) - true_lb;
}

ptrdiff_t extent_of(ompi_datatype_t* type) {
  ptrdiff_t lb = 0, extent = 0;
  ompi_datatype_get_extent(type, &lb, &extent);
  return extent;
}

size_t packed_size(int count, ompi_datatype_t* type) {
  size_t size = 0;
  ompi_datatype_type_size(type, &size);
  return size * static_cast<size_t>(count);
}

void pack(const void* buffer, int count, ompi_datatype_t* type, char* out, size_t bytes, ompi_communicator_t* comm) {
  int position = 0;
  PMPI_Pack(buffer, count, type, out, static_cast<int>(bytes), &position, comm);
}

void unpack(const char* in, size_t bytes, void* buffer, int count, ompi_datatype_t* type, ompi_communicator_t* comm) {
  int position = 0;
  PMPI_Unpack(in, static_cast<int>(bytes), &position, buffer, count, type, comm);
}

// Bcast phase over `t` in `buffer` (allreduce's second half too).
void add_bcast(Collective& c, const BinomialTree& t, void* buffer, int count, ompi_datatype_t* type, int s) {
  if (!t.is_root())
    c.add({side_of(t.parent_log2(), s), {{false, t.parent(), buffer, static_cast<size_t>(count), type}}, {}});
  add_child_sends(c, t, t.parent_log2(), s, [&](int, int child) {
    return Transfer{true, child, buffer, static_cast<size_t>(count), type};
  });
}

// Reduce phase over `t` into `accumulator` (which holds this process's contribution).
void add_reduce(Collective& c, const BinomialTree& t, void* accumulator, int count, ompi_datatype_t* type,
                ompi_op_t* op, int s) {
  char* partial = scratch_for(c, count, type);
  for (int k = 0; k < t.parent_log2(); ++k) {
    if (t.child(k) < 0) continue;
    c.add({side_of(k, s), {{false, t.child(k), partial, static_cast<size_t>(count), type}}, [=] {
             PMPI_Reduce_local(partial, accumulator, count, type, op);
           }});
  }
  if (!t.is_root())
    c.add({side_of(t.parent_log2(), s), {{true, t.parent(), accumulator, static_cast<size_t>(count), type}}, {}});
}

std::unique_ptr<Collective> new_collective(ompi_communicator_t* comm) {
  return std::make_unique<Collective>(comm, reserve_tag(comm));
}

}  // namespace

std::unique_ptr<Collective> make_bcast(void* buffer, int count, ompi_datatype_t* type, int root,
                                       ompi_communicator_t* comm, int s) {
  auto c = new_collective(comm);
  c->hold(&type->super.super);
  add_bcast(*c, BinomialTree(ompi_comm_size(comm), ompi_comm_rank(comm), root), buffer, count, type, s);
  return c;
}

std::unique_ptr<Collective> make_reduce(const void* send, void* receive, int count, ompi_datatype_t* type,
                                        ompi_op_t* op, int root, ompi_communicator_t* comm, int s, bool all) {
  auto c = new_collective(comm);
  c->hold(&type->super.super);
  c->hold(reinterpret_cast<opal_object_t*>(op));
  const BinomialTree t(ompi_comm_size(comm), ompi_comm_rank(comm), all ? 0 : root);
  // The root (every rank for allreduce) accumulates in its receive buffer, the others in
  // scratch memory: their send buffer is the application's.
  void* accumulator = all || t.is_root() ? receive : scratch_for(*c, count, type);
  if (send != MPI_IN_PLACE)
    ompi_datatype_copy_content_same_ddt(type, count, static_cast<char*>(accumulator),
                                        static_cast<char*>(const_cast<void*>(send)));
  add_reduce(*c, t, accumulator, count, type, op, s);
  if (all) add_bcast(*c, t, receive, count, type, s);
  return c;
}

std::unique_ptr<Collective> make_gather(const void* send, int send_count, ompi_datatype_t* send_type, void* receive,
                                        int receive_count, ompi_datatype_t* receive_type, int root,
                                        ompi_communicator_t* comm, int s) {
  auto c = new_collective(comm);
  const BinomialTree t(ompi_comm_size(comm), ompi_comm_rank(comm), root);
  const bool in_place = t.is_root() && send == MPI_IN_PLACE;
  const ptrdiff_t slot = receive_count * extent_of(receive_type);  // the root's receive buffer, per rank
  const size_t block = t.is_root() ? packed_size(receive_count, receive_type) : packed_size(send_count, send_type);
  if (t.is_root()) c->hold(&receive_type->super.super);
  char* blocks = c->scratch(block * t.subtree());
  if (in_place) {
    pack(static_cast<char*>(receive) + ompi_comm_rank(comm) * slot, receive_count, receive_type, blocks, block, comm);
  } else {
    pack(send, send_count, send_type, blocks, block, comm);
  }
  for (int k = 0; k < t.parent_log2(); ++k) {
    if (t.child(k) < 0) continue;
    c->add(
        {side_of(k, s), {{false, t.child(k), blocks + block * (1u << k), block * t.child_subtree(k), MPI_BYTE}}, {}});
  }
  if (!t.is_root()) {
    c->add({side_of(t.parent_log2(), s), {{true, t.parent(), blocks, block * t.subtree(), MPI_BYTE}}, {}});
    return c;
  }
  // The root: every block into place, once the last subtree arrived (on whichever side
  // received it; with no child, at once).
  const int n = t.size();
  std::function<void()> place = [=] {
    for (int v = in_place ? 1 : 0; v < n; ++v)
      unpack(blocks + block * v, block, static_cast<char*>(receive) + t.rank_of(v) * slot, receive_count, receive_type,
             comm);
  };
  c->add({Side::application, {}, place});
  return c;
}

std::unique_ptr<Collective> make_scatter(const void* send, int send_count, ompi_datatype_t* send_type, void* receive,
                                         int receive_count, ompi_datatype_t* receive_type, int root,
                                         ompi_communicator_t* comm, int s) {
  auto c = new_collective(comm);
  const BinomialTree t(ompi_comm_size(comm), ompi_comm_rank(comm), root);
  const bool in_place = t.is_root() && receive == MPI_IN_PLACE;
  const size_t block = t.is_root() ? packed_size(send_count, send_type) : packed_size(receive_count, receive_type);
  char* blocks = c->scratch(block * t.subtree());
  if (!t.is_root()) c->hold(&receive_type->super.super);
  if (t.is_root()) {
    const ptrdiff_t slot = send_count * extent_of(send_type);
    for (int v = 0; v < t.size(); ++v)
      pack(static_cast<const char*>(send) + t.rank_of(v) * slot, send_count, send_type, blocks + block * v, block,
           comm);
    if (!in_place) unpack(blocks, block, receive, receive_count, receive_type, comm);
  } else {
    c->add({side_of(t.parent_log2(), s), {{false, t.parent(), blocks, block * t.subtree(), MPI_BYTE}}, [=] {
              unpack(blocks, block, receive, receive_count, receive_type, comm);
            }});
  }
  add_child_sends(*c, t, t.parent_log2(), s, [&](int k, int child) {
    return Transfer{true, child, blocks + block * (1u << k), block * t.child_subtree(k), MPI_BYTE};
  });
  return c;
}

}  // namespace mpimon::splittree
