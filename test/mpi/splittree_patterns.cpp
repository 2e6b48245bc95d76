// coll/splittree against Open MPI: every root, several sizes and datatypes, in place or
// not, each nonblocking collective the split tree implements is compared with Open MPI's
// blocking one on the same data (integers and everything that is not a floating-point
// sum: byte for byte, gaps of derived datatypes included; floating-point sums: within
// what another reduction order can change). Prints "rank <r>: OK <mode>" or what differed.
//
//   splittree_patterns results    (run under MPI_THREAD_MULTIPLE, or the lower level given
//   splittree_patterns results single   by "single": then Open MPI's own algorithm runs)
#include <mpi.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "scenario.h"

namespace {

using scenario::check;
using scenario::rank;
using scenario::size;

struct Type {
  const char* name;
  MPI_Datatype type;
  size_t element;  // bytes of one element (of the basic type)
  int stride;      // elements between two of the datatype's elements (1: contiguous)
  bool floating;
};

// A filler that differs per rank and position, fits every type, and keeps float sums exact
// enough to compare.
void fill(std::vector<char>& buffer, const Type& t, int seed) {
  for (size_t i = 0; i * t.element < buffer.size(); ++i) {
    const long long v = (seed * 7919LL + static_cast<long long>(i) * 104729LL) % 1000 - 500;
    char* at = buffer.data() + i * t.element;
    if (t.floating && t.element == sizeof(double)) {
      const double d = static_cast<double>(v) / 7.0;
      std::memcpy(at, &d, sizeof d);
    } else if (t.floating) {
      const float f = static_cast<float>(v) / 7.0f;
      std::memcpy(at, &f, sizeof f);
    } else if (t.element == sizeof(long long)) {
      std::memcpy(at, &v, sizeof v);
    } else {
      const int x = static_cast<int>(v);
      std::memcpy(at, &x, sizeof x);
    }
  }
}

double value(const std::vector<char>& b, const Type& t, size_t i) {
  if (t.element == sizeof(double)) {
    double d;
    std::memcpy(&d, b.data() + i * t.element, sizeof d);
    return d;
  }
  float f;
  std::memcpy(&f, b.data() + i * t.element, sizeof f);
  return f;
}

// Equal, or (floating-point sums) within n ulps of the magnitude summed.
bool same(const std::vector<char>& got, const std::vector<char>& want, const Type& t, bool float_sum,
          std::string& why) {
  if (!float_sum) {
    if (got == want) return true;
    for (size_t i = 0; i < got.size(); ++i)
      if (got[i] != want[i]) {
        why = "byte " + std::to_string(i);
        break;
      }
    return false;
  }
  const double eps = t.element == sizeof(double) ? DBL_EPSILON : FLT_EPSILON;
  for (size_t i = 0; i * t.element < got.size(); ++i) {
    const double a = value(got, t, i), b = value(want, t, i);
    if (std::fabs(a - b) > 4.0 * size * eps * (std::fabs(b) + 500.0 / 7.0 * size)) {
      why = "element " + std::to_string(i) + ": " + std::to_string(a) + " vs " + std::to_string(b);
      return false;
    }
  }
  return true;
}

void wait(MPI_Request* r) { MPI_Wait(r, MPI_STATUS_IGNORE); }

// A non-commutative, associative operation: 2x2 integer matrix products (wrapping).
void matrix_product(void* in, void* inout, int* len, MPI_Datatype*) {
  auto* a = static_cast<unsigned*>(in);
  auto* b = static_cast<unsigned*>(inout);
  for (int m = 0; m < *len / 4; ++m, a += 4, b += 4) {
    const unsigned r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                           a[2] * b[1] + a[3] * b[3]};
    std::memcpy(b, r, sizeof r);
  }
}

// A commutative operation of our own: wrapping integer sum.
void wrapping_sum(void* in, void* inout, int* len, MPI_Datatype*) {
  for (int i = 0; i < *len; ++i) static_cast<unsigned*>(inout)[i] += static_cast<const unsigned*>(in)[i];
}

void results() {
  const MPI_Comm w = MPI_COMM_WORLD;
  MPI_Datatype strided;  // every other int (a derived type with gaps)
  MPI_Type_vector(3, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  const std::vector<Type> types = {{"int", MPI_INT, sizeof(int), 1, false},
                                   {"long long", MPI_LONG_LONG, sizeof(long long), 1, false},
                                   {"double", MPI_DOUBLE, sizeof(double), 1, true},
                                   {"float", MPI_FLOAT, sizeof(float), 1, true},
                                   {"vector of int", strided, sizeof(int), 2, false}};
  MPI_Op matrix, mine;
  MPI_Op_create(matrix_product, 0, &matrix);
  MPI_Op_create(wrapping_sum, 1, &mine);
  MPI_Request r;
  for (const Type& t : types) {
    MPI_Aint lb = 0, extent = 0;
    MPI_Type_get_extent(t.type, &lb, &extent);
    const size_t item_span = static_cast<size_t>(extent);  // the vector of int: 5 ints, 2 of them gaps
    for (int count : {0, 1, 7, 1000, 40000}) {
      if (t.type == strided && count > 1000) continue;
      const size_t bytes = item_span * static_cast<size_t>(count) * size + 64;
      const std::string what = std::string(t.name) + " x" + std::to_string(count);
      std::vector<char> send(bytes), got(bytes), want(bytes);
      fill(send, t, rank);
      for (int root = 0; root < size; ++root) {
        // bcast
        fill(got, t, rank == root ? 1000 : rank);
        want = got;
        MPI_Ibcast(got.data(), count, t.type, root, w, &r);
        wait(&r);
        MPI_Bcast(want.data(), count, t.type, root, w);
        std::string why;
        check(same(got, want, t, false, why), "ibcast " + what + " root " + std::to_string(root) + ": " + why);
        // reduce: sum, max, and (integers) our own commutative op and a non-commutative one
        // (predefined operations are for predefined datatypes only)
        std::vector<std::pair<MPI_Op, const char*>> ops;
        if (t.type != strided) ops = {{MPI_SUM, "sum"}, {MPI_MAX, "max"}};
        if (t.type == MPI_INT) ops.push_back({mine, "user sum"});
        if (t.type == MPI_INT && count % 4 == 0) ops.push_back({matrix, "non-commutative"});
        for (const auto& [op, op_name] : ops) {
          const bool float_sum = t.floating && op == MPI_SUM;
          for (int in_place = 0; in_place < 2; ++in_place) {
            std::fill(got.begin(), got.end(), 0x55);
            want = got;
            const bool root_in_place = in_place && rank == root;
            if (root_in_place) {
              std::memcpy(got.data(), send.data(), bytes);
              std::memcpy(want.data(), send.data(), bytes);
            }
            MPI_Ireduce(root_in_place ? MPI_IN_PLACE : send.data(), got.data(), count, t.type, op, root, w, &r);
            wait(&r);
            MPI_Reduce(root_in_place ? MPI_IN_PLACE : send.data(), want.data(), count, t.type, op, root, w);
            const std::string name = std::string("ireduce ") + op_name + (in_place ? " in place " : " ") + what +
                                     " root " + std::to_string(root);
            if (rank == root) check(same(got, want, t, float_sum, why), name + ": " + why);
            if (root != 0) continue;  // allreduce has no root: once
            std::fill(got.begin(), got.end(), 0x55);
            want = got;
            if (in_place) {
              std::memcpy(got.data(), send.data(), bytes);
              std::memcpy(want.data(), send.data(), bytes);
            }
            MPI_Iallreduce(in_place ? MPI_IN_PLACE : send.data(), got.data(), count, t.type, op, w, &r);
            wait(&r);
            MPI_Allreduce(in_place ? MPI_IN_PLACE : send.data(), want.data(), count, t.type, op, w);
            check(same(got, want, t, float_sum, why),
                  std::string("iallreduce ") + op_name + (in_place ? " in place " : " ") + what + ": " + why);
          }
        }
        // gather and scatter: `count` items per rank (the root's buffer holds size blocks)
        for (int in_place = 0; in_place < 2; ++in_place) {
          const bool root_in_place = in_place && rank == root;
          const size_t block = item_span * static_cast<size_t>(count);
          std::fill(got.begin(), got.end(), 0x33);
          want = got;
          if (root_in_place) {  // the root's own block already in place
            std::memcpy(got.data() + root * block, send.data(), block);
            std::memcpy(want.data() + root * block, send.data(), block);
          }
          MPI_Igather(root_in_place ? MPI_IN_PLACE : send.data(), count, t.type, got.data(), count, t.type, root, w,
                      &r);
          wait(&r);
          MPI_Gather(root_in_place ? MPI_IN_PLACE : send.data(), count, t.type, want.data(), count, t.type, root, w);
          const std::string suffix = (in_place ? " in place " : " ") + what + " root " + std::to_string(root);
          if (rank == root) check(same(got, want, t, false, why), "igather" + suffix + ": " + why);
          std::fill(got.begin(), got.end(), 0x44);
          want = got;
          MPI_Iscatter(send.data(), count, t.type, root_in_place ? MPI_IN_PLACE : got.data(), count, t.type, root, w,
                       &r);
          wait(&r);
          MPI_Scatter(send.data(), count, t.type, root_in_place ? MPI_IN_PLACE : want.data(), count, t.type, root, w);
          check(same(got, want, t, false, why), "iscatter" + suffix + ": " + why);
        }
      }
    }
  }
  // Several at once, completed in reverse order, on two communicators.
  MPI_Comm dup;
  MPI_Comm_dup(w, &dup);
  std::vector<int> a(5000, rank), b(5000, rank + 1), c(5000), d(5000);
  MPI_Request several[3];
  MPI_Iallreduce(a.data(), c.data(), 5000, MPI_INT, MPI_SUM, w, &several[0]);
  MPI_Iallreduce(b.data(), d.data(), 5000, MPI_INT, MPI_SUM, dup, &several[1]);
  std::vector<int> e(5000, rank == size - 1 ? 9 : 0);
  MPI_Ibcast(e.data(), 5000, MPI_INT, size - 1, dup, &several[2]);
  for (int i = 2; i >= 0; --i) wait(&several[i]);
  check(c[4999] == size * (size - 1) / 2 && d[0] == size * (size + 1) / 2 && e[123] == 9, "three pending at once");
  MPI_Comm_free(&dup);
  MPI_Op_free(&matrix);
  MPI_Op_free(&mine);
  MPI_Type_free(&strided);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const bool single = argc > 2 && std::string(argv[2]) == "single";
  scenario::init(argc, argv, single ? MPI_THREAD_SINGLE : MPI_THREAD_MULTIPLE);
  if (mode == "results") {
    results();
  } else {
    std::fprintf(stderr, "splittree_patterns: unknown mode '%s'\n", mode.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return scenario::report_and_finalize(mode);
}
