// Test helper: what a call writes to the process's stdout and stderr file
// descriptors, whether through C's stdio or std::cout/std::cerr, by pointing
// fds 1 and 2 at temporary files for the call.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>

namespace memjit::test {

struct CapturedOutput {
  std::string out;              // everything written to stdout
  std::string err;              // everything written to stderr
  std::string outBeforeFlush;   // what reached stdout's fd before anything was flushed after the call
};

namespace capture_detail {
inline std::string contents(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return "<fstat failed>";
  std::string s(static_cast<std::size_t>(st.st_size), '\0');
  if (!s.empty() && ::pread(fd, s.data(), s.size(), 0) != static_cast<ssize_t>(s.size())) return "<pread failed>";
  return s;
}
}  // namespace capture_detail

template <typename F>
CapturedOutput captureOutput(F&& call) {
  std::cout.flush();
  std::fflush(stdout);
  std::cerr.flush();
  std::fflush(stderr);
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  if (!out || !err) {
    ADD_FAILURE() << "tmpfile failed";
    return {};
  }
  const int savedOut = ::dup(1), savedErr = ::dup(2);
  ::dup2(::fileno(out), 1);
  ::dup2(::fileno(err), 2);
  call();
  CapturedOutput c;
  c.outBeforeFlush = capture_detail::contents(::fileno(out));
  std::cout.flush();
  std::fflush(stdout);
  std::cerr.flush();
  std::fflush(stderr);
  ::dup2(savedOut, 1);
  ::dup2(savedErr, 2);
  ::close(savedOut);
  ::close(savedErr);
  c.out = capture_detail::contents(::fileno(out));
  c.err = capture_detail::contents(::fileno(err));
  std::fclose(out);
  std::fclose(err);
  return c;
}

}  // namespace memjit::test
