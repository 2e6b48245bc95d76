// Conformance of the MPI_T events library with MPI 4.0, Inside callbacks: suite InsideCallbacks, as
// docs/events.md ("Semantics kept") states it. One behaviour per test.
#include <gtest/gtest.h>

#include <vector>

#include "conformance_support.h"

using namespace events_test;

namespace {
struct AccessProbe {
  std::vector<int> codes;
  int allowed_num = -1;
  static void event(MPI_T_event_instance, MPI_T_event_registration reg, MPI_T_cb_safety, void* self) {
    auto* p = static_cast<AccessProbe*>(self);
    MPI_Info info;
    MPI_T_event_registration other;
    int n;
    p->codes = {
        MPI_T_event_handle_alloc(0, nullptr, MPI_INFO_NULL, &other),
        MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, nullptr, nullptr),
        MPI_T_event_set_dropped_handler(reg, nullptr),
        MPI_T_event_handle_get_info(reg, &info),
        MPI_T_event_get_info(0, nullptr, nullptr, &n, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                             nullptr),
        MPI_T_category_get_num_events(0, &n),
    };
    p->allowed_num = MPI_T_event_get_num(&n);
    mpimon_events_drain(MPI_T_CB_REQUIRE_NONE);  // a no-op inside a callback
  }
};
}  // namespace

TEST(InsideCallbacks, ConfigurationFunctionsAreNotAccessible) {
  const int t = type("ev_access", source("src_access"));
  AccessProbe p;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &p, AccessProbe::event);
  raise(t, 1);
  ASSERT_EQ(6u, p.codes.size());
  for (std::size_t i = 0; i < p.codes.size(); ++i) EXPECT_EQ(MPI_T_ERR_NOT_ACCESSIBLE, p.codes[i]) << "call #" << i;
  EXPECT_EQ(MPI_SUCCESS, p.allowed_num);
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}
