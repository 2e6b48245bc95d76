// MCA parameter text checking and Open MPI version checks.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "runtime/mca_values.h"

namespace mpimon {
namespace {

// ---------------------------------------------------------------------------------------
// parse_non_negative

TEST(McaValues, ParseNonNegativeAcceptsADecimalInteger) {
  EXPECT_EQ(parse_non_negative("2"), std::optional<int>(2));
  EXPECT_EQ(parse_non_negative("0"), std::optional<int>(0));
  EXPECT_EQ(parse_non_negative("2147483647"), std::optional<int>(2147483647));
}

TEST(McaValues, ParseNonNegativeAllowsSurroundingBlanks) {
  EXPECT_EQ(parse_non_negative(" 3 "), std::optional<int>(3));
  EXPECT_EQ(parse_non_negative("\t4\t"), std::optional<int>(4));
}

TEST(McaValues, ParseNonNegativeRejectsLetters) { EXPECT_EQ(parse_non_negative("abc"), std::nullopt); }

TEST(McaValues, ParseNonNegativeRejectsNegativeNumbers) {
  EXPECT_EQ(parse_non_negative("-1"), std::nullopt);
  EXPECT_EQ(parse_non_negative(" -7 "), std::nullopt);
}

TEST(McaValues, ParseNonNegativeRejectsSuffixes) {
  EXPECT_EQ(parse_non_negative("1k"), std::nullopt);  // Open MPI would read 1024
  EXPECT_EQ(parse_non_negative("2 3"), std::nullopt);
  EXPECT_EQ(parse_non_negative("1.5"), std::nullopt);
  EXPECT_EQ(parse_non_negative("0x10"), std::nullopt);
}

TEST(McaValues, ParseNonNegativeRejectsEmptyText) {
  EXPECT_EQ(parse_non_negative(""), std::nullopt);
  EXPECT_EQ(parse_non_negative("   "), std::nullopt);
  EXPECT_EQ(parse_non_negative(nullptr), std::nullopt);
}

TEST(McaValues, ParseNonNegativeRejectsOutOfRangeNumbers) {
  EXPECT_EQ(parse_non_negative("2147483648"), std::nullopt);
  EXPECT_EQ(parse_non_negative("99999999999999999999"), std::nullopt);
}

// ---------------------------------------------------------------------------------------
// checked_level

TEST(McaValues, CheckedLevelReturnsAValidValueWithoutWarning) {
  std::string warning;
  EXPECT_EQ(checked_level("pml_monitoring_enable", "2", 0, 0, "0, 1 or 2", warning), 2);
  EXPECT_EQ(checked_level("pml_monitoring_enable", " 1 ", 0, 0, "0, 1 or 2", warning), 1);
  EXPECT_EQ(warning, "");
}

TEST(McaValues, CheckedLevelReturnsTheDefaultForUnsetText) {
  std::string warning;
  EXPECT_EQ(checked_level("pml_monitoring_enable", nullptr, 5, 0, "0, 1 or 2", warning), 5);
  EXPECT_EQ(checked_level("pml_monitoring_enable", "", 5, 0, "0, 1 or 2", warning), 5);
  EXPECT_EQ(warning, "");
}

TEST(McaValues, CheckedLevelFallsBackOnInvalidText) {
  std::string warning;
  EXPECT_EQ(checked_level("pml_monitoring_enable", "abc", 1, 7, "0, 1 or 2", warning), 7);
  EXPECT_FALSE(warning.empty());
}

TEST(McaValues, CheckedLevelWarningNamesParameterValueAndValidValues) {
  std::string warning;
  checked_level("pml_monitoring_enable", "1k", 0, 0, "0, 1 or 2", warning);
  EXPECT_NE(warning.find("pml_monitoring_enable"), std::string::npos) << warning;
  EXPECT_NE(warning.find("'1k'"), std::string::npos) << warning;
  EXPECT_NE(warning.find("0, 1 or 2"), std::string::npos) << warning;
  EXPECT_EQ(warning.find('\n'), std::string::npos) << "one line: " << warning;
}

TEST(McaValues, CheckedLevelWarningNamesTheFallback) {
  std::string warning;
  checked_level("coll_monitoring_enable", "-1", 0, 0, "0 or 1", warning);
  EXPECT_NE(warning.find("coll_monitoring_enable"), std::string::npos) << warning;
  EXPECT_NE(warning.find("'-1'"), std::string::npos) << warning;
  EXPECT_NE(warning.find("using 0"), std::string::npos) << warning;
}

// ---------------------------------------------------------------------------------------
// parse_library_version / compare_versions

::testing::AssertionResult is_version(const std::optional<OmpiVersion>& v, int major, int minor, int release) {
  if (!v) return ::testing::AssertionFailure() << "nullopt";
  if (v->major == major && v->minor == minor && v->release == release) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << v->major << '.' << v->minor << '.' << v->release;
}

TEST(McaValues, ParseLibraryVersionReadsDebianOpenMpiString) {
  EXPECT_TRUE(is_version(parse_library_version("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, "
                                               "repo rev: v4.1.4, May 26, 2022"),
                         4, 1, 4));
}

TEST(McaValues, ParseLibraryVersionReadsOtherReleases) {
  EXPECT_TRUE(is_version(parse_library_version("Open MPI v5.0.3, package: Open MPI builder"), 5, 0, 3));
  EXPECT_TRUE(is_version(parse_library_version("Open MPI v4.1.6rc2, package: x"), 4, 1, 6));
}

TEST(McaValues, ParseLibraryVersionRejectsGarbage) {
  EXPECT_EQ(parse_library_version("garbage").has_value(), false);
  EXPECT_EQ(parse_library_version("MPICH Version: 4.0.2").has_value(), false);
  EXPECT_EQ(parse_library_version("Open MPI vX.Y.Z").has_value(), false);
  EXPECT_EQ(parse_library_version("Open MPI v4").has_value(), false);
  EXPECT_EQ(parse_library_version("").has_value(), false);
  EXPECT_EQ(parse_library_version(nullptr).has_value(), false);
}

TEST(McaValues, CompareVersionsSameRelease) { EXPECT_EQ(compare_versions({4, 1, 4}, {4, 1, 4}), VersionVerdict::same); }

TEST(McaValues, CompareVersionsOtherReleaseOfSameMajorMinor) {
  EXPECT_EQ(compare_versions({4, 1, 4}, {4, 1, 5}), VersionVerdict::other_release);
  EXPECT_EQ(compare_versions({4, 1, 4}, {4, 1, 0}), VersionVerdict::other_release);
}

TEST(McaValues, CompareVersionsOtherMinorIsIncompatible) {
  EXPECT_EQ(compare_versions({4, 1, 4}, {4, 0, 4}), VersionVerdict::incompatible);
}

TEST(McaValues, CompareVersionsOtherMajorIsIncompatible) {
  EXPECT_EQ(compare_versions({4, 1, 4}, {5, 1, 4}), VersionVerdict::incompatible);
  EXPECT_EQ(compare_versions({4, 1, 4}, {3, 1, 4}), VersionVerdict::incompatible);
}

}  // namespace
}  // namespace mpimon
