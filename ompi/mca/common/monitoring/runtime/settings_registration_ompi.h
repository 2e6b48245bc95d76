// The control variables of the whole monitoring: pml_monitoring_enable, _enable_output,
// _filename, _job_file, _verbose, _snapshot_interval (Open MPI's names; docs/mca-parameters.md).
//
// Registered once per process by whichever of our components Open MPI registers first:
// our PML normally, our COLL or OSC component when the user's pml selection (--mca pml
// ob1) left our PML out. Then the COLL layer still knows monitoring was asked for and
// says, in one line, that the job runs unmonitored (warn_pml_left_out).
#pragma once

namespace mpimon {

// Registers the variables and fills Runtime::settings (the first call); checks that the
// running Open MPI is the series we were built for (else monitoring stays off). A later
// call registers the variables again if Open MPI deregistered them since
// (monitoring_variables_deregistered), and changes nothing else.
void register_settings();

// Our PML's selection entry point ran (it takes part whenever monitoring is on).
void note_pml_took_part();

// At the first communicator's collective selection (after PML selection): if monitoring
// was asked for but our PML never took part, says so once per job (world rank 0) and
// returns true.
bool warn_pml_left_out();

}  // namespace mpimon
