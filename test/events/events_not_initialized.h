// Calls each of the 20 events functions once with otherwise valid-looking arguments and
// returns their codes (all must be MPI_T_ERR_NOT_INITIALIZED outside MPI_T).
#pragma once

#include <vector>

#include "mpit_events.h"

inline std::vector<int> call_all_twenty() {
  int n = 0;
  MPI_Count c = 0;
  char buf[64];
  int len = sizeof buf;
  MPI_T_event_registration reg = nullptr;
  MPI_Info info = MPI_INFO_NULL;
  int indices[4];
  return {
      MPI_T_source_get_num(&n),
      MPI_T_source_get_info(0, buf, &len, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr),
      MPI_T_source_get_timestamp(0, &c),
      MPI_T_event_get_num(&n),
      MPI_T_event_get_info(0, buf, &len, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                           nullptr),
      MPI_T_event_get_index("mpimon_pml_send_posted", &n),
      MPI_T_event_handle_alloc(0, nullptr, MPI_INFO_NULL, &reg),
      MPI_T_event_handle_set_info(reg, MPI_INFO_NULL),
      MPI_T_event_handle_get_info(reg, &info),
      MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, nullptr, nullptr),
      MPI_T_event_callback_set_info(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL),
      MPI_T_event_callback_get_info(reg, MPI_T_CB_REQUIRE_NONE, &info),
      MPI_T_event_handle_free(reg, nullptr, nullptr),
      MPI_T_event_set_dropped_handler(reg, nullptr),
      MPI_T_event_read(nullptr, 0, buf),
      MPI_T_event_copy(nullptr, buf),
      MPI_T_event_get_timestamp(nullptr, &c),
      MPI_T_event_get_source(nullptr, &n),
      MPI_T_category_get_num_events(0, &n),
      MPI_T_category_get_events(0, 4, indices),
  };
}
