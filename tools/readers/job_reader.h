// Reading the job file (formats/job_format.h): every check the format allows, streaming
// or whole. Pure C++, in mpimon_readers: the tools and tests link it, the runtime
// library never does.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.h"
#include "formats/job_format.h"
#include "readers/format_error.h"

namespace mpimon {

struct JobRecord {
  int32_t source = 0;
  int32_t destination = 0;
  Category category = Category::external;
  Counters counters;
  size_t line = 0;  // 1-based line number in the file
};

struct JobAnnotation {
  std::string keyword;
  std::vector<std::string> fields;
  size_t line = 0;
};

struct JobFile {
  JobHeader header;
  std::vector<JobRecord> records;
  std::vector<JobAnnotation> annotations;
};

// Reading checks everything the format says (version 2: every checksum and the end
// line) and throws FormatError "<file>:<line>: expected ..." otherwise.
JobFile parse_job_file(std::string_view text, std::string_view source_name);
// The same, streaming: each record and annotation to a callback (large files without
// holding every record); returns the header.
JobHeader for_each_job_record(std::string_view text, std::string_view source_name,
                              const std::function<void(const JobRecord&)>& on_record,
                              const std::function<void(JobAnnotation&&)>& on_annotation = {});
JobFile read_job_file(const std::string& path);  // throws FormatError

// The program a job file names (its `program` annotation: formats/job_format.h), or ""
// when it has none (files of older versions).
std::string job_program(const JobFile& file);

}  // namespace mpimon
