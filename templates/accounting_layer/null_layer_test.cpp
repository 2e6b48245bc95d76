// The accounting-layer template (templates/accounting_layer/null_layer.h): a call through
// the module table becomes one record of the peer's world rank while recording, and
// nothing when off; the real function always runs with the same arguments.
#include "accounting_layer/null_layer.h"

#include <gtest/gtest.h>

namespace mpimon::templates {
namespace {

int real_sends = 0;
size_t last_bytes = 0;
int real_send(const void*, size_t bytes, int, const void*) {
  ++real_sends;
  last_bytes = bytes;
  return 7;  // what the real module returned: the wrapper must return it unchanged
}

// Communicator "rank 2 of a communicator of world ranks 10, 11, 12"; rank 3: another job.
int32_t world_rank_of(const void*, int comm_rank) { return comm_rank < 3 ? 10 + comm_rank : -1; }

class NullLayerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    real_sends = 0;
    module.send = real_send;
    install_null_layer(module, engine, world_rank_of);
  }
  void TearDown() override { uninstall_null_layer(); }
  NullModule module{};
  Engine engine;
};

TEST_F(NullLayerTest, OffRecordsNothingAndTheRealFunctionRuns) {
  EXPECT_EQ(7, module.send(nullptr, 100, 2, nullptr));
  EXPECT_EQ(1, real_sends);
  EXPECT_EQ(0u, engine.messages(12, Category::external));
  EXPECT_EQ(module.send, &real_send);  // nothing of ours on the hot path
}

TEST_F(NullLayerTest, OnRecordsTheWorldRankAndForwards) {
  set_null_layer_recording(true);
  EXPECT_EQ(7, module.send(nullptr, 100, 2, nullptr));
  EXPECT_EQ(7, module.send(nullptr, 28, 2, nullptr));
  EXPECT_EQ(2, real_sends);
  EXPECT_EQ(28u, last_bytes);
  EXPECT_EQ(2u, engine.messages(12, Category::external));
  EXPECT_EQ(128u, engine.bytes(12, Category::external));
  EXPECT_EQ(0u, engine.messages(2, Category::external));  // the world rank, not the communicator's
}

TEST_F(NullLayerTest, AnotherJobsProcessIsOnlyTotalled) {
  set_null_layer_recording(true);
  module.send(nullptr, 64, 3, nullptr);
  EXPECT_EQ(1u, engine.other_job_totals(Category::external).messages);
  EXPECT_EQ(64u, engine.other_job_totals(Category::external).bytes);
}

TEST_F(NullLayerTest, OffAgainPutsTheRealFunctionBack) {
  set_null_layer_recording(true);
  set_null_layer_recording(false);
  EXPECT_EQ(module.send, &real_send);
  module.send(nullptr, 100, 0, nullptr);
  EXPECT_EQ(0u, engine.messages(10, Category::external));
}

}  // namespace
}  // namespace mpimon::templates
