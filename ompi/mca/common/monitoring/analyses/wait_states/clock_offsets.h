// Clocks for wait states: one clock per host, offsets between hosts.
//
// Wait states compare timestamps of different processes. Processes of one host read the
// same clock (CLOCK_MONOTONIC), so their timestamps compare as they are. Across hosts,
// as trace tools do, an offset is measured when it is first needed (at window creation,
// where every process of the window takes part anyway) and measured again at the end
// (window free) to report the drift: the host's leader exchanges a few ping-pongs with
// the window's rank 0 and keeps the one with the shortest round trip (Cristian's
// method: the reference time lies halfway through that round trip, give or take half of
// it). This file is the arithmetic, without MPI.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyses/wait_states/wait_patterns.h"

namespace mpimon::wait_states {

// One ping-pong: we sent at `sent` (our clock), the reference answered with its clock
// `reference`, we received the answer at `received` (our clock).
struct ClockSample {
  Nanos sent = 0;
  Nanos reference = 0;
  Nanos received = 0;
};

struct ClockOffset {
  Nanos offset = 0;       // add to our clock to get the reference clock
  Nanos uncertainty = 0;  // half the shortest round trip
};

// The estimate from the sample with the shortest round trip; nullopt without samples.
std::optional<ClockOffset> estimate_offset(const std::vector<ClockSample>& samples);

// A clock domain: the processes that share a clock (one host), identified by a hash of
// the host name (and, for the testing knob below, of the knob's group).
uint64_t clock_domain_id(std::string_view host_name, bool testing_group);

// The segmented copy-scan that hands each domain leader's offset to the processes after
// it (MPI_Scan over window ranks; domains are runs of consecutive ranks): the element of
// a rank is (is_leader, offset); combining a prefix `earlier` with the next element
// `later` keeps the later one if it is a leader. Associative, not commutative.
struct ScanElement {
  int64_t is_leader = 0;
  Nanos offset = 0;
  Nanos uncertainty = 0;
};
ScanElement scan_combine(const ScanElement& earlier, const ScanElement& later);

// The testing-only knob osc_monitoring_wait_states_testing_clock_offset: shift some
// processes' clock by a known amount, as if they ran on a host whose clock is off, so
// that a test can check that the measured offsets cancel it. Syntax:
//   <seconds>:<world rank>[,<world rank>...]   those ranks (on one machine: they also
//                                              form a clock domain of their own)
//   <seconds>:host=<host name>                 every process of that host
// Empty: no shift.
struct TestingClockShift {
  Nanos shift = 0;
  std::vector<int32_t> ranks;
  std::string host;
  bool applies_to(int32_t world_rank, std::string_view host_name) const;
};
// nullopt and `error` set (what was expected) for a malformed value.
std::optional<TestingClockShift> parse_testing_clock_shift(std::string_view text, std::string& error);

}  // namespace mpimon::wait_states
