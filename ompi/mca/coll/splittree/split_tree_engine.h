// Running split-tree collectives: each is a list of steps (transfers posted together,
// then local work once they completed), each step belonging to one side:
//
//   thread       the upper levels of the tree: the process's progress thread runs them
//                (bound to a core no rank of the host uses, or the least loaded one)
//   application  the lower S levels: run by whichever application thread makes MPI
//                progress (inside MPI_Wait, MPI_Test, any MPI call), through an
//                opal_progress callback; it also completes the requests
//
// One lock guards every running collective; the application side only try-locks it
// (progress callbacks may re-enter), and PML calls made under it never wait.
#pragma once

#include "runtime/ompi_glue.h"

#include <string>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace mpimon::splittree {

enum class Side : uint8_t { thread, application };

struct Transfer {
  bool send;
  int peer;  // rank in the communicator
  void* buffer;
  size_t count;
  ompi_datatype_t* type;
};

struct Step {
  Side side;
  std::vector<Transfer> transfers;
  std::function<void()> then;  // after every transfer completed (reduction, unpacking)
};

class Collective;

// The request the application gets: the layout of Open MPI's
// ompi_coll_base_nbc_request_t first (ompi_release.h, NbcRequestFields: the bindings of
// nonblocking collectives write there after the module returns), then ours.
struct SplitRequest {
  ompi_request_t super;
  mpimon::ompi_release::NbcRequestFields nbc;
  Collective* collective;
};

class Collective {
 public:
  Collective(ompi_communicator_t* comm, int tag) : comm_(comm), tag_(tag) {}
  ~Collective();
  Collective(const Collective&) = delete;
  Collective& operator=(const Collective&) = delete;

  void add(Step step) { steps_.push_back(std::move(step)); }
  // Scratch memory that lives as long as the collective (aligned for any type).
  char* scratch(size_t bytes);
  // Objects released when the collective is destroyed (datatypes, operations).
  void hold(opal_object_t* object);

  // The side whose turn it is; nullopt-like `finished()` when every step ran.
  Side turn() const { return steps_[next_].side; }
  bool finished() const { return next_ == steps_.size(); }
  bool has_thread_steps() const;
  // Advances `side`'s steps as far as they go now; true if anything happened.
  bool advance(Side side);
  int error() const { return error_; }

  SplitRequest* request = nullptr;
  bool user_freed = false;

 private:
  bool post(Step& step);
  ompi_communicator_t* comm_;
  int tag_;
  std::vector<Step> steps_;
  size_t next_ = 0;
  bool in_flight_ = false;
  std::vector<ompi_request_t*> requests_;
  std::vector<std::unique_ptr<char[]>> scratch_;
  std::vector<opal_object_t*> held_;
  int error_ = OMPI_SUCCESS;
};

// The process's running collectives, its progress thread and its progress callback.
class Engine {
 public:
  static Engine& instance();

  // The core (an hwloc cpuset, as a list string) the progress thread binds itself to;
  // empty: not bound. Set before the first collective.
  void set_thread_binding(std::string cpuset_list) { binding_ = std::move(cpuset_list); }

  // A new collective from an MPI_I... call: its request, complete already when it has no
  // step. Application-side steps it can start now are posted before this returns.
  ompi_request_t* start(std::unique_ptr<Collective> collective, ompi_communicator_t* comm);
  // MPI_Finalize (before communication stops): the thread ends, the callback goes.
  void stop();

 private:
  Engine() = default;
  static int progress_callback();
  int progress_application();
  void run_thread();
  void complete(Collective* c);  // under the lock
  static int free_request(ompi_request_t** request);

  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Collective*> running_;
  std::atomic<int> running_count_{0};
  std::thread thread_;
  bool thread_started_ = false;
  bool stopping_ = false;
  bool callback_registered_ = false;
  std::string binding_;
};

// The tag Open MPI's nonblocking modules would take next on `comm`, reserved (the rule
// of ompi_coll_base_nbc_reserve_tags, whose header we cannot include).
int reserve_tag(ompi_communicator_t* comm);

}  // namespace mpimon::splittree
