//===- ChildProcess.cpp - Run a job in a child with a wall-clock limit -----===//
//
// NVRTC has no time limit of its own and cannot be interrupted inside a process:
// `--emit cubin/ptx` and `--aot-arch` run it in forked children (several at once)
// that are killed when the limit passes. A child inherits stdout and stderr and
// writes its results itself.
//===----------------------------------------------------------------------===//
#include "Driver.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <poll.h>

#include <algorithm>
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

std::vector<ChildResult> runInChildren(size_t count, const std::function<int(size_t)>& job,
                                       double seconds, int parallel) {
  using Clock = std::chrono::steady_clock;
  std::vector<ChildResult> results(count, {ChildResult::Kind::Exited, 1});
  struct Running {
    pid_t pid;
    size_t index;
    Clock::time_point deadline;
  };
  std::vector<Running> running;
  size_t next = 0;
  constexpr auto kLongestPause = std::chrono::milliseconds(50);
  auto pause = std::chrono::milliseconds(1);
  while (next < count || !running.empty()) {
    while (next < count && static_cast<int>(running.size()) < std::max(1, parallel)) {
      std::cout.flush();
      std::cerr.flush();
      std::fflush(nullptr);
      const size_t i = next++;
      pid_t pid = fork();
      if (pid < 0) { // no child to be had: run it here, without a limit
        results[i] = {ChildResult::Kind::Exited, job(i)};
        continue;
      }
      if (pid == 0) {
        int rc = job(i);
        std::cout.flush();
        std::cerr.flush();
        std::fflush(nullptr);
        _exit(rc);
      }
      running.push_back({pid, i, Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                      std::chrono::duration<double>(seconds))});
      pause = std::chrono::milliseconds(1);
    }
    bool progress = false;
    for (size_t r = 0; r < running.size();) {
      int status = 0;
      pid_t done = waitpid(running[r].pid, &status, WNOHANG);
      ChildResult result{ChildResult::Kind::Exited, 1};
      if (done == running[r].pid) {
        if (WIFSIGNALED(status))
          result = {ChildResult::Kind::Signaled, WTERMSIG(status)};
        else
          result = {ChildResult::Kind::Exited, WIFEXITED(status) ? WEXITSTATUS(status) : 1};
      } else if (done == 0 && seconds > 0 && Clock::now() >= running[r].deadline) {
        kill(running[r].pid, SIGKILL);
        waitpid(running[r].pid, &status, 0);
        result = {ChildResult::Kind::TimedOut, 0};
      } else if (done == 0) {
        ++r;
        continue;
      }
      results[running[r].index] = result;
      running.erase(running.begin() + static_cast<long>(r));
      progress = true;
    }
    if (!progress && !running.empty()) {
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, kLongestPause);
    }
  }
  return results;
}

/// Runs `argv` with stdout read line by line into `lines`, stderr into `err`; kills it
/// after `timeoutS`. Returns the exit status (128 + signal when killed by one, -1 when
/// it timed out).
int runProgram(const std::vector<std::string>& argv, double timeoutS,
               std::vector<std::string>& lines, std::string& err) {
  using Clock = std::chrono::steady_clock;
  int out[2], errp[2];
  if (pipe(out) != 0 || pipe(errp) != 0)
    return -2;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    dup2(errp[1], 2);
    close(out[0]);
    close(errp[0]);
    std::vector<char*> a;
    for (const std::string& s : argv)
      a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    execvp(a[0], a.data());
    _exit(127);
  }
  close(out[1]);
  close(errp[1]);
  auto deadline = Clock::now() + std::chrono::duration<double>(timeoutS);
  std::string partial;
  bool timedOut = false;
  pollfd fds[2] = {{out[0], POLLIN, 0}, {errp[0], POLLIN, 0}};
  int open = 2;
  while (open > 0) {
    int ms = static_cast<int>(
        std::chrono::duration<double, std::milli>(deadline - Clock::now()).count());
    if (ms <= 0) {
      timedOut = true;
      kill(pid, SIGKILL);
      break;
    }
    if (poll(fds, 2, std::min(ms, 1000)) < 0)
      break;
    for (pollfd& f : fds) {
      if (f.fd < 0 || !(f.revents & (POLLIN | POLLHUP)))
        continue;
      char buf[4096];
      ssize_t n = read(f.fd, buf, sizeof buf);
      if (n <= 0) {
        close(f.fd);
        f.fd = -1;
        --open;
        continue;
      }
      if (&f == &fds[0]) {
        partial.append(buf, static_cast<size_t>(n));
        size_t nl;
        while ((nl = partial.find('\n')) != std::string::npos) {
          lines.push_back(partial.substr(0, nl));
          partial.erase(0, nl + 1);
        }
      } else if (err.size() < 1 << 16) {
        err.append(buf, static_cast<size_t>(n));
      }
    }
  }
  for (pollfd& f : fds)
    if (f.fd >= 0)
      close(f.fd);
  int status = 0;
  waitpid(pid, &status, 0);
  if (timedOut)
    return -1;
  if (WIFSIGNALED(status))
    return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -2;
}

} // namespace helion::tool
