// CommunicatorRegistry: per-communicator collective classes, their lifetime and dumps.
#include <gtest/gtest.h>

#include "communicator_classes.h"

namespace mpimon {
namespace {

TEST(CommunicatorClasses, TotalsPerClass) {
  CommunicatorRegistry registry;
  CommunicatorClasses* world = registry.open("MPI_COMM_WORLD", {0, 1, 2, 3});
  world->add(CollectiveClass::one_to_all, 72);
  world->add(CollectiveClass::all_to_all, 120);
  world->add(CollectiveClass::all_to_all, 0);
  EXPECT_EQ(world->totals(CollectiveClass::one_to_all).count, 1u);
  EXPECT_EQ(world->totals(CollectiveClass::one_to_all).bytes, 72u);
  EXPECT_EQ(world->totals(CollectiveClass::all_to_one).count, 0u);
  EXPECT_EQ(world->totals(CollectiveClass::all_to_all).count, 2u);
  EXPECT_EQ(world->totals(CollectiveClass::all_to_all).bytes, 120u);
}

TEST(CommunicatorClasses, ClosedWithoutTrafficIsForgotten) {
  CommunicatorRegistry registry;
  registry.open("MPI_COMM_WORLD", {0, 1});
  registry.close(registry.open("MPI_COMMUNICATOR 3", {0, 1}), "MPI_COMMUNICATOR 3");
  EXPECT_EQ(registry.size(), 1u);
}

TEST(CommunicatorClasses, ClosedTwinsAreMergedSoRepeatedDupFreeStaysBounded) {
  CommunicatorRegistry registry;
  for (int i = 0; i < 1000; ++i) {
    CommunicatorClasses* dup = registry.open("MPI_COMMUNICATOR 3", {0, 1});
    dup->add(CollectiveClass::all_to_all, 8);
    registry.close(dup, "MPI_COMMUNICATOR 3");
  }
  ASSERT_EQ(registry.size(), 1u);
  registry.for_each([](const CommunicatorClasses& e) {
    EXPECT_EQ(e.totals(CollectiveClass::all_to_all).count, 1000u);
    EXPECT_EQ(e.totals(CollectiveClass::all_to_all).bytes, 8000u);
  });
}

TEST(CommunicatorClasses, ClosedEntriesWithOtherMembersStayApart) {
  CommunicatorRegistry registry;
  for (std::vector<int32_t> members : {std::vector<int32_t>{0, 1}, std::vector<int32_t>{0, 2}}) {
    CommunicatorClasses* c = registry.open("MPI_COMMUNICATOR 4", members);
    c->add(CollectiveClass::all_to_one, 4);
    registry.close(c, "MPI_COMMUNICATOR 4");
  }
  EXPECT_EQ(registry.size(), 2u);
}

TEST(CommunicatorClasses, ProfLinesAsOpenMpiPrintsThem) {
  CommunicatorRegistry registry;
  CommunicatorClasses* world = registry.open("MPI_COMM_WORLD", {0, 1, 2, 3});
  world->add(CollectiveClass::one_to_all, 72);
  registry.open("MPI_COMM_SELF", {2});
  EXPECT_EQ(format_prof_communicators(2, registry),
            "D\tMPI_COMM_WORLD\tprocs: 0,1,2,3\n"
            "O2A\t2\t72 bytes\t1 msgs sent\nA2O\t2\t0 bytes\t0 msgs sent\nA2A\t2\t0 bytes\t0 msgs sent\n"
            "D\tMPI_COMM_SELF\tprocs: 2\n"
            "O2A\t2\t0 bytes\t0 msgs sent\nA2O\t2\t0 bytes\t0 msgs sent\nA2A\t2\t0 bytes\t0 msgs sent\n");
}

TEST(CommunicatorClasses, JobLinesListMembersOnlyFromTheFirstMember) {
  CommunicatorRegistry registry;
  CommunicatorClasses* c = registry.open("my comm", {3, 5});
  c->add(CollectiveClass::all_to_all, 16);
  registry.open("idle", {3});
  EXPECT_EQ(format_job_communicators(3, registry), "collectives 3 my%20comm 0 0 0 0 1 16\ncommunicator my%20comm 3,5\n");
  EXPECT_EQ(format_job_communicators(5, registry), "collectives 5 my%20comm 0 0 0 0 1 16\n");
}

}  // namespace
}  // namespace mpimon
