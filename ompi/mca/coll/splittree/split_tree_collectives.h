// Builders of the five split-tree collectives (see the .cpp for the algorithms). `s`: the
// levels this process runs in the application's progress (the lower ones); the others
// are its progress thread's. Each reserves its tag on `comm`.
#pragma once

#include "split_tree_engine.h"

struct ompi_op_t;

namespace mpimon::splittree {

std::unique_ptr<Collective> make_bcast(void* buffer, int count, ompi_datatype_t* type, int root,
                                       ompi_communicator_t* comm, int s);
// `all`: allreduce (root ignored). Commutative operations only.
std::unique_ptr<Collective> make_reduce(const void* send, void* receive, int count, ompi_datatype_t* type,
                                        ompi_op_t* op, int root, ompi_communicator_t* comm, int s, bool all);
std::unique_ptr<Collective> make_gather(const void* send, int send_count, ompi_datatype_t* send_type, void* receive,
                                        int receive_count, ompi_datatype_t* receive_type, int root,
                                        ompi_communicator_t* comm, int s);
std::unique_ptr<Collective> make_scatter(const void* send, int send_count, ompi_datatype_t* send_type, void* receive,
                                         int receive_count, ompi_datatype_t* receive_type, int root,
                                         ompi_communicator_t* comm, int s);

}  // namespace mpimon::splittree
