// A BT-RMA-like kernel (Hermanns et al. 2009, section 5.2): a 3-D block-decomposed grid
// whose solver sweeps the three dimensions one after the other, exchanging boundary
// planes with the two neighbours of each dimension, then updates a right-hand side with
// a 7-point stencil and exchanges all six faces. The exchanges are one-sided, in four
// variants of synchronisation, as the paper's optimisation steps:
//
//   fence       every exchange puts, then MPI_Win_fence (one window)
//   gats_fence  solver exchanges with general active target synchronisation (post,
//               start, put, complete, wait with the two neighbours), face exchange with
//               fences (a second window)
//   gats        face exchange with GATS too, one window per neighbour direction (six);
//               the origins start their face epochs, put, compute the interior of the
//               next right-hand side, then complete (a long access epoch)
//   gats_opt    exposure epochs posted as early as possible (right after the previous
//               wait on that window) and access epochs shrunk to start, put, complete
//
// Every variant computes the same numbers: rank 0 prints a checksum that must not depend
// on the variant.
//
//   mpirun -np 4 --mca pml_monitoring_enable 2 --mca osc_monitoring_wait_states 1
//          bt_rma <variant> [iterations=100] [grid points per dimension=47]
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {

enum class Variant { fence, gats_fence, gats, gats_opt };

int rank = 0, size = 1;
MPI_Comm grid;
int dims[3] = {0, 0, 0}, coords[3];
int n[3];                // local points per dimension
int lower[3], upper[3];  // neighbours (periodic)

// u with a halo of one point on each side; index (i, j, k) in [-1, n].
std::vector<double> u, rhs;
size_t at(int i, int j, int k) { return (static_cast<size_t>(i + 1) * (n[1] + 2) + (j + 1)) * (n[2] + 2) + (k + 1); }

// A face: the plane of dimension d at index `plane` (-1 and n[d] are halos).
int face_points(int d) { return n[(d + 1) % 3] * n[(d + 2) % 3]; }
template <typename F>
void for_face(int d, int plane, F f) {
  const int a = (d + 1) % 3, b = (d + 2) % 3;
  int idx[3];
  idx[d] = plane;
  int p = 0;
  for (idx[a] = 0; idx[a] < n[a]; ++idx[a])
    for (idx[b] = 0; idx[b] < n[b]; ++idx[b]) f(at(idx[0], idx[1], idx[2]), p++);
}

// Solver sweep along dimension d: a forward elimination and a back substitution on each
// line (a tridiagonal system per line, as in the ADI solvers BT belongs to).
void solve_lines(int d) {
  const int a = (d + 1) % 3, b = (d + 2) % 3;
  std::vector<double> c(n[d]), x(n[d]);
  int idx[3];
  for (idx[a] = 0; idx[a] < n[a]; ++idx[a]) {
    for (idx[b] = 0; idx[b] < n[b]; ++idx[b]) {
      double prev_c = 0, prev_x = 0;
      for (int m = 0; m < n[d]; ++m) {  // forward: diagonal 4, off-diagonals -1
        idx[d] = m;
        const double denom = 4.0 + prev_c;
        c[m] = 1.0 / denom;
        x[m] = (rhs[at(idx[0], idx[1], idx[2])] + prev_x) / denom;
        prev_c = -c[m];
        prev_x = x[m];
      }
      for (int m = n[d] - 2; m >= 0; --m) x[m] += c[m] * x[m + 1];  // back substitution
      for (int m = 0; m < n[d]; ++m) {
        idx[d] = m;
        u[at(idx[0], idx[1], idx[2])] = 0.5 * u[at(idx[0], idx[1], idx[2])] + 0.5 * x[m];
      }
    }
  }
}

// The right-hand side from u and its halos (7-point stencil): the interior (points whose
// stencil stays inside the block, computable before the halos arrive) or the boundary
// shell (which needs them).
void update_rhs(bool interior) {
  for (int i = 0; i < n[0]; ++i)
    for (int j = 0; j < n[1]; ++j)
      for (int k = 0; k < n[2]; ++k) {
        const bool inner = i > 0 && i < n[0] - 1 && j > 0 && j < n[1] - 1 && k > 0 && k < n[2] - 1;
        if (inner != interior) continue;
        rhs[at(i, j, k)] = 0.1 * (u[at(i - 1, j, k)] + u[at(i + 1, j, k)] + u[at(i, j - 1, k)] + u[at(i, j + 1, k)] +
                                  u[at(i, j, k - 1)] + u[at(i, j, k + 1)]) +
                           0.4 * u[at(i, j, k)] + 1.0;  // a source: the solution tends to a steady state
      }
}

// ---------------------------------------------------------------------------------------
// One-sided exchanges. A receive slot per face: slot 2d+0 receives the plane coming from
// the lower neighbour of dimension d (it becomes halo -1), slot 2d+1 the one from the
// upper neighbour (halo n[d]). The fence variant's window holds two sets (solver, faces):
// a process leaving a fence may already put the next exchange's data while its
// neighbour still reads the last one, so consecutive exchanges must use other memory.

int max_face = 0;
MPI_Win solver_win = MPI_WIN_NULL, face_win = MPI_WIN_NULL;
std::array<MPI_Win, 6> face_wins;  // gats, gats_opt: one window per slot
double* solver_slots = nullptr;
double* face_slots = nullptr;
std::array<double*, 6> face_slot{};
std::vector<double> out;  // packed planes to put
MPI_Group group_of_dim[3], group_lower[3], group_upper[3];

MPI_Group group_of(std::vector<int> ranks) {
  MPI_Group all, g;
  MPI_Comm_group(grid, &all);
  MPI_Group_incl(all, static_cast<int>(ranks.size()), ranks.data(), &g);
  MPI_Group_free(&all);
  return g;
}

// The neighbours of dimension d, once each (they coincide when dims[d] <= 2).
std::vector<int> neighbours(int d) {
  std::vector<int> v{lower[d]};
  if (upper[d] != lower[d]) v.push_back(upper[d]);
  return v;
}

// Packs my plane next to `side` (0 lower, 1 upper) of dimension d into out[slot*max_face].
double* pack(int d, int side, int slot) {
  double* p = out.data() + static_cast<size_t>(slot) * max_face;
  for_face(d, side == 0 ? 0 : n[d] - 1, [&](size_t i, int k) { p[k] = u[i]; });
  return p;
}
void unpack(int d, const double* slots) {
  // (slots: the first of the six slots of this exchange)
  const double* from_lower = slots + static_cast<size_t>(2 * d) * max_face;
  const double* from_upper = slots + static_cast<size_t>(2 * d + 1) * max_face;
  for_face(d, -1, [&](size_t i, int k) { u[i] = from_lower[k]; });
  for_face(d, n[d], [&](size_t i, int k) { u[i] = from_upper[k]; });
}

// My lower plane goes to the lower neighbour's "from upper" slot, and the upper plane to
// the upper neighbour's "from lower" slot (of the slot set starting at `first_slot`).
void put_planes(int d, MPI_Win win, int first_slot = 0) {
  const int count = face_points(d);
  MPI_Put(pack(d, 0, 2 * d), count, MPI_DOUBLE, lower[d], static_cast<MPI_Aint>(first_slot + 2 * d + 1) * max_face,
          count, MPI_DOUBLE, win);
  MPI_Put(pack(d, 1, 2 * d + 1), count, MPI_DOUBLE, upper[d], static_cast<MPI_Aint>(first_slot + 2 * d) * max_face,
          count, MPI_DOUBLE, win);
}

// Solver exchange of dimension d.
void exchange_planes(Variant v, int d, bool& posted_ahead) {
  if (v == Variant::fence) {
    put_planes(d, solver_win);
    MPI_Win_fence(0, solver_win);
  } else {
    if (!posted_ahead) MPI_Win_post(group_of_dim[d], 0, solver_win);
    MPI_Win_start(group_of_dim[d], 0, solver_win);
    put_planes(d, solver_win);
    MPI_Win_complete(solver_win);
    MPI_Win_wait(solver_win);
    posted_ahead = false;
    if (v == Variant::gats_opt && d < 2) {  // the next sweep's exposure, at once
      MPI_Win_post(group_of_dim[d + 1], 0, solver_win);
      posted_ahead = true;
    }
  }
  unpack(d, solver_slots);
}

// Face exchange: the six faces, with the interior of the right-hand side computed where
// the variant puts it, its boundary once the faces arrived; `more`: another iteration
// follows (gats_opt posts its exposure at once).
void exchange_faces(Variant v, bool& faces_posted, bool more) {
  if (v == Variant::fence || v == Variant::gats_fence) {
    MPI_Win fence_win = v == Variant::fence ? solver_win : face_win;
    const int first_slot = v == Variant::fence ? 6 : 0;
    for (int d = 0; d < 3; ++d) put_planes(d, fence_win, first_slot);
    MPI_Win_fence(0, fence_win);
    for (int d = 0; d < 3; ++d)
      unpack(d, (v == Variant::fence ? solver_slots : face_slots) + static_cast<size_t>(first_slot) * max_face);
    update_rhs(true);
    update_rhs(false);
    return;
  }
  // Slot 2d+0 of window 2d+0 receives from the lower neighbour; my puts into window 2d+1
  // go to my lower neighbour (its "from upper"), into window 2d+0 to my upper neighbour.
  if (!faces_posted)
    for (int d = 0; d < 3; ++d) {
      MPI_Win_post(group_lower[d], 0, face_wins[2 * d]);
      MPI_Win_post(group_upper[d], 0, face_wins[2 * d + 1]);
    }
  if (v == Variant::gats_opt) update_rhs(true);  // outside any access epoch
  for (int d = 0; d < 3; ++d) {
    MPI_Win_start(group_upper[d], 0, face_wins[2 * d]);
    MPI_Win_start(group_lower[d], 0, face_wins[2 * d + 1]);
    const int count = face_points(d);
    MPI_Put(pack(d, 1, 2 * d + 1), count, MPI_DOUBLE, upper[d], 0, count, MPI_DOUBLE, face_wins[2 * d]);
    MPI_Put(pack(d, 0, 2 * d), count, MPI_DOUBLE, lower[d], 0, count, MPI_DOUBLE, face_wins[2 * d + 1]);
  }
  if (v == Variant::gats) update_rhs(true);  // inside the access epochs: they end late
  for (int w = 0; w < 6; ++w) MPI_Win_complete(face_wins[w]);
  for (int w = 0; w < 6; ++w) MPI_Win_wait(face_wins[w]);
  for (int d = 0; d < 3; ++d) {
    for_face(d, -1, [&](size_t i, int k) { u[i] = face_slot[2 * d][k]; });
    for_face(d, n[d], [&](size_t i, int k) { u[i] = face_slot[2 * d + 1][k]; });
  }
  update_rhs(false);
  faces_posted = false;
  if (v == Variant::gats_opt && more) {  // the next iteration's exposure, at once
    for (int d = 0; d < 3; ++d) {
      MPI_Win_post(group_lower[d], 0, face_wins[2 * d]);
      MPI_Win_post(group_upper[d], 0, face_wins[2 * d + 1]);
    }
    faces_posted = true;
  }
}

// The variant named on the command line; aborts the job on an unknown name.
Variant parse_variant(const std::string& name) {
  const std::pair<const char*, Variant> known[] = {{"fence", Variant::fence},
                                                   {"gats_fence", Variant::gats_fence},
                                                   {"gats", Variant::gats},
                                                   {"gats_opt", Variant::gats_opt}};
  const auto found = std::find_if(std::begin(known), std::end(known), [&](const auto& k) { return name == k.first; });
  if (found == std::end(known)) {
    std::fprintf(stderr, "bt_rma: unknown variant '%s' (fence, gats_fence, gats, gats_opt)\n", name.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return found->second;
}

// The periodic 3-D grid of ranks, this rank's block of `points`^3 with its initial values,
// the face size every rank agrees on, and the neighbour groups of the epochs.
void set_up_grid(int points) {
  MPI_Dims_create(size, 3, dims);
  const int periods[3] = {1, 1, 1};
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &grid);
  MPI_Comm_rank(grid, &rank);
  MPI_Cart_coords(grid, rank, 3, coords);
  for (int d = 0; d < 3; ++d) {
    n[d] = points / dims[d] + (coords[d] < points % dims[d] ? 1 : 0);  // uneven when not divisible
    MPI_Cart_shift(grid, d, 1, &lower[d], &upper[d]);
  }
  u.assign(static_cast<size_t>(n[0] + 2) * (n[1] + 2) * (n[2] + 2), 0.0);
  rhs.assign(u.size(), 0.0);
  for (int i = 0; i < n[0]; ++i)
    for (int j = 0; j < n[1]; ++j)
      for (int k = 0; k < n[2]; ++k)
        u[at(i, j, k)] = std::sin(0.1 * (i + coords[0] * 50)) + std::cos(0.07 * (j + coords[1] * 50)) + 0.01 * k;
  for (int d = 0; d < 3; ++d) max_face = std::max(max_face, face_points(d));
  // Every rank needs the same max_face: windows are addressed with it.
  MPI_Allreduce(MPI_IN_PLACE, &max_face, 1, MPI_INT, MPI_MAX, grid);
  out.assign(static_cast<size_t>(6) * max_face, 0.0);
  for (int d = 0; d < 3; ++d) {
    group_of_dim[d] = group_of(neighbours(d));
    group_lower[d] = group_of({lower[d]});
    group_upper[d] = group_of({upper[d]});
  }
}

// The variant's windows, named as the wait-state reports show them.
void allocate_windows(Variant v) {
  const MPI_Aint slots_bytes = static_cast<MPI_Aint>(6) * max_face * sizeof(double);
  MPI_Win_allocate(v == Variant::fence ? 2 * slots_bytes : slots_bytes, sizeof(double), MPI_INFO_NULL, grid,
                   &solver_slots, &solver_win);
  MPI_Win_set_name(solver_win, v == Variant::fence ? "exchange" : "solver");
  if (v == Variant::gats_fence) {
    MPI_Win_allocate(slots_bytes, sizeof(double), MPI_INFO_NULL, grid, &face_slots, &face_win);
    MPI_Win_set_name(face_win, "faces");
  } else if (v == Variant::gats || v == Variant::gats_opt) {
    static const char* names[6] = {"face x-", "face x+", "face y-", "face y+", "face z-", "face z+"};
    for (int w = 0; w < 6; ++w) {
      MPI_Win_allocate(static_cast<MPI_Aint>(max_face) * sizeof(double), sizeof(double), MPI_INFO_NULL, grid,
                       &face_slot[w], &face_wins[w]);
      MPI_Win_set_name(face_wins[w], names[w]);
    }
  }
}

// The timed iterations: per dimension a line solve and a plane exchange, then the faces.
double run_iterations(Variant v, int iterations) {
  if (v == Variant::fence) MPI_Win_fence(0, solver_win);
  if (v == Variant::gats_fence) MPI_Win_fence(0, face_win);
  bool posted_ahead = false, faces_posted = false;
  if (v == Variant::gats_opt) {
    MPI_Win_post(group_of_dim[0], 0, solver_win);
    posted_ahead = true;
  }

  MPI_Barrier(grid);
  const double start = MPI_Wtime();
  update_rhs(true);
  update_rhs(false);
  for (int it = 0; it < iterations; ++it) {
    for (int d = 0; d < 3; ++d) {
      solve_lines(d);
      exchange_planes(v, d, posted_ahead);
    }
    exchange_faces(v, faces_posted, it + 1 < iterations);
    if (v == Variant::gats_opt && it + 1 < iterations) {
      MPI_Win_post(group_of_dim[0], 0, solver_win);
      posted_ahead = true;
    }
  }
  return MPI_Wtime() - start;
}

// The sum of the solution over all ranks (the run's checksum, on rank 0).
double checksum() {
  double local = 0, total = 0;
  for (int i = 0; i < n[0]; ++i)
    for (int j = 0; j < n[1]; ++j)
      for (int k = 0; k < n[2]; ++k) local += u[at(i, j, k)];
  MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, grid);
  return total;
}

void free_windows_and_groups() {
  MPI_Win_free(&solver_win);
  if (face_win != MPI_WIN_NULL) MPI_Win_free(&face_win);
  for (MPI_Win& w : face_wins)
    if (w != MPI_WIN_NULL) MPI_Win_free(&w);
  for (int d = 0; d < 3; ++d) {
    MPI_Group_free(&group_of_dim[d]);
    MPI_Group_free(&group_lower[d]);
    MPI_Group_free(&group_upper[d]);
  }
  MPI_Comm_free(&grid);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string name = argc > 1 ? argv[1] : "fence";
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 100;
  const int points = argc > 3 ? std::atoi(argv[3]) : 47;
  const Variant v = parse_variant(name);
  face_wins.fill(MPI_WIN_NULL);
  set_up_grid(points);
  allocate_windows(v);
  const double seconds = run_iterations(v, iterations);
  const double total = checksum();
  if (rank == 0)
    std::printf("bt_rma %s: %d ranks (%dx%dx%d), %d iterations, %.3f s, checksum %.9e\n", name.c_str(), size, dims[0],
                dims[1], dims[2], iterations, seconds, total);
  free_windows_and_groups();
  MPI_Finalize();
  return 0;
}
