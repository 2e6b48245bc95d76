#include "split_tree_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mpimon::splittree {

int tree_height(int n) {
  int h = 0;
  while (h < 31 && (1 << h) < n) ++h;
  return h;
}

namespace {

int floor_log2(int n) {
  int f = 0;
  while ((2 << f) <= n) ++f;
  return f;
}

// Blocks a transfer at `level` carries.
double level_weight(int h, int level, BufferGrowth growth) {
  return growth == BufferGrowth::constant ? 1.0 : std::ldexp(1.0, h - level);
}

// Time of the lower S levels, on the application's cores (not folded).
double lower_levels_time(int h, int s, BufferGrowth growth) {
  double t = 0;
  for (int level = std::max(1, h - s + 1); level <= h; ++level) t += level_weight(h, level, growth);
  return t;
}

}  // namespace

double level_transfers(int n, int level) {
  const int h = tree_height(n);
  const int r = n - (1 << floor_log2(n));  // R(N): leaves off the largest complete subtree
  const double complete = std::ldexp(1.0, floor_log2(n) - (h - level + 1));
  const long long rest = (static_cast<long long>(r) + (1LL << (h - level))) / (1LL << (h - level + 1));
  return complete + static_cast<double>(rest);
}

double blocking_time(int n, BufferGrowth growth) { return lower_levels_time(tree_height(n), tree_height(n), growth); }

double computation_time(const ModelInput& in) {
  const double n_proc = in.ranks + in.comm_cores;
  // T_blocking at N_proc: H(N_proc) = ceil(log2 N_proc) levels.
  const int h_proc = static_cast<int>(std::ceil(std::log2(std::max(1.0, n_proc)) - 1e-12));
  return n_proc / std::max(1, in.ranks) * lower_levels_time(h_proc, h_proc, in.growth);
}

double upper_levels_time(const ModelInput& in, int s) {
  const int h = tree_height(in.ranks);
  const int upper = std::max(0, h - s);
  if (upper == 0) return 0;
  if (in.comm_cores <= 0) return std::numeric_limits<double>::infinity();
  double t = 0;
  for (int level = 1; level <= upper; ++level)
    t += std::ceil(level_transfers(in.ranks, level) / in.comm_cores) * level_weight(h, level, in.growth);
  return t;
}

double nonblocking_time(const ModelInput& in, int s) {
  const int h = tree_height(in.ranks);
  return lower_levels_time(h, std::min(s, h), in.growth) + upper_levels_time(in, s);
}

double overlapped_time(const ModelInput& in, int s) {
  const int h = tree_height(in.ranks);
  return lower_levels_time(h, std::min(s, h), in.growth) + std::max(computation_time(in), upper_levels_time(in, s));
}

int best_levels(const ModelInput& in) {
  const int h = tree_height(in.ranks);
  int best = h;
  double best_time = overlapped_time(in, h);
  for (int s = h - 1; s >= 0; --s) {
    const double t = overlapped_time(in, s);
    if (t <= best_time) {
      best = s;
      best_time = t;
    }
  }
  return best;
}

double communication_cores(int ranks, int ranks_on_host, int free_cores) {
  if (ranks_on_host <= 0 || free_cores <= 0) return 0;
  return static_cast<double>(free_cores) * ranks / ranks_on_host;
}

}  // namespace mpimon::splittree
