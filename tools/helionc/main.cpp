//===- main.cpp - helionc: C++ kernels to tuned CUDA -----------------------===//
//
// Exit codes: 0 ok, 1 errors in the input (diagnostics printed), 2 usage.
//===----------------------------------------------------------------------===//
#include "Driver.h"
#include "Tune.h"

#include <pthread.h>

#include <functional>
#include <iostream>

namespace {

/// Usage errors in the tool's voice, with where to find help:
///   helionc: error: --emit: asm not in {ir,cuda,host,cubin}
///   Run 'helionc compile --help' for more information.
std::string usageError(const CLI::App* app, const CLI::Error& e) {
  std::string command = "helionc";
  for (const CLI::App* sub : app->get_subcommands())
    command += " " + sub->get_name();
  return "helionc: error: " + std::string(e.what()) + "\nRun '" + command +
         " --help' for more information.\n";
}

/// Runs `body` on a thread with a 1 GiB stack and returns its result. Clang's
/// analysis and helionc's own IR walkers recurse once per level of an expression;
/// a generated kernel's megabyte-long expression overflows the main thread's 8 MiB
/// (clang++ itself crashes on it). The memory is reserved, not used, until touched;
/// the frontend caps the nesting that reaches the IR (Frontend.cpp).
int runOnLargeStack(const std::function<int()>& body) {
  constexpr size_t kStackBytes = size_t{1} << 30;
  struct Job {
    const std::function<int()>* body;
    int result = 1;
  } job{&body};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_t thread;
  bool started = pthread_attr_setstacksize(&attr, kStackBytes) == 0 &&
                 pthread_create(
                     &thread, &attr,
                     [](void* p) -> void* {
                       auto* j = static_cast<Job*>(p);
                       j->result = (*j->body)();
                       return nullptr;
                     },
                     &job) == 0;
  pthread_attr_destroy(&attr);
  if (!started) // no thread to be had: the main thread's stack is better than nothing
    return body();
  pthread_join(thread, nullptr);
  return job.result;
}

int helionMain(int argc, char** argv) {
  CLI::App app{"helionc: compiles C++ kernels written with <helion/hl.h> to CUDA, "
               "and rewrites their host code to launch them",
               "helionc"};
  app.set_version_flag("--version", std::string(helion::tool::kVersion));
  app.require_subcommand(1);
  app.failure_message(usageError);
  helion::tool::registerCompile(app);
  helion::tool::registerSpec(app);
  helion::tool::registerTune(app);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    sub->set_version_flag("--version", std::string(helion::tool::kVersion));
  // CLI11 reads an unknown command as a stray positional ("A subcommand is required").
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
      known = known || sub->get_name() == argv[1];
    if (!known) {
      std::cerr << "helionc: error: unknown command '" << argv[1]
                << "' (expected 'compile', 'spec' or 'tune')\nRun 'helionc --help' for more "
                   "information.\n";
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "helionc: internal compiler error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  return runOnLargeStack([&] { return helionMain(argc, argv); });
}
