// Runs a benchmark's helper program in a child process (a fresh process is
// what a cache hit or a replica start costs): its stdout and exit status.
#pragma once

#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

extern char** environ;

namespace memjit::bench {

/// Runs `args` (args[0] the program's path) and returns its exit status, or -1
/// when it could not run or did not exit; `printed` gets its stdout and
/// `cpuSeconds`, when given, its user + system time.
inline int runChild(const std::vector<std::string>& args, std::string& printed, double* cpuSeconds = nullptr) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  printed.clear();
  char chunk[256];
  for (ssize_t n; spawned == 0 && (n = read(fds[0], chunk, sizeof chunk)) > 0;) printed.append(chunk, n);
  close(fds[0]);
  if (spawned != 0) return -1;
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status)) return -1;
  if (cpuSeconds)
    *cpuSeconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                  static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  return WEXITSTATUS(status);
}

}  // namespace memjit::bench
