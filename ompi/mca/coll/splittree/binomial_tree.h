// The binomial tree of the split-tree collectives (the paper's Figure 1), over virtual
// ranks v = (rank - root) mod n. Pure.
//
// H = ceil(log2 n) levels. At level i (1 = the root's), distance d = 2^(H-i): every v that
// is a multiple of 2d sends to (bcast) or receives from (reduce) v + d when it exists.
// So v != 0 hangs below v - 2^t, t = the number of its trailing zero bits, and has the
// children v + 2^k for k < t (the root: k < H); its subtree is [v, v + 2^t) cut at n. An
// edge of distance 2^k runs on the progress thread (the upper levels) when k >= S, in the
// application's progress (the lower S levels) otherwise.
#pragma once

#include <algorithm>

namespace mpimon::splittree {

class BinomialTree {
 public:
  BinomialTree(int n, int rank, int root) : n_(n), v_((rank - root + n) % n), root_(root) {
    while (h_ < 31 && (1 << h_) < n_) ++h_;
    span_log2_ = v_ == 0 ? h_ : __builtin_ctz(static_cast<unsigned>(v_));
  }

  int size() const { return n_; }
  int height() const { return h_; }
  int vrank() const { return v_; }
  int rank_of(int vrank) const { return (vrank + root_) % n_; }
  bool is_root() const { return v_ == 0; }

  // log2 of the distance to the parent (the receive's level is height() - parent_log2()).
  int parent_log2() const { return span_log2_; }
  int parent() const { return rank_of(v_ - (1 << span_log2_)); }  // not for the root
  // The child at distance 2^k (k < parent_log2()), or -1 when beyond n.
  int child(int k) const { return v_ + (1 << k) < n_ ? rank_of(v_ + (1 << k)) : -1; }
  // Members of the subtree below the child at distance 2^k, itself included.
  int child_subtree(int k) const { return std::min(1 << k, n_ - v_ - (1 << k)); }
  // Members of this process's subtree, itself included.
  int subtree() const { return std::min(1 << span_log2_, n_ - v_); }

  // Whether an edge at distance 2^k belongs to the upper levels (progress thread).
  static bool upper(int k, int s) { return k >= s; }

 private:
  int n_, v_, root_, h_ = 0, span_log2_ = 0;
};

}  // namespace mpimon::splittree
