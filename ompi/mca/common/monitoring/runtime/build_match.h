// Whether the Open MPI that loaded our components is the one they were built for
// (docs/install.md, "Your cluster's Open MPI"). Open MPI's loader checks nothing: a plugin
// built for a release build, loaded by a --enable-debug build of the same release, finds
// every opal_object_t 24 bytes longer than it thinks and aborts in MPI_Init (or, with a
// layout change that has no such check, corrupts memory). So each component compares, as
// the first thing it does, what it was built for with what the loaded library itself
// says (runtime/build_match_ompi.h gathers both) and declines on any difference.
// Pure: no Open MPI here.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "runtime/mca_values.h"

namespace mpimon {

// The size of one Open MPI struct we embed or allocate ourselves: ours is sizeof() under
// the headers we were built with, the loaded library's is its class descriptor's
// cls_sizeof (0: the library has no such class, not compared).
struct StructSize {
  std::string name;
  std::size_t size = 0;
};

struct OmpiBuildFacts {
  OmpiVersion version;
  bool debug = false;
  std::vector<StructSize> sizes;  // in the same order on both sides
  std::string where;              // "at <prefix>, headers from <source>", "from <library file>"
};

// "Open MPI 4.1.4 (debug build) <where>"
std::string describe_build(const OmpiBuildFacts& facts);

// nullopt when the loaded library is the build we were made for: same x.y.z, same debug
// setting, every struct the same size. Otherwise the one line to print (without the
// "mpimon: " prefix), naming both builds and the first differences.
std::optional<std::string> build_mismatch(const OmpiBuildFacts& built, const OmpiBuildFacts& running);

// An opal_object_t's size tells a debug build (obj_magic_id, file and line added to the
// class pointer and reference count) from a release one, whatever the headers say.
bool debug_object_size(std::size_t opal_object_size);

}  // namespace mpimon
