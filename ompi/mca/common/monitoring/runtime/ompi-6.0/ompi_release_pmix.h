// Open MPI 6.0 release line: the PMIx lookups our code makes. 6.0 runs over an external
// PMIx (7.0 in Debian sid) through the same PMIx v4 API as 5.0, so 5.0's adapter serves
// unchanged (docs/open-mpi-6.md).
#pragma once

#include "../ompi-5.0/ompi_release_pmix.h"
