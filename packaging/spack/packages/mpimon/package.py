# mpimon for Spack: a package of a site's own Spack repository (packaging/spack is one:
# `spack repo add packaging/spack`). docs/install.md "Your cluster's Open MPI" explains it;
# test/packaging/recipes_test.py checks, without Spack, that the CMake options below are
# the ones CI builds with (scripts/ompi-builds/test-inside.sh).
#
# mpimon's components embed Open MPI's internal structs, whose layouts depend on how that
# Open MPI was configured (debug, threads, ...). So besides the openmpi installation
# (MPIMON_OMPI_PREFIX) the build needs the source tree it was built from
# (MPIMON_OMPI_SOURCE): here the openmpi dependency's own stage, fetched and patched by
# its own recipe (what `spack patch openmpi/<hash>` does): same tarball, same checksum,
# same patches, from Spack's source cache or mirror when the install already fetched it.
from spack.package import *


class Mpimon(CMakePackage):
    """Communication monitoring built inside Open MPI: MCA components (pml, coll, osc, io,
    topo) counting messages per peer, MPI_T events, and the mpimon tools (matrices,
    reports, placement)."""

    # No public release yet: your site's clone of the repository.
    git = "file:///srv/git/mpimon.git"

    version("main", branch="main")

    variant("tests", default=False, description="Build the tests and benchmarks (GoogleTest)")

    depends_on("c", type="build")
    depends_on("cxx", type="build")
    depends_on("fortran", type="build")  # the Fortran binding of mpimon_reorder
    depends_on("cmake@3.22:", type="build")
    depends_on("pkgconfig", type="build")
    # 4.1.x and 5.0.x; shared libraries: the components are loaded as DSOs.
    depends_on("openmpi@4.1:5.0 ~static")
    depends_on("hwloc@2:")
    depends_on("scotch ~mpi")
    depends_on("cli11", type="build")
    depends_on("googletest", type="build", when="+tests")

    def openmpi_source(self):
        """The source tree the openmpi dependency was built from, as its recipe staged it."""
        ompi = self.spec["openmpi"].package
        ompi.stage.keep = True  # kept for MPIMON_OMPI_SOURCE; `spack clean -s` removes it
        with ompi.stage:
            ompi.do_patch()
        return ompi.stage.source_path

    def cmake_args(self):
        return [
            self.define("MPIMON_OMPI_PREFIX", self.spec["openmpi"].prefix),
            self.define("MPIMON_OMPI_SOURCE", self.openmpi_source()),
            self.define_from_variant("MPIMON_BUILD_TESTS", "tests"),
        ]
