// Conformance of the MPI_T events library with MPI 4.0, 2. get_info of event types: suite EventInfo, as
// docs/events.md ("Semantics kept") states it. One behaviour per test.
#include <gtest/gtest.h>

#include <cstring>

#include "conformance_support.h"

using namespace events_test;

TEST(EventInfo, NullOutputsAreIgnored) {
  const int t = type("ev_info_null", source("src_info"));
  EXPECT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                              nullptr, nullptr, nullptr));
  int n = 3;  // arrays NULL with a count: ignored too
  EXPECT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, nullptr, nullptr, nullptr, nullptr, nullptr, &n, nullptr, nullptr,
                                              nullptr, nullptr, nullptr));
  EXPECT_EQ(3, n);
  MPI_Datatype types[3];
  MPI_Aint displacements[3];  // num_elements NULL: arrays ignored (not written)
  std::fill(std::begin(types), std::end(types), MPI_DATATYPE_NULL);
  EXPECT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, nullptr, nullptr, nullptr, types, displacements, nullptr, nullptr,
                                              nullptr, nullptr, nullptr, nullptr));
  EXPECT_EQ(MPI_DATATYPE_NULL, types[0]);
}

TEST(EventInfo, NumElementsIsInOutAndTruncates) {
  const int t = type("ev_info_trunc", source("src_info"));
  MPI_Datatype types[3] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
  MPI_Aint displacements[3] = {-1, -1, -1};
  int n = 2;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, nullptr, nullptr, nullptr, types, displacements, &n, nullptr, nullptr,
                                              nullptr, nullptr, nullptr));
  EXPECT_EQ(3, n);  // the true count
  EXPECT_EQ(MPI_INT32_T, types[0]);
  EXPECT_EQ(MPI_DOUBLE, types[1]);
  EXPECT_EQ(MPI_DATATYPE_NULL, types[2]);  // beyond the caller's count: untouched
  EXPECT_EQ(0, displacements[0]);
  EXPECT_EQ(8, displacements[1]);
  EXPECT_EQ(-1, displacements[2]);
  n = 3;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, nullptr, nullptr, nullptr, types, displacements, &n, nullptr, nullptr,
                                              nullptr, nullptr, nullptr));
  EXPECT_EQ(MPI_INT64_T, types[2]);
  EXPECT_EQ(16, displacements[2]);
}

TEST(EventInfo, NameLengthInOutWithTruncation) {
  const int t = type("ev_info_name_len", source("src_info"));
  int len = 0;  // length query
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, nullptr, &len, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                              nullptr, nullptr, nullptr));
  EXPECT_EQ(static_cast<int>(std::strlen("ev_info_name_len")) + 1, len);
  char small[7];
  std::memset(small, 'X', sizeof small);
  len = 5;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, small, &len, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                              nullptr, nullptr, nullptr));
  EXPECT_STREQ("ev_i", small);
  EXPECT_EQ(5, len);
  EXPECT_EQ('X', small[5]);  // nothing past the caller's length
}

TEST(EventInfo, EmptyDescriptionIsEmptyStringWithLengthOne) {
  const int t = type("ev_info_empty_desc", source("src_info"), MPI_T_BIND_NO_OBJECT, "");
  char desc[8] = "junk";
  int desc_len = sizeof desc;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                              desc, &desc_len, nullptr));
  EXPECT_EQ(1, desc_len);
  EXPECT_STREQ("", desc);
  desc_len = 0;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                              nullptr, &desc_len, nullptr));
  EXPECT_EQ(1, desc_len);
}

TEST(EventInfo, DescriptionLengthTruncates) {
  const int t = type("ev_info_desc_len", source("src_info"), MPI_T_BIND_NO_OBJECT, "abcdefgh");
  char desc[4];
  int desc_len = sizeof desc;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                              desc, &desc_len, nullptr));
  EXPECT_STREQ("abc", desc);
  EXPECT_EQ(4, desc_len);
}

TEST(EventInfo, InfoIsNewObjectWithDescriptorKeys) {
  static const char* const kv[] = {"mpimon_enum_kind", "put,get", "unit", "bytes", nullptr};
  const int t = type("ev_info_keys", source("src_info"), MPI_T_BIND_NO_OBJECT, "d", kv);
  MPI_Info a = MPI_INFO_NULL, b = MPI_INFO_NULL;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, &a,
                                              nullptr, nullptr, nullptr));
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, &b,
                                              nullptr, nullptr, nullptr));
  ASSERT_NE(MPI_INFO_NULL, a);
  EXPECT_NE(a, b);  // a new object each time
  char value[64];
  EXPECT_EQ(1, mpimon_events_test_info_get(a, "mpimon_enum_kind", value, sizeof value));
  EXPECT_STREQ("put,get", value);
  EXPECT_EQ(1, mpimon_events_test_info_get(a, "unit", value, sizeof value));
  EXPECT_STREQ("bytes", value);
  EXPECT_EQ(0, mpimon_events_test_info_get(a, "missing", value, sizeof value));
  mpimon_events_test_info_free(&a);  // freeable (MPI_Info_free itself is tested after MPI_Init)
  mpimon_events_test_info_free(&b);
  EXPECT_EQ(MPI_INFO_NULL, a);
}

TEST(EventInfo, EnumTypeNamesTheElements) {
  const int t = type("ev_info_enum", source("src_info"));
  MPI_T_enum e = MPI_T_ENUM_NULL;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, &e, nullptr,
                                              nullptr, nullptr, nullptr));
  ASSERT_NE(MPI_T_ENUM_NULL, e);
  int num = 0;
  char name[64];
  int len = sizeof name;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_enum_get_info(e, &num, name, &len));
  EXPECT_EQ(3, num);
  EXPECT_STREQ("ev_info_enum", name);
  const char* expected[] = {"id", "value", "serial"};
  for (int i = 0; i < 3; ++i) {
    int value = -1;
    len = sizeof name;
    ASSERT_EQ(MPI_SUCCESS, MPI_T_enum_get_item(e, i, &value, name, &len));
    EXPECT_EQ(i, value);
    EXPECT_STREQ(expected[i], name);
  }
}

TEST(EventInfo, VerbosityAndBind) {
  const int t = type("ev_info_bind", source("src_info"), MPI_T_BIND_MPI_WIN);
  int verbosity = -1, bind = -1;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, nullptr, nullptr, &verbosity, nullptr, nullptr, nullptr, nullptr,
                                              nullptr, nullptr, nullptr, &bind));
  EXPECT_EQ(MPI_T_VERBOSITY_USER_BASIC, verbosity);
  EXPECT_EQ(MPI_T_BIND_MPI_WIN, bind);
}

TEST(EventInfo, BadIndexIsInvalidIndex) {
  int n = num_types();
  int verbosity;
  EXPECT_EQ(MPI_T_ERR_INVALID_INDEX, MPI_T_event_get_info(-1, nullptr, nullptr, &verbosity, nullptr, nullptr, nullptr,
                                                          nullptr, nullptr, nullptr, nullptr, nullptr));
  EXPECT_EQ(MPI_T_ERR_INVALID_INDEX, MPI_T_event_get_info(n, nullptr, nullptr, &verbosity, nullptr, nullptr, nullptr,
                                                          nullptr, nullptr, nullptr, nullptr, nullptr));
}
