// Conformance of the MPI_T events library with MPI 4.0, 3. Indices: suite Indices, as
// docs/events.md ("Semantics kept") states it. One behaviour per test.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "communication_events.h"
#include "conformance_support.h"

using namespace events_test;

TEST(Indices, StableAcrossInitFinalizeCycles) {
  type("ev_index_cycle", source("src_index"));
  const int n = num_types();
  std::vector<std::string> before;
  for (int i = 0; i < n; ++i) before.push_back(type_name(i));
  for (int cycle = 0; cycle < 3; ++cycle) {
    ASSERT_EQ(MPI_SUCCESS, MPI_T_finalize());
    int provided;
    ASSERT_EQ(MPI_SUCCESS, MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
    ASSERT_EQ(n, num_types());
    for (int i = 0; i < n; ++i) EXPECT_EQ(before[i], type_name(i));
  }
}

TEST(Indices, NamesAreUniqueAndRoundTrip) {
  const int n = num_types();
  std::set<std::string> names;
  for (int i = 0; i < n; ++i) {
    const std::string name = type_name(i);
    EXPECT_TRUE(names.insert(name).second) << name;
    int index = -1;
    EXPECT_EQ(MPI_SUCCESS, MPI_T_event_get_index(name.c_str(), &index));
    EXPECT_EQ(i, index);
  }
}

TEST(Indices, UnknownNameIsInvalidName) {
  int index;
  EXPECT_EQ(MPI_T_ERR_INVALID_NAME, MPI_T_event_get_index("no_such_event", &index));
  EXPECT_EQ(MPI_T_ERR_INVALID, MPI_T_event_get_index(nullptr, &index));
  EXPECT_EQ(MPI_T_ERR_INVALID, MPI_T_event_get_index(MPIMON_EVENT_COLL_BEGIN, nullptr));
}

TEST(Indices, RegisteringANameAgainReturnsItsIndex) {
  const int s = source("src_again");
  EXPECT_EQ(s, source("src_again"));
  const int t = type("ev_again", s);
  EXPECT_EQ(t, type("ev_again", s));
}
