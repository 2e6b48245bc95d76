// PML adapter: point-to-point sends -> engine records.
#pragma once

#include "runtime/ompi_glue.h"

#include <ompi/mca/pml/pml.h>

namespace mpimon::pml {

// Saves the PML module that selection picked (now in mca_pml) and puts our send
// wrappers in front of it. Every other function keeps pointing at the original.
void interpose(bool split_internal, bool selected_pml_is_ob1, bool threaded);

// Restores / re-installs the wrappers (our dump traffic must not count itself).
void set_recording(bool on);

}  // namespace mpimon::pml
