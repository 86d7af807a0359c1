//===- ChildProcess.cpp - Run a job in a child with a wall-clock limit -----===//
//
// NVRTC has no time limit of its own and cannot be interrupted inside a process:
// `--emit cubin/ptx` runs it in a forked child that is killed when the limit
// passes. The child inherits stdout and stderr and writes its results itself.
//===----------------------------------------------------------------------===//
#include "Driver.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>

namespace helion::tool {

ChildResult runInChild(const std::function<int()>& job, double seconds) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) // no child to be had: run it here, without a limit
    return {ChildResult::Kind::Exited, job()};
  if (pid == 0) {
    int rc = job();
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    _exit(rc); // no atexit handlers or static destructors of the parent's state
  }
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  int status = 0;
  constexpr auto kLongestPause = std::chrono::milliseconds(50);
  for (auto pause = std::chrono::milliseconds(1);; pause = std::min(pause * 2, kLongestPause)) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid)
      break;
    if (done < 0)
      return {ChildResult::Kind::Exited, 1};
    if (seconds > 0 && Clock::now() >= deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return {ChildResult::Kind::TimedOut, 0};
    }
    std::this_thread::sleep_for(pause);
  }
  if (WIFSIGNALED(status))
    return {ChildResult::Kind::Signaled, WTERMSIG(status)};
  return {ChildResult::Kind::Exited, WIFEXITED(status) ? WEXITSTATUS(status) : 1};
}

} // namespace helion::tool
