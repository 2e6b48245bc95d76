// `mpimon report`'s MPI-IO section from the io lines: per file and per rank, bytes asked,
// reached and failed (failures never counted as reached), "-" where ROMIO has no
// file-system view.
#include <gtest/gtest.h>

#include "readers/job_reader.h"
#include "report/sections.h"

using namespace mpimon;
using namespace mpimon::tools;

namespace {

const std::string kId = "0123456789abcdef";

void add(ReportInput& input, const std::string& keyword, std::vector<std::string> fields) {
  input.io.add_job_annotation(JobAnnotation{keyword, std::move(fields), 1}, "j", 4);
}

}  // namespace

TEST(IoSection, FailuresHaveTheirOwnColumnsBesideWhatReachedTheFile) {
  ReportInput input;
  add(input, "io_file", {kId, "full/out.dat", "0-1"});
  for (const std::string rank : {"0", "1"}) {
    add(input, "io_rank",
        {rank, kId, "ompio", "vulcan", "1", "1", "0", "0", "0", "0", "0", "0", "1", rank == "0" ? "1" : "0", "0", "0.5",
         "0"});
    add(input, "io_asked", {rank, kId, "write_at_all", "1", "65536", "17:1"});
  }
  add(input, "io_fs", {"0", kId, "write", "1", "1", "4096", "0", "0", "4096", "13:1"});
  add(input, "io_fs_failed", {"0", kId, "write", "2", "126976"});
  add(input, "io_fs_failed", {"1", kId, "read", "1", "10"});
  const std::string html = io_section(input);
  // file: read asked, reached, failed; written asked, reached, failed
  EXPECT_NE(html.find("<td class=\"name\">full/out.dat</td><td>2</td><td class=\"name\">ompio/vulcan</td>"
                      "<td>0</td><td>0</td><td>1 ops, 10 B</td><td>131072</td><td>4096</td><td>2 ops, 126976 B</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<td class=\"name\">full/out.dat</td><td>0</td><td>0</td><td>0</td><td>0</td>"
                      "<td>65536</td><td>4096</td><td>2 ops, 126976 B</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<td class=\"name\">full/out.dat</td><td>1</td><td>0</td><td>0</td><td>1 ops, 10 B</td>"
                      "<td>65536</td><td>0</td><td>0</td>"),
            std::string::npos)
      << html;
}

TEST(IoSection, RomioHasNoFileSystemView) {
  ReportInput input;
  add(input, "io_rank", {"0", kId, "romio321", "-", "1", "1", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0.5", "0"});
  add(input, "io_asked", {"0", kId, "write_at", "1", "8", "4:1"});
  const std::string html = io_section(input);
  EXPECT_NE(html.find("<td class=\"name\">romio321</td><td>0</td><td>-</td><td>-</td><td>8</td><td>-</td><td>-</td>"),
            std::string::npos)
      << html;
  EXPECT_EQ(io_section(ReportInput{}), "");
}
