// The split-tree model of Denis, Jaeger, Jeannot, Pérache, Taboada (Euro-Par 2018,
// "Dynamic Placement of Progress Thread for Overlapping MPI Non-Blocking Collectives on
// Manycore Processor"), section 4, equations 1-5, and the choice of S it supports. Pure.
//
// Unit of time: the point-to-point transfer of one buffer of the collective's size; the
// tree is binomial with H(N) = ceil(log2 N) levels; S levels (the lower ones) run on the
// application's cores, the upper H - S on P(N) communication cores, where a level of F
// transfers takes ceil(F / P) units. Computation is sized so that it equals the blocking
// collective on all N_proc = N + P cores: C(N_proc) = T_blocking(N_proc), and the same
// global work is shared by N ranks: C(N) = N_proc / N * C(N_proc). (Equation 2 is printed
// as N / N_proc; the paper's text - "when we have less MPI tasks, the duration of
// computation increases" - and its Figure 3, whose minimum is at S = 0, N = 51 on 64
// cores, need N_proc / N. Our unit test checks that minimum and the section's S choices.)
//
// Collectives whose buffers double at each level towards the root (gather, scatter):
// section 4's extension, as we read it: a transfer at level i (1 = the root's) carries
// 2^(H-i) blocks, so each level's time is multiplied by that, and the unit is one block.
#pragma once

#include <vector>

namespace mpimon::splittree {

enum class BufferGrowth { constant, doubling };  // bcast/reduce/allreduce; gather/scatter

// H(N) = ceil(log2 N) (0 for N <= 1).
int tree_height(int n);
// Equation 3: F(N, i), transfers at level i (1 = the root's level), as the paper writes it
// (a real number: its first term is a half at level 1 when N is no power of two).
double level_transfers(int n, int level);

struct ModelInput {
  int ranks = 0;          // N: the communicator's size
  double comm_cores = 0;  // P(N): cores running the upper levels (progress threads)
  BufferGrowth growth = BufferGrowth::constant;
};

// Equation 1 (in the growth's unit).
double blocking_time(int n, BufferGrowth growth);
// Equation 2: C(N), with N_proc = N + P (see above).
double computation_time(const ModelInput& in);
// The upper H - S levels folded on P cores: the sum of equation 4.
double upper_levels_time(const ModelInput& in, int s);
// Equation 4: the nonblocking collective alone; infinite when P = 0 and S < H.
double nonblocking_time(const ModelInput& in, int s);
// Equation 5: computation overlapped with the collective.
double overlapped_time(const ModelInput& in, int s);

// The S in 0..H that minimises equation 5 (the smallest on ties: more overlap); H when
// there is no communication core.
int best_levels(const ModelInput& in);

// P(N) for a communicator of `ranks` members, `ranks_on_host` of them on this host, which
// has `free_cores` cores no rank is bound to: the free cores of every host the
// communicator spans, assuming its hosts alike (one host: free_cores itself).
double communication_cores(int ranks, int ranks_on_host, int free_cores);

}  // namespace mpimon::splittree
