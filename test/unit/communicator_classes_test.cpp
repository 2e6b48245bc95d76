// CommunicatorRegistry: per-communicator collective classes, their lifetime and dumps.
#include <gtest/gtest.h>

#include "analyses/communicator_classes.h"

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
  CommunicatorClasses* c = registry.open("my comm", {3, 5}, 7);
  c->add(CollectiveClass::all_to_all, 16);
  registry.open("idle", {3}, 1);  // one process, no traffic: nobody refers to it
  const std::string id = c->identity();
  EXPECT_EQ(format_job_communicators(3, registry),
            "collectives 3 " + id + " 0 0 0 0 1 16\ncommunicator " + id + " my%20comm 3,5\n");
  EXPECT_EQ(format_job_communicators(5, registry), "collectives 5 " + id + " 0 0 0 0 1 16\n");
}

TEST(CommunicatorClasses, IdentityIsTheContextIdAndAHashOfTheMembers) {
  const CommunicatorClasses a("MPI_COMMUNICATOR 4 SPLIT FROM 0", {0, 2, 4}, 4);
  EXPECT_EQ(a.identity().substr(0, 2), "4-");
  EXPECT_EQ(a.identity().size(), 2u + 16u);
  // Every member computes the same identity whatever it calls the communicator.
  EXPECT_EQ(CommunicatorClasses("renamed locally", {0, 2, 4}, 4).identity(), a.identity());
  // Open MPI reuses context ids and default names: other members, other identity.
  EXPECT_NE(CommunicatorClasses("MPI_COMMUNICATOR 4 SPLIT FROM 0", {1, 3, 5}, 4).identity(), a.identity());
  EXPECT_NE(CommunicatorClasses("MPI_COMMUNICATOR 4 SPLIT FROM 0", {0, 4, 2}, 4).identity(), a.identity());
  // The world and its duplicate: same members, other context id.
  EXPECT_NE(CommunicatorClasses("dup", {0, 2, 4}, 3).identity(), a.identity());
}

TEST(CommunicatorClasses, ReusedContextIdWithOtherMembersGivesTwoIdentitiesInTheJobFile) {
  // HPCC: two different "... 4 SPLIT FROM 0" communicators one after the other.
  CommunicatorRegistry registry;
  CommunicatorClasses* first = registry.open("MPI_COMMUNICATOR 4 SPLIT FROM 0", {0, 1}, 4);
  first->add(CollectiveClass::all_to_all, 8);
  const std::string first_id = first->identity();
  registry.close(first, "MPI_COMMUNICATOR 4 SPLIT FROM 0", 0);
  CommunicatorClasses* second = registry.open("MPI_COMMUNICATOR 4 SPLIT FROM 0", {0, 2}, 4);
  second->add(CollectiveClass::one_to_all, 4);
  const std::string second_id = second->identity();
  ASSERT_NE(first_id, second_id);
  EXPECT_EQ(format_job_communicators(0, registry), "collectives 0 " + first_id + " 0 0 0 0 1 8\ncommunicator " +
                                                       first_id +
                                                       " MPI_COMMUNICATOR%204%20SPLIT%20FROM%200 0,1\n"
                                                       "collectives 0 " +
                                                       second_id + " 1 4 0 0 0 0\ncommunicator " + second_id +
                                                       " MPI_COMMUNICATOR%204%20SPLIT%20FROM%200 0,2\n");
}

TEST(CommunicatorClasses, EntriesOfOneIdentityAreSummedOnOneLine) {
  CommunicatorRegistry registry;
  CommunicatorClasses* closed = registry.open("work", {0, 1}, 5);
  closed->add(CollectiveClass::all_to_all, 8);
  registry.close(closed, "work", 0);
  CommunicatorClasses* again = registry.open("work", {0, 1}, 5);  // dup, free, dup: same cid, same members
  again->add(CollectiveClass::all_to_all, 8);
  EXPECT_EQ(format_job_communicators(0, registry),
            "collectives 0 " + again->identity() + " 0 0 0 0 2 16\ncommunicator " + again->identity() + " work 0,1\n");
}

TEST(CommunicatorClasses, TheFirstMemberListsAFreedCommunicatorItSentNothingOn) {
  // A reduce's root sends nothing, yet the others' collectives lines refer to it.
  CommunicatorRegistry registry;
  CommunicatorClasses* root = registry.open("reduce comm", {2, 3}, 6);
  const std::string id = root->identity();
  registry.close(root, "reduce comm", 2);
  EXPECT_EQ(format_job_communicators(2, registry), "communicator " + id + " reduce%20comm 2,3\n");
  EXPECT_EQ(format_prof_communicators(2, registry), "") << "the .prof keeps only what had traffic, as before";
  CommunicatorRegistry other;
  other.close(other.open("reduce comm", {2, 3}, 6), "reduce comm", 3);
  EXPECT_EQ(other.size(), 0u) << "other members forget it";
}

}  // namespace
}  // namespace mpimon
