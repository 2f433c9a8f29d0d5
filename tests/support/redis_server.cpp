#include "support/redis_server.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include <arpa/inet.h>
#include <csignal>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace memjit::test {
namespace {

// A port the kernel just handed out (and that we released): free unless
// someone races us for it, which start() retries.
int freePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0)
    port = ntohs(address.sin_port);
  ::close(fd);
  return port;
}

// True once the server answers PING with +PONG.
bool answersPing(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = false;
  timeval timeout{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      ::write(fd, "PING\r\n", 6) == 6) {
    char reply[8] = {};
    ok = ::read(fd, reply, 7) >= 5 && std::string(reply).starts_with("+PONG");
  }
  ::close(fd);
  return ok;
}

}  // namespace

std::string redisServerBinary() {
  for (const char* candidate : {"/usr/bin/redis-server", "/usr/local/bin/redis-server"})
    if (::access(candidate, X_OK) == 0) return candidate;
  return "";
}

std::unique_ptr<RedisServer> RedisServer::start(std::string& why) {
  const std::string binary = redisServerBinary();
  if (binary.empty()) {
    why = "redis-server is not installed";
    return nullptr;
  }
  for (int attempt = 0; attempt < 5; ++attempt) {
    const int port = freePort();
    const auto directory = std::filesystem::temp_directory_path() /
                           ("memjit-redis-" + std::to_string(::getpid()) + "-" + std::to_string(port));
    std::filesystem::create_directories(directory);
    // Everything the child needs is made before fork: a threaded parent's child may not allocate.
    const std::string portText = std::to_string(port), log = (directory / "redis.log").string();
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the test
      ::execl(binary.c_str(), binary.c_str(), "--port", portText.c_str(), "--bind", "127.0.0.1", "--dir",
              directory.c_str(), "--save", "", "--appendonly", "no", "--loglevel", "warning", "--logfile",
              log.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    if (pid < 0) break;
    auto server = std::make_unique<RedisServer>(pid, port, directory.string());
    for (int wait = 0; wait < 500; ++wait) {
      if (answersPing(port)) return server;
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid) {
        server->pid_ = 0;  // exited (e.g. the port was taken meanwhile): try another
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  why = "redis-server did not start on a free port of 127.0.0.1";
  return nullptr;
}

void RedisServer::pause() { ::kill(pid_, SIGSTOP); }
void RedisServer::resume() { ::kill(pid_, SIGCONT); }

void RedisServer::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGCONT);
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = 0;
}

RedisServer::~RedisServer() {
  stop();
  std::error_code ec;
  std::filesystem::remove_all(directory_, ec);
}

}  // namespace memjit::test
