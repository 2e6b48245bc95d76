// The run-time comparison of the Open MPI build our plugins were made for with the one
// that loaded them (runtime/build_match.h).
#include <gtest/gtest.h>

#include <string>

#include "runtime/build_match.h"

namespace mpimon {
namespace {

// A 4.1.4 release build as Debian ships it (sizes as its class descriptors say).
OmpiBuildFacts release_414() {
  return {{4, 1, 4},
          false,
          {{"opal_object_t", 16}, {"ompi_request_t", 152}, {"mca_coll_base_module_t", 824}},
          "from Debian's packages"};
}

TEST(BuildMatch, TheSameBuildMatches) { EXPECT_EQ(build_mismatch(release_414(), release_414()), std::nullopt); }

TEST(BuildMatch, AStructTheLibraryDoesNotDescribeIsNotCompared) {
  OmpiBuildFacts loaded = release_414();
  loaded.sizes[1].size = 0;
  EXPECT_EQ(build_mismatch(release_414(), loaded), std::nullopt);
}

TEST(BuildMatch, ADebugBuildOfTheSameReleaseIsRefusedNamingBothAndTheSizes) {
  OmpiBuildFacts debug = release_414();
  debug.debug = true;
  debug.sizes = {{"opal_object_t", 40}, {"ompi_request_t", 176}, {"mca_coll_base_module_t", 848}};
  debug.where = "from /opt/ompi-debug/lib/libopen-pal.so.40";
  const auto line = build_mismatch(release_414(), debug);
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(
      *line,
      "built for Open MPI 4.1.4 (release build) from Debian's packages but loaded by Open MPI 4.1.4 (debug build) "
      "from /opt/ompi-debug/lib/libopen-pal.so.40 (debug setting, opal_object_t 40 bytes, built for 16, "
      "ompi_request_t 176 bytes, built for 152, mca_coll_base_module_t 848 bytes, built for 824): monitoring off, "
      "the job runs unmonitored; rebuild mpimon for this Open MPI (docs/install.md, \"Your cluster's Open MPI\")");
  EXPECT_EQ(line->find('\n'), std::string::npos);
}

TEST(BuildMatch, AnotherReleaseIsRefusedEvenWithEqualSizes) {
  OmpiBuildFacts other = release_414();
  other.version.release = 8;
  const auto line = build_mismatch(release_414(), other);
  ASSERT_TRUE(line.has_value());
  EXPECT_NE(line->find("but loaded by Open MPI 4.1.8 (release build) from Debian's packages"), std::string::npos)
      << *line;
  EXPECT_NE(line->find("(release)"), std::string::npos) << *line;
}

TEST(BuildMatch, OneStructOfAnotherSizeIsEnoughToRefuse) {
  OmpiBuildFacts loaded = release_414();
  loaded.sizes[2].size = 832;  // e.g. a thread or timer option changing one module struct
  const auto line = build_mismatch(release_414(), loaded);
  ASSERT_TRUE(line.has_value());
  EXPECT_NE(line->find("(mca_coll_base_module_t 832 bytes, built for 824)"), std::string::npos) << *line;
}

TEST(BuildMatch, AtMostThreeSizesAreNamedTheRestCounted) {
  OmpiBuildFacts built = release_414(), loaded = release_414();
  built.sizes = {{"a", 1}, {"b", 2}, {"c", 3}, {"d", 4}, {"e", 5}};
  loaded.sizes = {{"a", 9}, {"b", 9}, {"c", 9}, {"d", 9}, {"e", 9}};
  const auto line = build_mismatch(built, loaded);
  ASSERT_TRUE(line.has_value());
  EXPECT_NE(line->find("c 9 bytes, built for 3, 2 more struct sizes)"), std::string::npos) << *line;
}

TEST(BuildMatch, DebugIsToldByTheSizeOfAnOpalObject) {
  EXPECT_FALSE(debug_object_size(16));  // class pointer + reference count
  EXPECT_TRUE(debug_object_size(40));   // + magic id, file name, line
}

}  // namespace
}  // namespace mpimon
