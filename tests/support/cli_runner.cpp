#include "support/cli_runner.h"

#include "support/files.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace memjit::test {

CliResult runCli(const std::vector<std::string>& args, const std::string& stdinText) {
  char dir[] = "/tmp/memjit-cli-XXXXXX";
  CliResult result;
  if (!mkdtemp(dir)) return result;
  std::string base(dir);
  std::string inPath = base + "/in", outPath = base + "/out", errPath = base + "/err";
  { std::ofstream(inPath, std::ios::binary) << stdinText; }
  pid_t pid = fork();
  if (pid == 0) {
    int in = open(inPath.c_str(), O_RDONLY);
    int out = open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    std::vector<char*> argv;
    std::string exe = MEMJIT_CLI;
    argv.push_back(exe.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = readFile(outPath);
  result.err = readFile(errPath);
  std::remove(inPath.c_str());
  std::remove(outPath.c_str());
  std::remove(errPath.c_str());
  rmdir(dir);
  return result;
}

}  // namespace memjit::test
