// Conformance of the MPI_T events library with MPI 4.0, 4. Callback selection: suite CallbackSelection, as
// docs/events.md ("Semantics kept") states it. One behaviour per test.
#include <gtest/gtest.h>

#include "conformance_support.h"

using namespace events_test;

TEST(CallbackSelection, EveryRaiseLevelAgainstEveryRegisteredLevel) {
  const int t = type("ev_select_pairs", source("src_select"));
  for (int registered = 0; registered < 4; ++registered) {
    for (int raised = 0; raised < 4; ++raised) {
      Recorder r;
      MPI_T_event_registration reg = alloc(t);
      ASSERT_EQ(MPI_SUCCESS, MPI_T_event_register_callback(reg, static_cast<MPI_T_cb_safety>(registered), MPI_INFO_NULL,
                                                           &r, Recorder::callback));
      raise(t, 1, static_cast<MPI_T_cb_safety>(raised));
      if (registered >= raised) {
        // Invoked at once, told the context's requirement.
        ASSERT_EQ(1, r.calls.load()) << registered << " " << raised;
        EXPECT_EQ(raised, r.seen[0].safety);
      } else {
        // Too lax for the context: buffered until a point that allows it.
        EXPECT_EQ(0, r.calls.load()) << registered << " " << raised;
        mpimon_events_drain(static_cast<MPI_T_cb_safety>(registered));
        ASSERT_EQ(1, r.calls.load()) << registered << " " << raised;
        EXPECT_EQ(registered, r.seen[0].safety);
      }
      ASSERT_EQ(MPI_SUCCESS, MPI_T_event_handle_free(reg, nullptr, nullptr));
    }
  }
}

TEST(CallbackSelection, LowestSufficientLevelIsChosen) {
  const int t = type("ev_select_lowest", source("src_select"));
  Recorder restricted, signal_safe;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_INFO_NULL, &restricted, Recorder::callback);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, MPI_INFO_NULL, &signal_safe,
                                Recorder::callback);
  raise(t, 1, MPI_T_CB_REQUIRE_NONE);
  raise(t, 2, MPI_T_CB_REQUIRE_MPI_RESTRICTED);
  raise(t, 3, MPI_T_CB_REQUIRE_THREAD_SAFE);
  raise(t, 4, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
  EXPECT_EQ(2, restricted.calls.load());
  EXPECT_EQ(2, signal_safe.calls.load());
  EXPECT_EQ(1, restricted.seen[0].serial);
  EXPECT_EQ(2, restricted.seen[1].serial);
  EXPECT_EQ(3, signal_safe.seen[0].serial);
  EXPECT_EQ(MPI_T_CB_REQUIRE_THREAD_SAFE, signal_safe.seen[0].safety);
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

TEST(CallbackSelection, NullFunctionUnregisters) {
  const int t = type("ev_select_null", source("src_select"));
  Recorder r;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  raise(t, 1);
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, nullptr));
  raise(t, 2);
  EXPECT_EQ(1, r.calls.load());
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

TEST(CallbackSelection, RegisteringAgainReplaces) {
  const int t = type("ev_select_replace", source("src_select"));
  Recorder first, second;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &first, Recorder::callback);
  raise(t, 1);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &second, Recorder::callback);
  raise(t, 2);
  EXPECT_EQ(1, first.calls.load());
  EXPECT_EQ(1, second.calls.load());
  EXPECT_EQ(2, second.seen[0].serial);
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

TEST(CallbackSelection, BadSafetyLevelIsInvalid) {
  const int t = type("ev_select_bad", source("src_select"));
  MPI_T_event_registration reg = alloc(t);
  Recorder r;
  EXPECT_EQ(MPI_T_ERR_INVALID,
            MPI_T_event_register_callback(reg, static_cast<MPI_T_cb_safety>(4), MPI_INFO_NULL, &r, Recorder::callback));
  EXPECT_EQ(MPI_T_ERR_INVALID, MPI_T_event_register_callback(reg, static_cast<MPI_T_cb_safety>(-1), MPI_INFO_NULL, &r,
                                                             Recorder::callback));
  MPI_Info info;
  EXPECT_EQ(MPI_T_ERR_INVALID, MPI_T_event_callback_get_info(reg, static_cast<MPI_T_cb_safety>(4), &info));
  EXPECT_EQ(MPI_T_ERR_INVALID, MPI_T_event_callback_set_info(reg, static_cast<MPI_T_cb_safety>(7), MPI_INFO_NULL));
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

TEST(CallbackSelection, BufferedInstancesDeliveredByTheLibrarysOwnEntryPoints) {
  const int t = type("ev_select_entry_drain", source("src_select_entry"));
  Recorder r;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  raise(t, 1, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
  EXPECT_EQ(0, r.calls.load());
  int n;
  MPI_T_event_get_num(&n);  // a safe point
  ASSERT_EQ(1, r.calls.load());
  EXPECT_EQ(MPI_T_CB_REQUIRE_NONE, r.seen[0].safety);
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}
