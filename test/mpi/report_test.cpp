// mpimon report end to end: a real job's dumps to an HTML page that headless Chromium
// renders (not blank) without console errors.
#include <gtest/gtest.h>

#include <filesystem>

#include "mpi_job.h"

namespace fs = std::filesystem;
using namespace mpimon::test;

TEST(Report, RendersInHeadlessChromiumWithoutErrors8Ranks) {
  if (!fs::exists("/usr/bin/chromium")) GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it)";
  const JobResult job = run_job(8, {"--mca", "pml_monitoring_enable", "2", MPIMON_EXAMPLE, "ring", "reduce", "halo"});
  ASSERT_EQ(job.exit_code, 0) << job.output;
  const JobResult report = run_shell(job.folder, MPIMON_BIN " report mpimon-job.txt -o report.html");
  ASSERT_EQ(report.exit_code, 0) << report.output;
  const std::string page = read_text(job.folder / "report.html");
  for (const char* part : {"<h2>Totals</h2>", "<h2>Top talkers</h2>", "<h2>Message sizes</h2>",
                           "<h2>Collectives per communicator</h2>", "MPI_COMM_WORLD", "<svg"})
    EXPECT_NE(page.find(part), std::string::npos) << part;
  EXPECT_EQ(page.find("http"), page.find("http://www.w3.org/2000/svg")) << "no external resource";

  const std::string chromium =
      "timeout 60 /usr/bin/chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
      "--disable-background-networking --disable-component-update --disable-sync --user-data-dir=chrome "
      "--enable-logging=stderr --v=0 --window-size=1200,1600 ";
  const JobResult shot = run_shell(job.folder, chromium + "--screenshot=report.png file://" +
                                                   (job.folder / "report.html").string());
  ASSERT_EQ(shot.exit_code, 0) << shot.output;
  EXPECT_EQ(shot.output.find(":CONSOLE"), std::string::npos) << "the page logged: " << shot.output;
  // A blank 1200x1600 page compresses to a few kilobytes; tables and heatmaps do not.
  ASSERT_TRUE(fs::exists(job.folder / "report.png"));
  EXPECT_GT(fs::file_size(job.folder / "report.png"), 20000u);
  const JobResult dom = run_shell(job.folder, chromium + "--dump-dom file://" + (job.folder / "report.html").string());
  EXPECT_NE(dom.output.find("Top talkers"), std::string::npos);
}
