// The event logger's pure part: MEL_EVENTS, event lines from a type description and a
// payload, statistics (no MPI).
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "communication_events.h"
#include "event_log.h"

namespace mpimon::mel {
namespace {

ElementType element(const char* name, ValueKind kind, size_t size, size_t displacement) {
  ElementType e;
  e.name = name;
  e.kind = kind;
  e.size = size;
  e.displacement = displacement;
  return e;
}

// The layout communication_events.cpp registers for the four PML events.
EventType pml_type(const char* name) {
  EventType t;
  t.name = name;
  t.elements = {element("comm_id", ValueKind::signed_integer, 4, offsetof(mpimon_pml_event, comm_id)),
                element("peer", ValueKind::signed_integer, 4, offsetof(mpimon_pml_event, peer)),
                element("peer_comm_rank", ValueKind::signed_integer, 4, offsetof(mpimon_pml_event, peer_comm_rank)),
                element("tag", ValueKind::signed_integer, 4, offsetof(mpimon_pml_event, tag)),
                element("bytes", ValueKind::unsigned_integer, 8, offsetof(mpimon_pml_event, bytes)),
                element("request", ValueKind::unsigned_integer, 8, offsetof(mpimon_pml_event, request))};
  return t;
}

EventType coll_type() {
  EventType t;
  t.name = MPIMON_EVENT_COLL_BEGIN;
  t.elements = {element("comm_id", ValueKind::signed_integer, 4, offsetof(mpimon_coll_event, comm_id)),
                element("kind", ValueKind::signed_integer, 4, offsetof(mpimon_coll_event, kind)),
                element("root", ValueKind::signed_integer, 4, offsetof(mpimon_coll_event, root)),
                element("bytes", ValueKind::unsigned_integer, 8, offsetof(mpimon_coll_event, bytes)),
                element("request", ValueKind::unsigned_integer, 8, offsetof(mpimon_coll_event, request))};
  t.elements[1].value_names = split_value_names("allgather,allgatherv,allreduce,alltoall");
  return t;
}

std::vector<Value> pml_values(const char* type_name, int peer, uint64_t bytes, uint64_t request) {
  mpimon_pml_event e{};
  e.comm_id = 0;
  e.peer = peer;
  e.peer_comm_rank = peer;
  e.tag = 7;
  e.bytes = bytes;
  e.request = request;
  return decode_payload(pml_type(type_name), reinterpret_cast<const unsigned char*>(&e), sizeof e);
}

// ---------------------------------------------------------------------------------------

TEST(MelEventsVariable, SplitsOnCommaColonSemicolonAndSpaces) {
  EXPECT_EQ(parse_event_list("a,b:c;d e\tf\n g"), (std::vector<std::string>{"a", "b", "c", "d", "e", "f", "g"}));
}

TEST(MelEventsVariable, EmptyOrOnlySeparatorsIsNoNames) {
  EXPECT_TRUE(parse_event_list("").empty());
  EXPECT_TRUE(parse_event_list(" ,;: ").empty());
}

TEST(MelEventsVariable, IgnoresRepeatedSeparatorsAndDuplicates) {
  EXPECT_EQ(parse_event_list(",,x;;  y,x,"), (std::vector<std::string>{"x", "y"}));
}

TEST(MelEventsVariable, WarningNamesEveryUnknownEventOnOneLine) {
  EXPECT_EQ(unknown_events_warning({}), "");
  EXPECT_EQ(unknown_events_warning({"foo"}),
            "mel: warning: MEL_EVENTS names an event that does not exist: 'foo' (ignored)");
  const std::string two = unknown_events_warning({"foo", "bar"});
  EXPECT_EQ(two, "mel: warning: MEL_EVENTS names events that do not exist: 'foo', 'bar' (ignored)");
  EXPECT_EQ(two.find('\n'), std::string::npos);
}

// ---------------------------------------------------------------------------------------

TEST(MelEventLine, PmlEventPrintsEveryElementByName) {
  const EventType type = pml_type(MPIMON_EVENT_PML_SEND_POSTED);
  const std::vector<Value> values = pml_values(MPIMON_EVENT_PML_SEND_POSTED, 3, 1024, 0x1234);
  EXPECT_EQ(format_event_line(0.002151416, type, values),
            "[ 0.002151416] 'mpimon_pml_send_posted' comm_id=0 peer=3 peer_comm_rank=3 tag=7 bytes=1024 request=4660");
}

TEST(MelEventLine, NegativeValuesAndLargeUnsigned) {
  const EventType type = pml_type(MPIMON_EVENT_PML_RECV_POSTED);
  const std::vector<Value> values =
      pml_values(MPIMON_EVENT_PML_RECV_POSTED, -1, std::numeric_limits<uint64_t>::max(), 1);
  const std::string line = format_event_line(1.5, type, values);
  EXPECT_NE(line.find(" peer=-1 "), std::string::npos) << line;
  EXPECT_NE(line.find(" bytes=18446744073709551615 "), std::string::npos) << line;
  EXPECT_EQ(line.rfind("[ 1.500000000] ", 0), 0u) << line;
}

TEST(MelEventLine, EnumElementPrintsItsValueName) {
  mpimon_coll_event e{};
  e.comm_id = 2;
  e.kind = 2;
  e.root = -1;
  e.pad = 12345;  // not an element: never printed
  e.bytes = 8;
  const EventType type = coll_type();
  const std::string line =
      format_event_line(0, type, decode_payload(type, reinterpret_cast<const unsigned char*>(&e), sizeof e));
  EXPECT_EQ(line, "[ 0.000000000] 'mpimon_coll_begin' comm_id=2 kind=allreduce root=-1 bytes=8 request=0");
}

TEST(MelEventLine, EnumValueOutOfRangePrintsTheNumber) {
  mpimon_coll_event e{};
  e.kind = 9;
  const EventType type = coll_type();
  const std::string line =
      format_event_line(0, type, decode_payload(type, reinterpret_cast<const unsigned char*>(&e), sizeof e));
  EXPECT_NE(line.find(" kind=9 "), std::string::npos) << line;
}

TEST(MelEventLine, EveryBasicKindDecodesFromItsDisplacement) {
  struct Payload {
    int8_t i8;
    char c;
    uint16_t u16;
    float f;
    double d;
    int64_t i64;
    bool b;
  } p{-5, 'x', 65535, 0.5f, 2.25, -9000000000LL, true};
  EventType t;
  t.name = "mixed";
  t.elements = {element("i8", ValueKind::signed_integer, 1, offsetof(Payload, i8)),
                element("c", ValueKind::character, 1, offsetof(Payload, c)),
                element("u16", ValueKind::unsigned_integer, 2, offsetof(Payload, u16)),
                element("f", ValueKind::floating, 4, offsetof(Payload, f)),
                element("d", ValueKind::floating, 8, offsetof(Payload, d)),
                element("i64", ValueKind::signed_integer, 8, offsetof(Payload, i64)),
                element("b", ValueKind::boolean, 1, offsetof(Payload, b))};
  const std::string line =
      format_event_line(0, t, decode_payload(t, reinterpret_cast<const unsigned char*>(&p), sizeof p));
  EXPECT_EQ(line, "[ 0.000000000] 'mixed' i8=-5 c=x u16=65535 f=0.5 d=2.25 i64=-9000000000 b=true");
}

TEST(MelEventLine, UnknownDatatypeAndShortPayloadPrintQuestionMarks) {
  EventType t;
  t.name = "odd";
  t.elements = {element("a", ValueKind::unknown, 0, 0), element("b", ValueKind::signed_integer, 4, 4),
                element("c", ValueKind::signed_integer, 4, 8)};
  const int32_t payload[2] = {1, 42};
  const std::string line =
      format_event_line(0, t, decode_payload(t, reinterpret_cast<const unsigned char*>(payload), sizeof payload));
  EXPECT_EQ(line, "[ 0.000000000] 'odd' a=? b=42 c=?");
}

TEST(MelEventLine, CopyBufferCoversEveryElementWithSlack) {
  const EventType type = pml_type(MPIMON_EVENT_PML_SEND_POSTED);
  EXPECT_GE(type.copy_buffer_size(), sizeof(mpimon_pml_event));
  EventType unknown;
  unknown.elements = {element("x", ValueKind::unknown, 0, 100)};
  EXPECT_GE(unknown.copy_buffer_size(), 132u);
}

TEST(MelEventLine, DroppedLine) {
  EXPECT_EQ(format_dropped_line(3, "mpimon_pml_send_posted"), "dropped 3 instances of 'mpimon_pml_send_posted'");
  EXPECT_EQ(format_dropped_line(1, "x"), "dropped 1 instance of 'x'");
}

TEST(MelEventLine, ValueNamesSplitOnCommasAndTrimSpaces) {
  EXPECT_EQ(split_value_names("put, get ,accumulate"), (std::vector<std::string>{"put", "get", "accumulate"}));
  EXPECT_TRUE(split_value_names("").empty());
  EXPECT_EQ(value_names_info_key("kind"), "mpimon_enum_kind");
}

TEST(MelEventLine, TicksToSecondsKeepsPrecisionForLargeTimestamps) {
  EXPECT_DOUBLE_EQ(ticks_to_seconds(3'500'000'000LL, 1'000'000'000LL, 1'000'000'000LL), 2.5);
  EXPECT_DOUBLE_EQ(ticks_to_seconds(1'000'000'000'000'000'123LL, 1'000'000'000'000'000'000LL, 1'000'000'000LL), 123e-9);
  EXPECT_DOUBLE_EQ(ticks_to_seconds(0, 500, 1000), -0.5);
  EXPECT_EQ(ticks_to_seconds(10, 0, 0), 0);
}

// ---------------------------------------------------------------------------------------

TEST(MelStatistics, MessagesPerDestinationFromSendPosted) {
  Statistics s;
  const EventType send = pml_type(MPIMON_EVENT_PML_SEND_POSTED);
  s.record(send, pml_values(MPIMON_EVENT_PML_SEND_POSTED, 1, 100, 10), 0);
  s.record(send, pml_values(MPIMON_EVENT_PML_SEND_POSTED, 1, 28, 11), 0);
  s.record(send, pml_values(MPIMON_EVENT_PML_SEND_POSTED, 3, 5, 12), 0);
  ASSERT_EQ(s.sent().size(), 2u);
  EXPECT_EQ(s.sent().at(1).messages, 2u);
  EXPECT_EQ(s.sent().at(1).bytes, 128u);
  EXPECT_EQ(s.sent().at(3).messages, 1u);
  EXPECT_TRUE(s.received().empty());
}

TEST(MelStatistics, MessagesPerSourceFromRecvCompletedOnly) {
  Statistics s;
  s.record(pml_type(MPIMON_EVENT_PML_RECV_POSTED), pml_values(MPIMON_EVENT_PML_RECV_POSTED, -1, 64, 7), 1.0);
  s.record(pml_type(MPIMON_EVENT_PML_RECV_COMPLETED), pml_values(MPIMON_EVENT_PML_RECV_COMPLETED, 2, 60, 7), 1.25);
  s.record(pml_type(MPIMON_EVENT_PML_SEND_COMPLETED), pml_values(MPIMON_EVENT_PML_SEND_COMPLETED, 2, 60, 8), 1.3);
  ASSERT_EQ(s.received().size(), 1u);
  EXPECT_EQ(s.received().at(2).messages, 1u);
  EXPECT_EQ(s.received().at(2).bytes, 60u);
  EXPECT_TRUE(s.sent().empty());
}

TEST(MelStatistics, ReceivePostedTimePairsByRequest) {
  Statistics s;
  const EventType posted = pml_type(MPIMON_EVENT_PML_RECV_POSTED);
  const EventType completed = pml_type(MPIMON_EVENT_PML_RECV_COMPLETED);
  s.record(posted, pml_values(MPIMON_EVENT_PML_RECV_POSTED, 1, 8, 100), 1.0);
  s.record(posted, pml_values(MPIMON_EVENT_PML_RECV_POSTED, 2, 8, 200), 1.5);
  s.record(posted, pml_values(MPIMON_EVENT_PML_RECV_POSTED, 3, 8, 300), 2.0);
  s.record(completed, pml_values(MPIMON_EVENT_PML_RECV_COMPLETED, 2, 8, 200), 1.75);  // 0.25
  s.record(completed, pml_values(MPIMON_EVENT_PML_RECV_COMPLETED, 1, 8, 100), 2.0);   // 1.0
  s.record(completed, pml_values(MPIMON_EVENT_PML_RECV_COMPLETED, 9, 8, 999), 3.0);   // never posted: not timed
  const DurationSummary& d = s.receive_posted_time();
  EXPECT_EQ(d.count, 2u);
  EXPECT_DOUBLE_EQ(d.total, 1.25);
  EXPECT_DOUBLE_EQ(d.average(), 0.625);
  EXPECT_DOUBLE_EQ(d.min, 0.25);
  EXPECT_DOUBLE_EQ(d.max, 1.0);
  EXPECT_EQ(s.receives_still_posted(), 1u);
}

TEST(MelStatistics, PersistentRequestAddressIsPairedAgainAfterCompletion) {
  Statistics s;
  const EventType posted = pml_type(MPIMON_EVENT_PML_RECV_POSTED);
  const EventType completed = pml_type(MPIMON_EVENT_PML_RECV_COMPLETED);
  for (int i = 0; i < 3; ++i) {
    s.record(posted, pml_values(MPIMON_EVENT_PML_RECV_POSTED, 1, 16, 42), i);
    s.record(completed, pml_values(MPIMON_EVENT_PML_RECV_COMPLETED, 1, 16, 42), i + 0.5);
  }
  EXPECT_EQ(s.receive_posted_time().count, 3u);
  EXPECT_DOUBLE_EQ(s.receive_posted_time().total, 1.5);
  EXPECT_EQ(s.receives_still_posted(), 0u);
}

TEST(MelStatistics, EventsWithoutTheElementsAreOnlyCounted) {
  Statistics s;
  EventType t;
  t.name = MPIMON_EVENT_PML_SEND_POSTED;  // same name, no elements (another library's layout)
  s.record(t, {}, 0);
  EXPECT_TRUE(s.sent().empty());
  EXPECT_NE(s.report().find("statistics: events 'mpimon_pml_send_posted' logged=1 dropped=0\n"), std::string::npos);
}

TEST(MelStatistics, ReportLines) {
  Statistics s;
  s.record(pml_type(MPIMON_EVENT_PML_SEND_POSTED), pml_values(MPIMON_EVENT_PML_SEND_POSTED, 1, 1024, 1), 0);
  s.record(pml_type(MPIMON_EVENT_PML_RECV_POSTED), pml_values(MPIMON_EVENT_PML_RECV_POSTED, 3, 1024, 2), 0.5);
  s.record(pml_type(MPIMON_EVENT_PML_RECV_COMPLETED), pml_values(MPIMON_EVENT_PML_RECV_COMPLETED, 3, 1024, 2), 0.75);
  s.record_dropped(MPIMON_EVENT_PML_SEND_POSTED, 4);
  EXPECT_EQ(s.report(),
            "statistics: events 'mpimon_pml_recv_completed' logged=1 dropped=0\n"
            "statistics: events 'mpimon_pml_recv_posted' logged=1 dropped=0\n"
            "statistics: events 'mpimon_pml_send_posted' logged=1 dropped=4\n"
            "statistics: sent peer=1 messages=1 bytes=1024\n"
            "statistics: received peer=3 messages=1 bytes=1024\n"
            "statistics: receive posted-to-completed seconds count=1 total=0.250000000 average=0.250000000 "
            "min=0.250000000 max=0.250000000\n"
            "statistics: receives posted and not completed=0\n");
}

TEST(MelStatistics, EmptyReportStillSaysNothingWasTimed) {
  EXPECT_EQ(Statistics().report(),
            "statistics: receive posted-to-completed seconds count=0 total=0.000000000 average=0.000000000 "
            "min=0.000000000 max=0.000000000\n"
            "statistics: receives posted and not completed=0\n");
}

TEST(MelStatistics, StatisticsOfEventsLeftOutAreNotLoggedNotZero) {
  Statistics s;
  s.set_logged_events({MPIMON_EVENT_PML_SEND_POSTED, MPIMON_EVENT_COLL_END});
  s.record(pml_type(MPIMON_EVENT_PML_SEND_POSTED), pml_values(MPIMON_EVENT_PML_SEND_POSTED, 1, 1024, 1), 0);
  EXPECT_EQ(s.report(),
            "statistics: events 'mpimon_pml_send_posted' logged=1 dropped=0\n"
            "statistics: sent peer=1 messages=1 bytes=1024\n"
            "statistics: received not logged (MEL_EVENTS leaves out mpimon_pml_recv_completed)\n"
            "statistics: receive posted-to-completed not logged (MEL_EVENTS leaves out mpimon_pml_recv_posted, "
            "mpimon_pml_recv_completed)\n");
  s.set_logged_events({MPIMON_EVENT_PML_RECV_COMPLETED});
  EXPECT_EQ(s.report(),
            "statistics: events 'mpimon_pml_send_posted' logged=1 dropped=0\n"
            "statistics: sent not logged (MEL_EVENTS leaves out mpimon_pml_send_posted)\n"
            "statistics: receive posted-to-completed not logged (MEL_EVENTS leaves out mpimon_pml_recv_posted)\n");
}

// ---------------------------------------------------------------------------------------
// One timeline for every source

TEST(MelTimeline, SourcesOfOneClockShareTheOriginExactly) {
  Timeline t;
  t.set_reference(0, 1000, "tsc", 5000);
  t.add_source(1, 1000, "tsc", 5100, 5200, 5300);  // read later: ignored, the clock is the same
  EXPECT_DOUBLE_EQ(t.seconds(0, 7000), 2.0);
  EXPECT_DOUBLE_EQ(t.seconds(1, 7000), 2.0);
}

TEST(MelTimeline, AnotherClockIsPlacedAtTheMiddleOfTheReferenceReadings) {
  Timeline t;
  t.set_reference(0, 1000, "tsc", 5000);
  // Read 40 000 ticks (of 1 000 000 per second) while the reference went from 5 100 to 5 300.
  t.add_source(2, 1000000, "monotonic", 5100, 40000, 5300);
  EXPECT_DOUBLE_EQ(t.seconds(2, 40000), 0.2);
  EXPECT_DOUBLE_EQ(t.seconds(2, 540000), 0.7);
  // Same name, different rate: not the same clock.
  t.add_source(3, 2000, "tsc", 6000, 100, 6000);
  EXPECT_DOUBLE_EQ(t.seconds(3, 2100), 2.0);
}

TEST(MelTimeline, UnknownSourcesAreNotPlaced) {
  Timeline t;
  EXPECT_FALSE(t.knows(0));
  t.set_reference(0, 10, "", 0);
  EXPECT_TRUE(t.knows(0));
  EXPECT_FALSE(t.knows(1));
}

// ---------------------------------------------------------------------------------------

TEST(MelOutput, LogFilePerWorldRank) { EXPECT_EQ(log_file_path("out/mel", 3), "out/mel.3.log"); }

TEST(MelOutput, PrefixLinesPrefixesEachLine) {
  EXPECT_EQ(prefix_lines("a\nb\n", "rank 2: "), "rank 2: a\nrank 2: b\n");
  EXPECT_EQ(prefix_lines("", "p "), "");
  EXPECT_EQ(prefix_lines("tail", "p "), "p tail");
}

}  // namespace
}  // namespace mpimon::mel
