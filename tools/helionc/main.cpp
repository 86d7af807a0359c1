//===- main.cpp - helionc: C++ kernels to tuned CUDA -----------------------===//
//
// Exit codes: 0 ok, 1 errors in the input (diagnostics printed), 2 usage.
//===----------------------------------------------------------------------===//
#include "Driver.h"

#include <iostream>

int main(int argc, char** argv) {
  CLI::App app{"helionc: compiles C++ kernels written with <helion/hl.h> to CUDA, "
               "and rewrites their host code to launch them"};
  app.set_version_flag("--version", std::string("helionc 0.1.0"));
  app.require_subcommand(1);
  helion::tool::registerCompile(app);
  helion::tool::registerSpec(app);
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
