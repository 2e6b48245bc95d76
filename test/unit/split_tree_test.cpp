// The split tree's pure parts: the paper's model (equations 1-5) against the tuning points
// the paper states, the binomial tree, and where progress threads go.
#include <gtest/gtest.h>

#include <cmath>

#include "binomial_tree.h"
#include "core_placement.h"
#include "split_tree_model.h"

using namespace mpimon::splittree;

namespace {

// The paper's setting: N ranks on a 64-core processor, the other cores for communication.
ModelInput on_64_cores(int n, BufferGrowth growth = BufferGrowth::constant) { return {n, 64.0 - n, growth}; }

}  // namespace

TEST(SplitTreeModel, HeightAndTransfersPerLevel) {
  EXPECT_EQ(tree_height(1), 0);
  EXPECT_EQ(tree_height(2), 1);
  EXPECT_EQ(tree_height(3), 2);
  EXPECT_EQ(tree_height(57), 6);
  EXPECT_EQ(tree_height(64), 6);
  for (int i = 1; i <= 6; ++i) EXPECT_DOUBLE_EQ(level_transfers(64, i), std::ldexp(1.0, i - 1));
  double sum = 0;
  for (int i = 1; i <= 6; ++i) sum += level_transfers(57, i);
  // Equation 3 as printed: N - 1 = 56 transfers plus the half its first term gives the
  // root's level when N is no power of two (ceil(F / P) makes it one transfer).
  EXPECT_DOUBLE_EQ(sum, 56.5);
  EXPECT_DOUBLE_EQ(level_transfers(57, 6), 29);
}

TEST(SplitTreeModel, EquationsOneToFive) {
  EXPECT_DOUBLE_EQ(blocking_time(64, BufferGrowth::constant), 6);
  EXPECT_DOUBLE_EQ(blocking_time(8, BufferGrowth::doubling), 7);  // 4 + 2 + 1 blocks
  const ModelInput in = on_64_cores(57);
  EXPECT_DOUBLE_EQ(computation_time(in), 64.0 / 57 * 6);
  // Levels 1..6 of N = 57 on P = 7 cores: ceil(F/7) = 1, 1, 1, 1, 2, 5.
  EXPECT_DOUBLE_EQ(upper_levels_time(in, 0), 11);
  EXPECT_DOUBLE_EQ(nonblocking_time(in, 0), 11);
  EXPECT_DOUBLE_EQ(nonblocking_time(in, 1), 1 + 6);
  EXPECT_DOUBLE_EQ(overlapped_time(in, 1), 1 + 64.0 / 57 * 6);
  EXPECT_DOUBLE_EQ(overlapped_time(in, 3), 3 + 64.0 / 57 * 6);
  EXPECT_TRUE(std::isinf(nonblocking_time({8, 0, BufferGrowth::constant}, 0)));
}

TEST(SplitTreeModel, ReproducesThePapersTuningOn64Cores) {
  // Section 4: "With 7 cores dedicated to communications (N = 57), the optimal is S = 1;
  // for 4 cores (N = 60), S = 2; and finally S = 3 for N = 62 (2 communication cores)."
  EXPECT_EQ(best_levels(on_64_cores(57)), 1);
  EXPECT_EQ(best_levels(on_64_cores(60)), 2);
  EXPECT_EQ(best_levels(on_64_cores(62)), 3);
  // "the absolute minimum time is reached for S = 0 and N = 51".
  double best = 1e9;
  int best_n = 0, best_s = -1;
  for (int n = 33; n < 64; ++n) {
    const ModelInput in = on_64_cores(n);
    const int s = best_levels(in);
    if (overlapped_time(in, s) < best - 1e-12) best = overlapped_time(in, s), best_n = n, best_s = s;
  }
  EXPECT_EQ(best_n, 51);
  EXPECT_EQ(best_s, 0);
}

TEST(SplitTreeModel, NoCommunicationCoreMeansEverythingInTheWait) {
  EXPECT_EQ(best_levels({16, 0, BufferGrowth::constant}), 4);
  EXPECT_EQ(best_levels({16, 0, BufferGrowth::doubling}), 4);
  EXPECT_EQ(best_levels({1, 0, BufferGrowth::constant}), 0);
  EXPECT_DOUBLE_EQ(communication_cores(16, 8, 2), 4);  // two hosts alike
  EXPECT_DOUBLE_EQ(communication_cores(8, 8, 0), 0);
  EXPECT_GE(best_levels(on_64_cores(60, BufferGrowth::doubling)), 0);
}

TEST(BinomialTree, EveryMemberHangsBelowItsParentAndSubtreesAddUp) {
  for (int n = 1; n <= 33; ++n) {
    for (int root = 0; root < n; ++root) {
      int edges_per_level[8] = {};
      for (int rank = 0; rank < n; ++rank) {
        const BinomialTree t(n, rank, root);
        int below = 1;
        for (int k = 0; k < t.parent_log2(); ++k) {
          const int child = t.child(k);
          if (child < 0) continue;
          const BinomialTree c(n, child, root);
          EXPECT_EQ(c.parent(), rank) << n << " " << root << " " << rank << " " << k;
          EXPECT_EQ(c.parent_log2(), k);
          EXPECT_EQ(c.subtree(), t.child_subtree(k));
          below += t.child_subtree(k);
          ++edges_per_level[t.height() - k];
        }
        EXPECT_EQ(below, t.subtree());
        EXPECT_EQ(t.is_root(), rank == root);
      }
      EXPECT_EQ(BinomialTree(n, root, root).subtree(), n);
      int edges = 0;
      for (int e : edges_per_level) edges += e;
      EXPECT_EQ(edges, n - 1);
      if (n > 1) {
        EXPECT_EQ(edges_per_level[1], 1) << "the root's level";
      }
    }
  }
  // The lower S levels are the short distances.
  EXPECT_TRUE(BinomialTree::upper(2, 1));
  EXPECT_FALSE(BinomialTree::upper(0, 1));
}

TEST(CorePlacement, FreeCoresFirstThenTheLeastLoaded) {
  // 2 ranks bound to cores 0 and 1 of 4: threads on the free cores 2 and 3.
  CorePlan plan = plan_progress_cores(4, {{0}, {1}});
  EXPECT_EQ(plan.free_cores, 2);
  EXPECT_EQ(plan.thread_core, (std::vector<int>{2, 3}));
  // 3 ranks bound to 0, 1, 2 of 4: one free core, the threads share it, then the least loaded.
  plan = plan_progress_cores(4, {{0}, {1}, {2}});
  EXPECT_EQ(plan.free_cores, 1);
  EXPECT_EQ(plan.thread_core, (std::vector<int>{3, 0, 1}));
  // Unbound ranks (oversubscribed): no free core, threads spread.
  plan = plan_progress_cores(2, {{}, {}, {}, {}});
  EXPECT_EQ(plan.free_cores, 0);
  EXPECT_EQ(plan.thread_core, (std::vector<int>{0, 1, 0, 1}));
  // A rank bound to two cores loads each by half.
  plan = plan_progress_cores(3, {{0, 1}, {2}});
  EXPECT_EQ(plan.free_cores, 0);
  EXPECT_EQ(plan.thread_core, (std::vector<int>{0, 1}));
  EXPECT_TRUE(plan_progress_cores(0, {{}}).thread_core.empty());
}
