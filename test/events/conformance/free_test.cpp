// Conformance of the MPI_T events library with MPI 4.0, 6. Free: suite Free, as
// docs/events.md ("Semantics kept") states it. One behaviour per test.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "conformance_support.h"

using namespace events_test;

namespace {
struct FreeProbe {
  std::atomic<int> free_calls{0};
  std::atomic<int> events{0};
  std::atomic<int> events_after_free{0};
  MPI_T_cb_safety free_safety = MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE;
  static void free_cb(MPI_T_event_registration, MPI_T_cb_safety safety, void* self) {
    auto* p = static_cast<FreeProbe*>(self);
    p->free_safety = safety;
    p->free_calls.fetch_add(1);
  }
  static void event(MPI_T_event_instance, MPI_T_event_registration, MPI_T_cb_safety, void* self) {
    auto* p = static_cast<FreeProbe*>(self);
    if (p->free_calls.load() != 0) p->events_after_free.fetch_add(1);
    p->events.fetch_add(1);
  }
  static void frees_itself(MPI_T_event_instance instance, MPI_T_event_registration reg, MPI_T_cb_safety, void* self) {
    auto* p = static_cast<FreeProbe*>(self);
    p->events.fetch_add(1);
    int64_t serial = 0;
    EXPECT_EQ(MPI_SUCCESS, MPI_T_event_handle_free(reg, self, free_cb));
    EXPECT_EQ(0, p->free_calls.load());                              // not while its own callback runs
    EXPECT_EQ(MPI_SUCCESS, MPI_T_event_read(instance, 2, &serial));  // the instance is still valid
  }
};
}  // namespace

TEST(Free, FreeCallbackRunsOnceWhenIdle) {
  const int t = type("ev_free_idle", source("src_free"));
  FreeProbe p;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &p, FreeProbe::event);
  raise(t, 1);
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_handle_free(reg, &p, FreeProbe::free_cb));
  EXPECT_EQ(1, p.free_calls.load());
  EXPECT_EQ(MPI_T_CB_REQUIRE_NONE, p.free_safety);
  raise(t, 2);
  EXPECT_EQ(1, p.events.load());
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_handle_free(reg, &p, FreeProbe::free_cb));
  EXPECT_EQ(1, p.free_calls.load());
}

TEST(Free, FreedInsideItsOwnCallbackThenFreeCallbackAfterItReturns) {
  const int t = type("ev_free_own", source("src_free"));
  FreeProbe p;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &p, FreeProbe::frees_itself);
  raise(t, 1, MPI_T_CB_REQUIRE_MPI_RESTRICTED);
  EXPECT_EQ(1, p.free_calls.load());
  EXPECT_EQ(MPI_T_CB_REQUIRE_MPI_RESTRICTED, p.free_safety);  // the delivering context
  raise(t, 2);
  EXPECT_EQ(1, p.events.load());
  EXPECT_EQ(1, p.free_calls.load());
}

TEST(Free, FreedHandleIsInvalidEverywhere) {
  const int t = type("ev_free_invalid", source("src_free"));
  MPI_T_event_registration reg = alloc(t);
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_handle_free(reg, nullptr, nullptr));
  MPI_Info info;
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_handle_get_info(reg, &info));
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_handle_set_info(reg, MPI_INFO_NULL));
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE,
            MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, nullptr, nullptr));
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_set_dropped_handler(reg, nullptr));
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_callback_get_info(reg, MPI_T_CB_REQUIRE_NONE, &info));
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_handle_free(nullptr, nullptr, nullptr));
}

TEST(Free, ExactlyOnceAfterTheLastDeliveryUnderConcurrentRaises) {
  const int t = type("ev_free_concurrent", source("src_free_concurrent", MPI_T_SOURCE_UNORDERED));
  for (int round = 0; round < 20; ++round) {
    FreeProbe p;
    MPI_T_event_registration reg = alloc(t);
    MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &p, FreeProbe::event);
    std::atomic<bool> stop{false};
    std::vector<std::thread> raisers;
    for (int i = 0; i < 4; ++i)
      raisers.emplace_back([&, i] {
        for (int64_t k = 0; !stop.load(); ++k)
          raise(t, k, i % 2 ? MPI_T_CB_REQUIRE_THREAD_SAFE : MPI_T_CB_REQUIRE_NONE);
      });
    while (p.events.load() < 50) std::this_thread::yield();
    ASSERT_EQ(MPI_SUCCESS, MPI_T_event_handle_free(reg, &p, FreeProbe::free_cb));
    stop = true;
    for (auto& r : raisers) r.join();
    mpimon_events_drain(MPI_T_CB_REQUIRE_NONE);
    EXPECT_EQ(1, p.free_calls.load());
    EXPECT_EQ(0, p.events_after_free.load());
  }
}

TEST(Free, FreedInsideOwnCallbackUnderConcurrentRaises) {
  const int t = type("ev_free_own_concurrent", source("src_free_own_concurrent"));
  for (int round = 0; round < 20; ++round) {
    FreeProbe p;
    MPI_T_event_registration reg = alloc(t);
    MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &p, FreeProbe::frees_itself);
    std::atomic<bool> stop{false};
    std::vector<std::thread> raisers;
    for (int i = 0; i < 4; ++i)
      raisers.emplace_back([&] {
        for (int64_t k = 0; !stop.load() && k < 100000; ++k) raise(t, k, MPI_T_CB_REQUIRE_THREAD_SAFE);
      });
    while (p.free_calls.load() == 0) std::this_thread::yield();
    stop = true;
    for (auto& r : raisers) r.join();
    EXPECT_EQ(1, p.events.load());
    EXPECT_EQ(1, p.free_calls.load());
  }
}

namespace {
// Two registrations of one type: the first one's callback frees the second.
struct FreesOther {
  MPI_T_event_registration other = nullptr;
  FreeProbe* other_probe = nullptr;
  std::atomic<int> events{0};
  static void event(MPI_T_event_instance, MPI_T_event_registration, MPI_T_cb_safety, void* self) {
    auto* f = static_cast<FreesOther*>(self);
    f->events.fetch_add(1);
    if (f->other != nullptr) {
      EXPECT_EQ(MPI_SUCCESS, MPI_T_event_handle_free(f->other, f->other_probe, FreeProbe::free_cb));
      f->other = nullptr;
    }
  }
};
}  // namespace

TEST(Free, FreedByAnEarlierRegistrationsCallbackReceivesNothingMore) {
  const int t = type("ev_free_other", source("src_free_other"));
  FreesOther first;
  FreeProbe second;
  MPI_T_event_registration a = alloc(t), b = alloc(t);
  first.other = b;
  first.other_probe = &second;
  MPI_T_event_register_callback(a, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &first, FreesOther::event);
  MPI_T_event_register_callback(b, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &second, FreeProbe::event);
  raise(t, 1, MPI_T_CB_REQUIRE_MPI_RESTRICTED);  // a (frees b), then not b
  EXPECT_EQ(1, first.events.load());
  EXPECT_EQ(0, second.events.load());
  EXPECT_EQ(1, second.free_calls.load());  // once the delivery is over
  EXPECT_EQ(MPI_T_CB_REQUIRE_MPI_RESTRICTED, second.free_safety);
  raise(t, 2);
  EXPECT_EQ(2, first.events.load());
  EXPECT_EQ(0, second.events.load());
  EXPECT_EQ(1, second.free_calls.load());
  MPI_T_event_handle_free(a, nullptr, nullptr);
}
