// A private redis-server for a test: on 127.0.0.1, a free port, a temporary
// directory, no persistence; stopped (and its directory removed) with the
// object. Tests that need one skip only when the redis-server binary is
// missing (./dev.sh installs it, so CI runs them).
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

namespace memjit::test {

class RedisServer {
 public:
  /// Starts a server; nullptr when none could start, with the reason in `why`.
  static std::unique_ptr<RedisServer> start(std::string& why);
  ~RedisServer();

  int port() const { return port_; }
  std::string url() const { return "redis://127.0.0.1:" + std::to_string(port_); }
  /// SIGSTOP / SIGCONT: a server that accepts connections but never answers.
  void pause();
  void resume();
  /// Ends the server (a server that is down); the port stays unused.
  void stop();

  RedisServer(pid_t pid, int port, std::string directory) : pid_(pid), port_(port), directory_(std::move(directory)) {}

 private:
  pid_t pid_;
  int port_;
  std::string directory_;
};

/// The redis-server binary, or "" when it is not installed.
std::string redisServerBinary();

}  // namespace memjit::test

/// Declares `server` (a std::unique_ptr<RedisServer>), skipping the test when redis-server is not installed
/// and failing it when the server would not start.
#define MEMJIT_START_REDIS(server)                                                                     \
  if (memjit::test::redisServerBinary().empty())                                                       \
    GTEST_SKIP() << "redis-server is not installed (Debian package redis-server; ./dev.sh installs it)"; \
  std::string server##_why;                                                                            \
  auto server = memjit::test::RedisServer::start(server##_why);                                        \
  ASSERT_TRUE(server) << server##_why
