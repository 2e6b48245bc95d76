// COLL adapter: collective calls -> engine records and per-communicator class totals.
#pragma once

#include "runtime/ompi_glue.h"

#include <ompi/mca/coll/base/base.h>
#include <ompi/mca/coll/coll.h>

#include <vector>

#include "analyses/communicator_classes.h"

namespace mpimon::coll {

inline constexpr int kSlotCount = 44;  // collectives we count (see the table in the module)

// A new module for one communicator, with every counted slot pointing at our wrappers.
mca_coll_base_module_t* new_module();

// Remembers our job (for world-rank translation); once, when the PML layer started.
void start();

// Recording switch (off while our own end-of-job dump communicates).
void set_recording(bool on);
bool recording_now();

// The class totals of a communicator carrying our module, or nullptr.
const CommunicatorClasses* classes_of(const ompi_communicator_t* comm);

}  // namespace mpimon::coll
