// TreeMatch placement: quality on known patterns, brute force on 8 ranks, padding.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "treematch.h"

namespace mpimon::placement {
namespace {

// The binary-tree reduce on 8 ranks: 1,2 -> 0; 3,5 -> 1; 4,6 -> 2; 7 -> 3.
Affinity binary_tree() {
  Affinity a(8);
  for (auto [from, to] : {std::pair{1, 0}, {2, 0}, {3, 1}, {5, 1}, {4, 2}, {6, 2}, {7, 3}}) a.add(from, to, 64);
  return a;
}

// A 4x4 stencil (row-major ranks), each neighbour pair exchanging 100 bytes.
Affinity stencil() {
  Affinity a(16);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      if (c + 1 < 4) a.add(r * 4 + c, r * 4 + c + 1, 100);
      if (r + 1 < 4) a.add(r * 4 + c, (r + 1) * 4 + c, 100);
    }
  return a;
}

double brute_force_optimum(const Affinity& a, const Tree& tree) {
  Placement p = identity_placement(a.size());
  double best = hop_cost(a, tree, p);
  while (std::next_permutation(p.begin(), p.end())) best = std::min(best, hop_cost(a, tree, p));
  return best;
}

TEST(TreeMatch, TreeHopsCountEdgesThroughTheCommonAncestor) {
  const Tree tree{{2, 4}};
  EXPECT_EQ(tree.leaves(), 8);
  EXPECT_EQ(tree.hops(0, 0), 0);
  EXPECT_EQ(tree.hops(0, 3), 2);
  EXPECT_EQ(tree.hops(3, 4), 4);
}

TEST(TreeMatch, BinaryTreeReduceOnTwoPackagesCutsOneTreeEdge) {
  const Tree tree{{2, 4}};
  const Placement p = treematch(binary_tree(), tree);
  EXPECT_EQ(top_level_cut(binary_tree(), tree, p), 64);  // exactly one edge across packages
  EXPECT_EQ(hop_cost(binary_tree(), tree, p), brute_force_optimum(binary_tree(), tree));
  EXPECT_LT(hop_cost(binary_tree(), tree, p), hop_cost(binary_tree(), tree, identity_placement(8)));
}

TEST(TreeMatch, StencilOnFourPackagesUsesTwoByTwoBlocks) {
  const Tree tree{{4, 4}};
  const Placement p = treematch(stencil(), tree);
  EXPECT_EQ(top_level_cut(stencil(), tree, p), 8 * 100);
  EXPECT_EQ(top_level_cut(stencil(), tree, identity_placement(16)), 12 * 100);  // row-major
}

TEST(TreeMatch, BruteForceComparisonOnEightRanks) {
  std::mt19937 random(42);
  const Tree tree{{2, 2, 2}};
  for (int trial = 0; trial < 5; ++trial) {
    Affinity a(8);
    for (int i = 0; i < 8; ++i)
      for (int j = i + 1; j < 8; ++j)
        if (random() % 3 == 0) a.add(i, j, static_cast<double>(random() % 1000));
    const double ours = hop_cost(a, tree, treematch(a, tree));
    const double optimum = brute_force_optimum(a, tree);
    std::printf("trial %d: treematch %.0f, optimum %.0f (%.1f%% above)\n", trial, ours, optimum,
                100.0 * (ours - optimum) / std::max(optimum, 1.0));
    EXPECT_LE(ours, optimum * 1.25) << "trial " << trial;
    EXPECT_LE(ours, hop_cost(a, tree, identity_placement(8)));
  }
}

TEST(TreeMatch, NeverWorseThanIdentityOnRandomMatrices) {
  std::mt19937 random(7);
  for (int n : {16, 32, 64}) {
    const Tree tree{{4, n / 4}};
    Affinity a(n);
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        if (random() % 4 == 0) a.add(i, j, static_cast<double>(random() % 1000));
    const Placement p = treematch(a, tree);
    EXPECT_LE(hop_cost(a, tree, p), hop_cost(a, tree, identity_placement(n))) << n;
    std::vector<int> leaves(p);
    std::sort(leaves.begin(), leaves.end());
    EXPECT_EQ(std::adjacent_find(leaves.begin(), leaves.end()), leaves.end()) << "one process per core";
  }
}

TEST(TreeMatch, FewerProcessesThanCoresAndUnevenSizes) {
  Affinity a(6);  // 6 processes on 2 x 4 cores
  a.add(0, 5, 100);
  a.add(1, 4, 100);
  const Tree tree{{2, 4}};
  const Placement p = treematch(a, tree);
  ASSERT_EQ(p.size(), 6u);
  EXPECT_EQ(top_level_cut(a, tree, p), 0);
  for (int leaf : p) EXPECT_LT(leaf, 8);
}

TEST(TreeMatch, OversubscriptionPutsSeveralProcessesOnACore) {
  Affinity a(8);
  for (int i = 0; i < 8; i += 2) a.add(i, i + 1, 50);
  const Tree tree{{2, 2}};
  Options options;
  options.oversubscription = 2;
  const Placement p = treematch(a, tree, options);
  for (int i = 0; i < 8; i += 2) EXPECT_EQ(p[i], p[i + 1]) << "partners share a core";
  EXPECT_THROW(treematch(Affinity(9), tree, options), std::invalid_argument);
}

TEST(TreeMatch, ReportsProgressPerLevel) {
  std::vector<int> seen;
  Options options;
  options.progress = [&](int done, int levels) { seen.push_back(done * 10 + levels); };
  treematch(stencil(), Tree{{4, 4}}, options);
  EXPECT_EQ(seen, (std::vector<int>{12, 22}));
}

}  // namespace
}  // namespace mpimon::placement

#include "scotch_mapping.h"

namespace mpimon::placement {
namespace {

// Scotch on one host with this tree: the leaf of each process.
Placement scotch_placement(const Affinity& affinity, const Tree& tree) {
  const Cluster one_host{{Host{"h", tree, tree.leaves(), {}}}, {}};
  const std::optional<Mapping> mapping = scotch_placement(affinity, one_host);
  Placement leaves;
  for (const Location& l : mapping.value()) leaves.push_back(l.core);
  return leaves;
}

TEST(TreeMatchVersusScotch, AtMostScotchsCostOnKnownPatterns) {
  for (const auto& [affinity, tree] : {std::pair{binary_tree(), Tree{{2, 4}}}, std::pair{stencil(), Tree{{4, 4}}}}) {
    const double ours = hop_cost(affinity, tree, treematch(affinity, tree));
    const double scotch = hop_cost(affinity, tree, scotch_placement(affinity, tree));
    EXPECT_LE(ours, scotch);
  }
}

TEST(TreeMatchVersusScotch, WithinFivePercentOnRandomMatrices) {
  std::mt19937 random(99);
  for (int n : {16, 24, 32, 48, 64}) {
    const Tree tree{{2, 2, n / 4}};
    Affinity a(n);
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        if (random() % 4 == 0) a.add(i, j, static_cast<double>(random() % 1000));
    const double ours = hop_cost(a, tree, treematch(a, tree));
    const double scotch = hop_cost(a, tree, scotch_placement(a, tree));
    std::printf("%d ranks: treematch %.0f, scotch %.0f (%+.1f%%)\n", n, ours, scotch, 100.0 * (ours - scotch) / scotch);
    EXPECT_LE(ours, scotch * 1.05) << n << " ranks";
  }
}

}  // namespace
}  // namespace mpimon::placement
