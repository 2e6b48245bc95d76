// The Open MPI internal headers our adapters need, made to compile as C++20.
// Include this first (ompi_config.h must come before any other Open MPI header). What
// differs between Open MPI series is in runtime/ompi-<series>/ompi_release.h.
#pragma once

#include "ompi_release.h"

#include <ompi/communicator/communicator.h>
#include <ompi/datatype/ompi_datatype.h>
#include <ompi/group/group.h>
#include <ompi/proc/proc.h>
#include <ompi/request/request.h>
