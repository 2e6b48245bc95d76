// What several suites of the events conformance suite ask the library (type names, sources,
// the number of types, our category), and DropLog, a callback recorder that also logs drops.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "events_test_support.h"

namespace events_test {

inline const MPI_Count kMaxCount = INT64_MAX;

inline std::string type_name(int index) {
  char name[256];
  int len = sizeof name;
  EXPECT_EQ(MPI_SUCCESS, MPI_T_event_get_info(index, name, &len, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                              nullptr, nullptr, nullptr));
  return name;
}

// Every registered source's ordering, by name.
inline std::map<std::string, MPI_T_source_order> sources_by_name() {
  std::map<std::string, MPI_T_source_order> sources;
  int n = 0;
  EXPECT_EQ(MPI_SUCCESS, MPI_T_source_get_num(&n));
  for (int i = 0; i < n; ++i) {
    char name[64];
    int len = sizeof name;
    MPI_T_source_order order;
    EXPECT_EQ(MPI_SUCCESS, MPI_T_source_get_info(i, name, &len, nullptr, nullptr, &order, nullptr, nullptr, nullptr));
    sources[name] = order;
  }
  return sources;
}

inline int num_types() {
  int n = -1;
  EXPECT_EQ(MPI_SUCCESS, MPI_T_event_get_num(&n));
  return n;
}

inline int our_category() {
  int n = 0;
  EXPECT_EQ(MPI_SUCCESS, MPI_T_category_get_num(&n));
  for (int i = 0; i < n; ++i) {
    char name[256];
    int len = sizeof name;
    int cvars, pvars, cats;
    if (MPI_T_category_get_info(i, name, &len, nullptr, nullptr, &cvars, &pvars, &cats) != MPI_SUCCESS) continue;
    if (std::string(name) == "mpimon_events") return i;
  }
  return -1;
}

struct DropLog {
  std::vector<std::string> log;  // "drop:<count>:<source>" / "event:<serial>" in order
  std::vector<void*> drop_user_data;
  static void event(MPI_T_event_instance instance, MPI_T_event_registration, MPI_T_cb_safety, void* self) {
    int64_t serial;
    MPI_T_event_read(instance, 2, &serial);
    static_cast<DropLog*>(self)->log.push_back("event:" + std::to_string(serial));
  }
};

}  // namespace events_test
