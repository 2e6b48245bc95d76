// mpimon report end to end: a real job's dumps to an HTML page that headless Chromium
// renders (not blank) without console errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "mpi_job.h"

namespace fs = std::filesystem;
using namespace mpimon::test;

namespace {

const std::string kChromium =
    "timeout 60 /usr/bin/chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
    "--disable-background-networking --disable-component-update --disable-sync --user-data-dir=chrome "
    "--enable-logging=stderr --v=0 ";

// The page's width as Chromium lays it out in a window `window_width` pixels wide: a copy of
// the page with a script that writes document.documentElement.scrollWidth into the DOM,
// which --dump-dom prints.
int laid_out_width(const fs::path& folder, const std::string& page, int window_width) {
  std::string probe = read_text(folder / page);
  probe.insert(probe.rfind("</body>"),
               "<script>document.body.setAttribute('data-scroll-width', "
               "document.documentElement.scrollWidth)</script>");
  std::ofstream(folder / ("probe-" + page)) << probe;
  const JobResult dom = run_shell(folder, kChromium + "--window-size=" + std::to_string(window_width) +
                                              ",1000 --dump-dom file://" + (folder / ("probe-" + page)).string());
  std::smatch m;
  if (!std::regex_search(dom.output, m, std::regex("data-scroll-width=\"(\\d+)\""))) {
    ADD_FAILURE() << "no width in the dumped DOM: " << dom.output.substr(0, 2000);
    return -1;
  }
  return std::stoi(m[1]);
}

// A job file that makes every table wide: 64 ranks, rank 0 sending messages of every size
// from 0 bytes to 1 GiB to its peers, long communicator and window names, many rows.
std::string wide_job_file() {
  std::string text =
      "# mpimon job file (one record per non-zero source, destination, category)\nformat mpimon-job 1\n"
      "world_size 64\nenable_level 2\nopen_mpi 4.1.4\nstart 2026-01-01T00:00:00Z\nend 2026-01-01T00:00:09Z\n"
      "records\n";
  for (int peer = 1; peer < 64; ++peer) {
    const int bucket = peer % 32;  // 0 B .. 1 GiB
    const unsigned long long bytes = bucket ? 1ull << (bucket - 1) : 0;
    text += "0 " + std::to_string(peer) + " external 3 " + std::to_string(3 * bytes) + " " + std::to_string(bucket) +
            ":3\n";
    text += std::to_string(peer) + " 0 internal 1 232000000 28:1\n";
  }
  const std::string long_name(120, 'c');
  for (int r = 0; r < 64; ++r) {
    for (int c = 0; c < 2; ++c)
      text += "collectives " + std::to_string(r) + " " + long_name + "_communicator_" + std::to_string(c) +
              " 1 64 2 128 300 " + std::to_string(30500000000ll + r) + "\n";
    text += "window_sync " + std::to_string(r) + " " + long_name + "_window lock 3 0.000001500\n";
  }
  return text;
}

}  // namespace

// Smoke for the picture: the sections and the absence of console errors are exact, the
// screenshot's size is only a lower bound (a blank page is a few kilobytes).
TEST(Report, RendersInHeadlessChromiumWithoutErrorsSmoke8Ranks) {
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

  const std::string chromium = kChromium + "--window-size=1200,1600 ";
  const JobResult shot =
      run_shell(job.folder, chromium + "--screenshot=report.png file://" + (job.folder / "report.html").string());
  ASSERT_EQ(shot.exit_code, 0) << shot.output;
  EXPECT_EQ(shot.output.find(":CONSOLE"), std::string::npos) << "the page logged: " << shot.output;
  // A blank 1200x1600 page compresses to a few kilobytes; tables and heatmaps do not.
  ASSERT_TRUE(fs::exists(job.folder / "report.png"));
  EXPECT_GT(fs::file_size(job.folder / "report.png"), 20000u);
  const JobResult dom = run_shell(job.folder, chromium + "--dump-dom file://" + (job.folder / "report.html").string());
  EXPECT_NE(dom.output.find("Top talkers"), std::string::npos);
}

TEST(Report, FitsA1280PixelWindowWithoutHorizontalScrolling8Ranks) {
  if (!fs::exists("/usr/bin/chromium")) GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it)";
  const JobResult job = run_job(8, {"--mca", "pml_monitoring_enable", "2", MPIMON_EXAMPLE, "ring", "reduce", "halo"});
  ASSERT_EQ(job.exit_code, 0) << job.output;
  std::ofstream(job.folder / "wide-job.txt") << wide_job_file();
  for (const std::string input : {"mpimon-job.txt", "wide-job.txt"}) {
    const JobResult report = run_shell(job.folder, MPIMON_BIN " report " + input + " -o " + input + ".html");
    ASSERT_EQ(report.exit_code, 0) << report.output;
    EXPECT_LE(laid_out_width(job.folder, input + ".html", 1280), 1280) << input;
  }
  const std::string wide = read_text(job.folder / "wide-job.txt.html");
  // Every size class of rank 0's messages, its busiest peers apart; bounded tables.
  EXPECT_NE(wide.find("<td class=\"name\">&lt;1G B</td>"), std::string::npos);
  EXPECT_NE(wide.find("other peers</th>"), std::string::npos);
  EXPECT_NE(wide.find("64 more rows not shown"), std::string::npos);
  // The heatmaps of a small job carry their numbers in the cells.
  EXPECT_NE(read_text(job.folder / "mpimon-job.txt.html").find("pointer-events=\"none\">"), std::string::npos);
}
