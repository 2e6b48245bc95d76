// The event-type template (templates/event_type/template_events.h), seen as a tool sees it:
// found by name through MPI_T, raised only while a callback is registered, its payload
// read element by element. Runs under MPI_T only (a singleton, no mpirun).
#include "event_type/template_events.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "mpit_events.h"

namespace {

struct Seen {
  std::vector<int32_t> peers;
  std::vector<uint64_t> bytes;
  static void callback(MPI_T_event_instance instance, MPI_T_event_registration, MPI_T_cb_safety, void* self) {
    auto* seen = static_cast<Seen*>(self);
    int32_t peer = -1;
    uint64_t bytes = 0;
    MPI_T_event_read(instance, 0, &peer);
    MPI_T_event_read(instance, 1, &bytes);
    seen->peers.push_back(peer);
    seen->bytes.push_back(bytes);
  }
};

int template_index() {
  int index = -1;
  EXPECT_EQ(MPI_SUCCESS, MPI_T_event_get_index(MPIMON_EVENT_TEMPLATE_HAPPENED, &index));
  return index;
}

TEST(TemplateEvents, ATypeToolsFindByName) {
  const int index = template_index();
  ASSERT_GE(index, 0);
  int elements = 8;
  MPI_Datatype types[8];
  MPI_Aint displacements[8];
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_info(index, nullptr, nullptr, nullptr, types, displacements, &elements,
                                              nullptr, nullptr, nullptr, nullptr, nullptr));
  EXPECT_EQ(2, elements);
  EXPECT_EQ(MPI_INT32_T, types[0]);
  EXPECT_EQ(MPI_UINT64_T, types[1]);
  EXPECT_EQ(8, displacements[1]);
}

TEST(TemplateEvents, RaisedOnlyWhileACallbackIsRegistered) {
  Seen seen;
  mpimon_template_raise(1, 10);  // nobody listens: dropped before any work
  MPI_T_event_registration reg = nullptr;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_handle_alloc(template_index(), nullptr, MPI_INFO_NULL, &reg));
  ASSERT_EQ(MPI_SUCCESS,
            MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &seen, Seen::callback));
  mpimon_template_raise(2, 20);
  mpimon_template_raise(3, 30);
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_handle_free(reg, nullptr, nullptr));
  mpimon_template_raise(4, 40);  // freed: nobody listens again
  EXPECT_EQ((std::vector<int32_t>{2, 3}), seen.peers);
  EXPECT_EQ((std::vector<uint64_t>{20, 30}), seen.bytes);
}

}  // namespace

int main(int argc, char** argv) {
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);  // containers run tests as root
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  ::testing::InitGoogleTest(&argc, argv);
  if (::testing::GTEST_FLAG(list_tests)) return RUN_ALL_TESTS();  // ctest's discovery: no MPI_T
  int provided = 0;
  if (MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) return 2;
  mpimon_register_template_events();  // a layer's component does this when it opens
  const int rc = RUN_ALL_TESTS();
  MPI_T_finalize();
  return rc;
}
