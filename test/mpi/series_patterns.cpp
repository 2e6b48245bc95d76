// Programs for the time-series tests (series_test.cpp): a ring that runs long enough for
// snapshots, and ways for a job to die.
//
//   series_patterns ring <seconds> [<end>]
//       4 ranks or more: each rank sends one 1 KiB message (tag 1) to rank+1 every 0.1 s
//       (10 messages per second, on a fixed schedule), receives from rank-1, and once a
//       second all ranks call MPI_Allreduce; for <seconds>, then <end>:
//         finalize (default)  MPI_Finalize
//         abort               rank 1 calls MPI_Abort(MPI_COMM_WORLD, 3)
//         segfault            rank 2 dereferences a null pointer
//       Every rank writes its pid to pid.<rank> at the start and appends "<n> <time>\n"
//       to sent.<rank> after its n-th send, time in microseconds since the Unix epoch, the
//       clock of the series' frames (unbuffered: what a rank logged as sent has been
//       handed to MPI, whatever kills it afterwards).
//   series_patterns threads <seconds>
//       MPI_THREAD_MULTIPLE: 4 threads per rank each send 8 bytes to rank+1 in a loop for
//       <seconds> while snapshots are taken; then one MPI_Allreduce and MPI_Finalize.
#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

int open_log(const std::string& name) { return ::open(name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644); }

void write_line(int fd, const std::string& line) {
  [[maybe_unused]] const ssize_t n = ::write(fd, line.data(), line.size());
}

int ring(double seconds, const std::string& end) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int pid_log = open_log("pid." + std::to_string(rank));
  write_line(pid_log, std::to_string(::getpid()) + "\n");
  ::close(pid_log);
  const int sent_log = open_log("sent." + std::to_string(rank));
  std::vector<char> out(1024, 'x'), in(1024);
  const double start = MPI_Wtime();
  const int rounds = static_cast<int>(seconds * 10 + 0.5);  // the same on every rank
  for (int n = 1; n <= rounds; ++n) {
    const double due = start + 0.1 * n;  // a fixed schedule: late sends catch up
    while (MPI_Wtime() < due) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    MPI_Request request;
    MPI_Irecv(in.data(), 1024, MPI_CHAR, (rank + size - 1) % size, 1, MPI_COMM_WORLD, &request);
    MPI_Send(out.data(), 1024, MPI_CHAR, (rank + 1) % size, 1, MPI_COMM_WORLD);
    char line[64];
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    std::snprintf(line, sizeof line, "%d %lld\n", n,
                  static_cast<long long>(std::chrono::duration_cast<std::chrono::microseconds>(now).count()));
    write_line(sent_log, line);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    if (n % 10 == 0) {  // once a second: a collective (COLL records, per-communicator classes)
      int one = 1, sum = 0;
      MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
  }
  if (end == "abort" && rank == 1) MPI_Abort(MPI_COMM_WORLD, 3);
  if (end == "segfault" && rank == 2) {
    volatile int* nowhere = nullptr;
    *nowhere = 1;
  }
  if (end == "abort" || end == "segfault") {
    // The others wait for the job to be ended.
    for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  MPI_Finalize();
  return 0;
}

int threads(double seconds) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const double start = MPI_Wtime();
  std::vector<std::thread> workers;
  for (int t = 0; t < 4; ++t) {
    workers.emplace_back([=] {
      // A flag goes round the ring per thread: rank 0 sets it (1 while time is left),
      // the others pass it on; everyone stops after the round that carried 0, so every
      // rank sends the same number of messages.
      char out[8] = {}, in[8] = {};
      for (bool go = true; go;) {
        MPI_Request r;
        MPI_Irecv(in, 8, MPI_CHAR, (rank + size - 1) % size, t, MPI_COMM_WORLD, &r);
        if (rank == 0) {
          out[0] = MPI_Wtime() - start < seconds ? 1 : 0;
        } else {
          MPI_Wait(&r, MPI_STATUS_IGNORE);
          out[0] = in[0];
        }
        MPI_Send(out, 8, MPI_CHAR, (rank + 1) % size, t, MPI_COMM_WORLD);
        if (rank == 0) MPI_Wait(&r, MPI_STATUS_IGNORE);
        go = out[0] != 0;
      }
    });
  }
  for (auto& w : workers) w.join();
  int one = 1, sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return sum == size ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const double seconds = argc > 2 ? std::atof(argv[2]) : 0;
  if (mode == "threads") {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
      std::fprintf(stderr, "no MPI_THREAD_MULTIPLE\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return threads(seconds);
  }
  MPI_Init(&argc, &argv);
  if (mode == "ring") return ring(seconds, argc > 3 ? argv[3] : "finalize");
  std::fprintf(stderr, "usage: series_patterns ring <seconds> [finalize|abort|segfault] | threads <seconds>\n");
  MPI_Abort(MPI_COMM_WORLD, 2);
  return 2;
}
