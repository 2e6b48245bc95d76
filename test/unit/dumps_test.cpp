// The tools' reader: arguments (files, folders, prefixes, flush phases), captured output,
// job files, and every input error as "<file>:<line>: expected ...".
#include <gtest/gtest.h>

#include <fstream>

#include "dumps.h"
#include "files/site_log.h"
#include "io_summary.h"
#include "readers/format_error.h"
#include "temp_dir.h"

namespace mpimon::tools {
namespace {

using Dumps_ = mpimon::test::TempDirTest;

class DumpsTest : public Dumps_ {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  // One rank's dump: an E line to `peer`.
  std::string prof(int me, int peer, int bytes) {
    return "# POINT TO POINT\nE\t" + std::to_string(me) + "\t" + std::to_string(peer) + "\t" + std::to_string(bytes) +
           " bytes\t1 msgs sent\n# OSC\n# COLLECTIVES\n";
  }
  std::string error_of(const std::vector<std::string>& arguments) {
    try {
      read_dumps(expand_dump_arguments(arguments));
    } catch (const FormatError& e) {
      return e.what();
    }
    return "<accepted>";
  }
  static std::string job(const std::string& body, int world_size = 4) {
    return "# mpimon job file (one record per non-zero source, destination, category)\nformat mpimon-job 1\n"
           "world_size " +
           std::to_string(world_size) + "\nenable_level 2\nopen_mpi 4.1.4\nstart x\nend y\nrecords\n" + body;
  }
};

TEST_F(DumpsTest, FolderOfOneSiteLogGivesIt) {
  const std::string log =
      write("day/alice_app_id1-2_010203.mpimon", mpimon::gzip_compress(job("0 1 external 1 8 4:1\n")));
  EXPECT_EQ(expand_dump_arguments({dir_ + "/day"}), std::vector<std::string>{log});
  EXPECT_EQ(read_dumps({log}).matrix.at(Category::external, 0, 1).bytes, 8u);
  write("day/bob_app_id3-4_010203.mpimon", mpimon::gzip_compress(job("")));
  EXPECT_NE(error_of({dir_ + "/day"}).find("holds several job files"), std::string::npos);
}

TEST_F(DumpsTest, FolderGivesItsProfFiles) {
  for (int r = 0; r < 3; ++r) write("prof/prof." + std::to_string(r) + ".prof", prof(r, (r + 1) % 3, 8));
  const Dumps d = read_dumps(expand_dump_arguments({dir_ + "/prof"}));
  EXPECT_EQ(d.files.size(), 3u);
  EXPECT_EQ(d.matrix.ranks(), 3);
  EXPECT_EQ(d.matrix.at(Category::external, 2, 0).bytes, 8u);
}

TEST_F(DumpsTest, FolderOfSeveralDumpsNamesThem) {
  write("prof/prof.0.prof", prof(0, 1, 8));
  write("prof/other.0.prof", prof(0, 1, 8));
  const std::string error = error_of({dir_ + "/prof"});
  EXPECT_NE(error.find("holds the .prof files of several dumps (other, prof): name one"), std::string::npos) << error;
}

TEST_F(DumpsTest, FolderOfFlushPhasesSumsThem) {
  write("prof/phase_0.0.prof", prof(0, 1, 8));
  write("prof/phase_1.0.prof", prof(0, 1, 2));
  write("prof/phase_1.1.prof", prof(1, 0, 5));
  EXPECT_EQ(read_dumps(expand_dump_arguments({dir_ + "/prof"})).matrix.at(Category::external, 0, 1).bytes, 10u);
}

TEST_F(DumpsTest, FolderWithOnlyAJobFileGivesIt) {
  write("run/mpimon-job.txt", job("0 1 external 1 8 4:1\n"));
  write("run/notes.txt", "not a dump\n");
  EXPECT_EQ(read_dumps(expand_dump_arguments({dir_ + "/run"})).matrix.at(Category::external, 0, 1).bytes, 8u);
}

TEST_F(DumpsTest, AggregateProfilesPrefixFormSumsEveryPhaseIncludingZero) {
  write("prof/phase_0.0.prof", prof(0, 1, 8));
  write("prof/phase_1.0.prof", prof(0, 1, 2));
  write("prof/phase_12.1.prof", prof(1, 0, 5));
  write("prof/phaseX.0.prof", prof(0, 1, 1000));  // another prefix
  const std::vector<std::string> files = expand_dump_arguments({dir_ + "/prof/phase"});
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files.back(), dir_ + "/prof/phase_12.1.prof");  // by phase, then rank
  const Dumps d = read_dumps(files);
  EXPECT_EQ(d.matrix.at(Category::external, 0, 1).bytes, 10u);
  EXPECT_EQ(d.matrix.at(Category::external, 1, 0).bytes, 5u);
  // One phase alone, by its own prefix.
  EXPECT_EQ(read_dumps(expand_dump_arguments({dir_ + "/prof/phase_1"})).matrix.at(Category::external, 0, 1).bytes, 2u);
}

TEST_F(DumpsTest, MissingDumpsNameWhatWasLookedFor) {
  EXPECT_EQ(error_of({"/nonexistent/prof"}),
            "/nonexistent/prof: no such file, and no prof.<rank>.prof or prof_<phase>.<rank>.prof files in "
            "/nonexistent");
}

TEST_F(DumpsTest, HugeRankInAFileNameIsNoRank) {
  EXPECT_EQ(rank_in_file_name("p.99999999999999999999.prof"), -1);
  EXPECT_EQ(rank_in_file_name("p.2147483647.prof"), -1);
  EXPECT_EQ(rank_in_file_name("dir.5/p.2147483646.prof"), 2147483646);
  EXPECT_EQ(rank_in_file_name("p.12.txt"), -1);
  const std::string path = write("p.99999999999999999999.prof", prof(0, 1, 8));
  EXPECT_EQ(read_dumps(expand_dump_arguments({path})).matrix.ranks(), 2);
  write("q.99999999999999999999.prof", prof(0, 1, 8));
  EXPECT_NE(error_of({dir_ + "/q"}).find("no such file"), std::string::npos);
}

TEST_F(DumpsTest, SameFileTwiceIsReadOnce) {
  const std::string path = write("prof.0.prof", prof(0, 1, 8));
  EXPECT_EQ(read_dumps(expand_dump_arguments({path, dir_ + "/prof", path})).matrix.at(Category::external, 0, 1).bytes,
            8u);
}

TEST_F(DumpsTest, CapturedOutputIsReadAndItsOtherLinesCounted) {
  const std::string path = write("out.txt", "mpirun: starting\n" + prof(0, 1, 8) + "hello from the application\n" +
                                                prof(1, 0, 4) + "[1,2]<stdout>:E\t2\t0\t2 bytes\t1 msgs sent\n");
  const Dumps d = read_dumps(expand_dump_arguments({path}));
  EXPECT_EQ(d.matrix.at(Category::external, 1, 0).bytes, 4u);
  EXPECT_EQ(d.matrix.at(Category::external, 2, 0).bytes, 2u);
  EXPECT_EQ(d.foreign_lines, 2u);
  EXPECT_EQ(d.foreign_lines_note(),
            "skipped 2 lines that are not monitoring output (mpirun's or the application's) "
            "in 1 file, the first at " +
                path + ":1");
}

TEST_F(DumpsTest, FilesWithoutMonitoringOutputAreErrors) {
  EXPECT_EQ(error_of({write("empty.prof", "")}),
            dir_ + "/empty.prof: expected a monitoring dump (a job file or .prof lines), found an empty file");
  EXPECT_EQ(error_of({write("log.txt", "hello\nworld\n")}).rfind(dir_ + "/log.txt:1: expected monitoring output", 0),
            0u);
}

TEST_F(DumpsTest, CountsAtTheLimitAreErrors) {
  EXPECT_EQ(error_of({write("a.prof", "E\t0\t1\t1152921504606846976 bytes\t1 msgs sent\n")}),
            dir_ + "/a.prof:1: expected counts below 2^60 (1 EiB)");
  EXPECT_EQ(error_of({write("b.prof", "C\t0\t1\t5 bytes\t0 msgs sent\n")}),
            dir_ + "/b.prof:1: expected a message count above 0 for 5 bytes");
  EXPECT_EQ(error_of({write("j.txt", job("0 1 external 1152921504606846976 8 4:1152921504606846976\n"))}),
            dir_ + "/j.txt:9: expected counts below 2^60 (1 EiB)");
}

TEST_F(DumpsTest, PhasesSummingBeyondTheLimitAreErrors) {
  const std::string big = "E\t0\t1\t1 bytes\t1152921504606846975 msgs sent\n";
  const std::string error = error_of({write("p_0.0.prof", big), write("p_1.0.prof", big)});
  EXPECT_NE(error.find("expected counts below 2^60, found more for external 0 -> 1"), std::string::npos) << error;
}

TEST_F(DumpsTest, JobFileDuplicateRecordIsAnError) {
  const std::string path = write("j.txt", job("0 1 external 1 8 4:1\n0 2 external 1 8 4:1\n0 1 external 1 8 4:1\n"));
  EXPECT_EQ(error_of({path}), path +
                                  ":11: expected one record per source, destination and category, found a second "
                                  "external record 0 -> 1 (the first at line 9)");
}

TEST_F(DumpsTest, HugeWorldSizeCostsNothing) {
  const Dumps d = read_dumps({write("j.txt", job("0 2147483646 external 1 8 4:1\n", 2147483647))});
  EXPECT_EQ(d.matrix.ranks(), 2147483647);
  EXPECT_EQ(d.matrix.non_zeros(), 1u);
}

TEST_F(DumpsTest, AnnotationsAreChecked) {
  auto error = [&](const std::string& line) {
    try {
      read_dumps({write("j.txt", job(line))}, Annotations::read);
    } catch (const FormatError& e) {
      return std::string(e.what());
    }
    return std::string("<accepted>");
  };
  const std::string at = dir_ + "/j.txt:9: expected ";
  EXPECT_EQ(error("window_sync 0 w fence 3 nan\n"), at + "a number of seconds >= 0, found 'nan'");
  EXPECT_EQ(error("window_sync 0 w fence 3 -1.5\n"), at + "a number of seconds >= 0, found '-1.5'");
  EXPECT_EQ(error("window_sync 0 w fence 3 inf\n"), at + "a number of seconds >= 0, found 'inf'");
  EXPECT_EQ(error("window_sync 0 w dance 3 1.0\n"), at + "a synchronisation kind, found 'dance'");
  EXPECT_EQ(error("window_sync 9 w fence 3 1.0\n"), at + "a rank in [0, 4), found '9'");
  EXPECT_EQ(error("window_sync 0 w fence -3 1.0\n"), at + "a call count (a count below 2^60), found '-3'");
  EXPECT_EQ(error("collectives 0 MPI_COMM_WORLD 1 2 3 4 5\n"), at + "8 fields after 'collectives', found 7");
  EXPECT_EQ(error("collectives 0 MPI_COMM_WORLD 1 2 3 4 5 -6\n"), at + "a byte count (a count below 2^60), found '-6'");
  EXPECT_EQ(error("some_future_keyword whatever -1 nan\n"), "<accepted>");
}

// The MPI-IO lines are read by every command (matrix and show too, not only report), so a
// damaged one is the same precise error everywhere.
TEST_F(DumpsTest, IoLinesAreCheckedWhateverTheCommand) {
  const std::string id = "0123456789abcdef";
  const std::string path = write("j.txt", job("io_rank 0 " + id +
                                              " ompio vulcan 1 1 0 0 0 0 0 0 1 1 0.0 0.1 0.2\n"
                                              "io_fs 0 " +
                                              id + " write 1 1 16384 0 0 16384 15:2\n"));
  const std::string prof = write("p.0.prof", "# IO_FS_FAILED\t0\t" + id + "\twrite\t2 failed ops\t-8 failed bytes\n");
  for (const Annotations annotations : {Annotations::skip, Annotations::read}) {
    for (const auto& [file, expected] :
         {std::pair{path, path + ":10: expected histogram counts summing to 1, found more"},
          std::pair{prof, prof + ":1: expected failed bytes, found '-8'"}}) {
      try {
        read_dumps({file}, annotations);
        ADD_FAILURE() << file << " accepted";
      } catch (const FormatError& e) {
        EXPECT_EQ(std::string(e.what()), expected);
      }
    }
  }
}

// What `mpimon show` prints under the heatmap: per file, asked against reached, failures
// beside the bytes that reached the file system.
TEST_F(DumpsTest, IoSummaryAddsTheRanksOfEachFile) {
  const std::string id = "0123456789abcdef";
  const std::string job_text =
      job("io_file " + id + " out%20dat 0-1\nio_rank 0 " + id +
              " ompio vulcan 1 1 0 0 0 0 0 0 1 1 0.0 0.1 0.2\n"
              "io_asked 0 " +
              id + " write_at_all 1 4096 13:1\nio_fs 0 " + id + " write 1 1 8192 0 0 8192 14:1\nio_fs_failed 0 " + id +
              " write 2 100\nio_shuffle 0 " + id + " 0 1 4096\nio_rank 1 " + id +
              " ompio vulcan 1 1 0 0 0 0 0 0 1 0 0.0 0.1 0.2\nio_asked 1 " + id +
              " write_at_all 1 4096 13:1\nio_shuffle 1 " + id + " 0 1 4096\n",
          2);
  const Dumps d = read_dumps({write("j.txt", job_text)});
  const std::vector<IoFileSummary> files = summarize_files(d.io);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].name, "out dat");
  EXPECT_EQ(files[0].ranks, 2u);
  EXPECT_EQ(files[0].components, "ompio/vulcan");
  EXPECT_EQ(static_cast<uint64_t>(files[0].asked[1]), 8192u);
  EXPECT_EQ(static_cast<uint64_t>(files[0].reached[1]), 8192u);
  EXPECT_EQ(static_cast<uint64_t>(files[0].failed_operations[1]), 2u);
  EXPECT_EQ(static_cast<uint64_t>(files[0].failed_bytes[1]), 100u);
  EXPECT_EQ(static_cast<uint64_t>(files[0].shuffle), 8192u);
  EXPECT_EQ(files[0].aggregators, 1u);
  EXPECT_EQ(format_io_summary_text(files),
            "# MPI-IO files: bytes asked by the application's calls, bytes that reached the file system (ompio's "
            "fbtl; - under ROMIO) and, apart, the operations that failed there\n"
            "file     ranks  io            read asked  read reached  written asked             written reached  "
            "shuffle B  aggregators\n"
            "out dat      2  ompio/vulcan           0             0           8192  8192 (2 failed ops, 100 B)  "
            "     8192            1\n");
  EXPECT_EQ(format_io_summary_text({}), "");
}

TEST_F(DumpsTest, CollectiveClassesFromJobAndProfFilesAgree) {
  const Dumps from_job = read_dumps(
      {write("j.txt", job("collectives 1 my%20comm 2 64 0 0 3 96\ncommunicator my%20comm 0,1\n"))}, Annotations::read);
  const Dumps from_prof = read_dumps({write("p.1.prof",
                                            "# COLLECTIVES\nD\tmy comm\tprocs: 0,1\nO2A\t1\t64 bytes\t2 msgs sent\n"
                                            "A2O\t1\t0 bytes\t0 msgs sent\nA2A\t1\t96 bytes\t3 msgs sent\n"
                                            "D\tquiet\tprocs: 0,1\nO2A\t1\t0 bytes\t0 msgs sent\n")},
                                     Annotations::read);
  for (const Dumps* d : {&from_job, &from_prof}) {
    ASSERT_EQ(d->collectives.size(), 1u);  // communicators without calls are left out
    const CollectiveRow& r = d->collectives[0];
    EXPECT_EQ(r.rank, 1);
    EXPECT_EQ(r.communicator, "my comm");
    EXPECT_EQ(r.classes[0].messages, 2u);
    EXPECT_EQ(r.classes[0].bytes, 64u);
    EXPECT_EQ(r.classes[2].messages, 3u);
    EXPECT_EQ(r.classes[2].bytes, 96u);
  }
}

TEST_F(DumpsTest, Version2CollectivesNameTheirCommunicatorByIdentity) {
  // The identity ties each collectives line to one communicator line, wherever it is.
  JobHeader header;
  header.world_size = 3;
  header.open_mpi_version = "4.1.4";
  header.start_time = header.end_time = "2026-01-01T00:00:00Z";
  const std::string text = assemble_job_file(
      header, {"collectives 0 4-00000000000000aa 0 0 0 0 1 8\ncollectives 0 4-00000000000000bb 1 4 0 0 0 0\n",
               "communicator 4-00000000000000aa MPI_COMMUNICATOR%204%20SPLIT%20FROM%200 1,0\n"
               "communicator 4-00000000000000bb MPI_COMMUNICATOR%204%20SPLIT%20FROM%200 1,0,2\n",
               ""});
  const Dumps d = read_dumps({write("j.txt", text)}, Annotations::read);
  ASSERT_EQ(d.collectives.size(), 2u);
  EXPECT_EQ(d.collectives[0].communicator, "MPI_COMMUNICATOR 4 SPLIT FROM 0");
  EXPECT_EQ(d.collectives[1].communicator, "MPI_COMMUNICATOR 4 SPLIT FROM 0");
}

TEST_F(DumpsTest, WindowSynchronisationFromJobAndProfFilesAgree) {
  const Dumps from_job =
      read_dumps({write("j.txt", job("window_sync 2 my%20win lock 3 0.000001500\n"))}, Annotations::read);
  const Dumps from_prof =
      read_dumps({write("p.2.prof", "# OSC\n# SYNC\t2\tmy win\tlock\t3 calls\t0.000001500 s\n")}, Annotations::read);
  for (const Dumps* d : {&from_job, &from_prof}) {
    ASSERT_EQ(d->window_syncs.size(), 1u);
    EXPECT_EQ(d->window_syncs[0].rank, 2);
    EXPECT_EQ(d->window_syncs[0].window, "my win");
    EXPECT_EQ(d->window_syncs[0].kind, "lock");
    EXPECT_EQ(d->window_syncs[0].calls, 3u);
    EXPECT_DOUBLE_EQ(d->window_syncs[0].seconds, 1.5e-6);
  }
}

}  // namespace
}  // namespace mpimon::tools
