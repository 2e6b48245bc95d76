// Our components under the habits of Open MPI's own monitoring programs (issue: meet what
// users already run): the communicator passed itself to MPI_T_pvar_handle_alloc, phases,
// and Debian's LD_PRELOAD profiling library ompi_monitoring_prof.so, whose matrices must
// be those of our dumps.
#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "mpi_job.h"

namespace fs = std::filesystem;
using namespace mpimon::test;

namespace {

const std::string kPatterns = MPIMON_OMPI_STYLE_PATTERNS;
const std::string kExample = MPIMON_EXAMPLE;
const fs::path kProfilingLibrary = "/usr/lib/x86_64-linux-gnu/openmpi/lib/ompi_monitoring_prof.so";

JobResult run_patterns(int ranks, const std::string& mode) {
  return run_job(ranks, {"--mca", "pml_monitoring_enable", "2", kPatterns, mode});
}

using Matrix = std::vector<std::vector<unsigned long long>>;

// What ompi_monitoring_prof.so does with the per-rank vectors it gathers (Open MPI 4.1.4,
// ompi/mca/common/monitoring/monitoring_prof.c): above the diagonal, both directions
// averaged ((a + b) / 2, integers), mirrored below; the diagonal as gathered.
void symmetrize(Matrix& m) {
  for (size_t i = 0; i < m.size(); ++i)
    for (size_t j = i + 1; j < m.size(); ++j) m[i][j] = m[j][i] = (m[i][j] + m[j][i]) / 2;
}

// size / count above and below the diagonal where count is not 0; 0 elsewhere.
Matrix average(const Matrix& size, const Matrix& count) {
  Matrix a(size.size(), std::vector<unsigned long long>(size.size(), 0));
  for (size_t i = 0; i < size.size(); ++i)
    for (size_t j = 0; j < size.size(); ++j)
      if (i != j && count[i][j] != 0) a[i][j] = size[i][j] / count[i][j];
  return a;
}

// Its file format: "%zu " per value, one line per row.
std::string mat_text(const Matrix& m) {
  std::string text;
  for (const auto& row : m) {
    for (unsigned long long v : row) text += std::to_string(v) + " ";
    text += "\n";
  }
  return text;
}

}  // namespace

// check_monitoring's three phases (collectives, point-to-point, one-sided), every
// performance variable bound to MPI_COMM_WORLD passed itself, values checked exactly.
TEST(OpenMpiStyle, ThreePhasesWithTheCommunicatorPassedItself4Ranks) {
  expect_every_rank_ok(run_patterns(4, "three_phases"), 4, "three_phases");
}

// test_pvar_access's token ring, then split communicators, read between and during phases.
TEST(OpenMpiStyle, TokenRingThenSplitCommunicatorsReadBetweenAndDuringPhases4Ranks) {
  expect_every_rank_ok(run_patterns(4, "token_phases"), 4, "token_phases");
}

// example_reduce_count: a token ring's counts, reduced with MPI_MAX.
TEST(OpenMpiStyle, TokenRingCountsReducedWithMax4Ranks) {
  const JobResult job = run_patterns(4, "reduce_count");
  expect_every_rank_ok(job, 4, "reduce_count");
  EXPECT_NE(job.output.find("counts: 25 25 25 25\n"), std::string::npos) << job.output;
}

// Debian's profiling library, preloaded over the bundled example: it reads our
// performance variables (MPI_COMM_WORLD passed itself) and writes its matrices, which
// must be those of our .prof dumps, reduced its way.
TEST(OpenMpiStyle, DebiansProfilingLibraryWritesTheMatricesOfOurDumps4Ranks) {
  if (!fs::exists(kProfilingLibrary)) GTEST_SKIP() << kProfilingLibrary << " not installed";
  const int n = 4;
  const JobResult job = run_job(
      n, concat_arguments(concat_arguments({"-x", "LD_PRELOAD=" + kProfilingLibrary.string()}, monitoring_arguments(2)),
                          {kExample, "ring", "reduce", "halo"}));
  ASSERT_EQ(job.exit_code, 0) << job.output;
  EXPECT_NE(job.output.find("writing 4x4 matrix to monitoring_all_avg.mat"), std::string::npos) << job.output;

  const Edges edges = read_edges(job.folder, "ECSR");
  const auto matrix = [&](char kind, bool bytes) {
    Matrix m(n, std::vector<unsigned long long>(n, 0));
    for (const auto& [key, value] : edges)
      if (std::get<0>(key) == kind) m[std::get<1>(key)][std::get<2>(key)] = bytes ? value.first : value.second;
    return m;
  };
  Matrix pml_count = matrix('E', false), pml_size = matrix('E', true);
  Matrix coll_count = matrix('C', false), coll_size = matrix('C', true);
  // Its handles are stopped before it gathers the results (8 MPI_Gather of n unsigned
  // longs to rank 0) at MPI_Finalize; our dumps, written after, also hold these gathers.
  for (int r = 1; r < n; ++r) {
    coll_count[r][0] -= 8;
    coll_size[r][0] -= 8 * n * sizeof(unsigned long);
  }
  Matrix osc_count = matrix('S', false), osc_size = matrix('S', true);
  const Matrix recv_count = matrix('R', false), recv_size = matrix('R', true);
  for (int i = 0; i < n; ++i)  // sent and received together, both directions averaged
    for (int j = i + 1; j < n; ++j) {
      osc_count[i][j] = osc_count[j][i] = (osc_count[i][j] + osc_count[j][i] + recv_count[i][j] + recv_count[j][i]) / 2;
      osc_size[i][j] = osc_size[j][i] = (osc_size[i][j] + osc_size[j][i] + recv_size[i][j] + recv_size[j][i]) / 2;
    }
  for (Matrix* m : {&pml_count, &pml_size, &coll_count, &coll_size}) symmetrize(*m);
  Matrix all_count(n, std::vector<unsigned long long>(n, 0)), all_size = all_count;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j) {
        all_count[i][j] = pml_count[i][j] + coll_count[i][j] + osc_count[i][j];
        all_size[i][j] = pml_size[i][j] + coll_size[i][j] + osc_size[i][j];
      }
  const std::pair<const char*, Matrix> expected[] = {
      {"monitoring_pml_msg.mat", pml_count},
      {"monitoring_pml_size.mat", pml_size},
      {"monitoring_pml_avg.mat", average(pml_size, pml_count)},
      {"monitoring_coll_msg.mat", coll_count},
      {"monitoring_coll_size.mat", coll_size},
      {"monitoring_coll_avg.mat", average(coll_size, coll_count)},
      {"monitoring_osc_msg.mat", osc_count},
      {"monitoring_osc_size.mat", osc_size},
      {"monitoring_all_msg.mat", all_count},
      {"monitoring_all_size.mat", all_size},
      {"monitoring_all_avg.mat", average(all_size, all_count)},
  };
  for (const auto& [file, m] : expected) EXPECT_EQ(read_text(job.folder / file), mat_text(m)) << file;
  // Not empty: the example's ring and halo (E) and its collectives (C) are there.
  EXPECT_NE(mat_text(pml_count), mat_text(Matrix(n, std::vector<unsigned long long>(n, 0))));
  EXPECT_NE(mat_text(coll_count), mat_text(Matrix(n, std::vector<unsigned long long>(n, 0))));
}
