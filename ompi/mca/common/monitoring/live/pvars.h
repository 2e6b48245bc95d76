// MPI_T performance variables over the engine, with Open MPI's names and classes.
//
// Recording never depends on handles: these only read the engine's totals (Open MPI's
// MPI_T core freezes a stopped SIZE handle's values itself).
#pragma once

#include "engine/engine.h"

namespace mpimon::pvars {

enum class Metric { messages, bytes };

// Variables bound to communicators (every layer's). bind_communicator: at a handle's
// bind, whether `obj` is a live communicator (checked against Open MPI's table before
// anything is read); it is then tracked until MPI_Comm_free. communicator_still_bound:
// at a read, whether `obj` is such a communicator, not freed since (a freed one stays
// refused even when a new communicator takes its address, until a handle binds that one).
bool bind_communicator(const void* obj);
bool communicator_still_bound(const void* obj);

// A SIZE-class variable bound to communicators, e.g. ompi/pml/monitoring/messages_count:
// a handle on communicator C returns size(C) values (the remote group's size for an
// intercommunicator); value i is this process's total of `metric` in `category` (all
// communicators together, since MPI_Init) to the process with rank i in C.
// Returns the pvar index or a negative Open MPI error code.
int register_peer_variable(const char* framework, const char* name, const char* description, Category category,
                           Metric metric);

// The pair every layer has: <name>_count (messages) and <name>_size (bytes) of
// `traffic` (e.g. "messages sent") in `category`.
void register_peer_variables(const char* framework, const char* name, const char* traffic, Category category);

// pml_monitoring_flush: a writable string (a file prefix). Stopping a handle writes
// <prefix>.<world rank>.prof with the traffic since the previous flush (phase 0 starts at
// MPI_Init); totals are never reset. An empty or NULL prefix disables the file.
int register_flush_variable();

}  // namespace mpimon::pvars
