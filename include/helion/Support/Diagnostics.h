//===- helion/Support/Diagnostics.h - Clang-style diagnostics ----*- C++ -*-===//
//
// Every user error in helionc is reported as
//   kernel.cpp:12:15: error: device code cannot call 'printf'
//      12 |     printf("%d", i);
//         |     ^
// and makes the tool exit 1. Compiler bugs are reported as "internal compiler
// error" with a location. Colors only on a terminal, and never with NO_COLOR.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/IR/Types.h"

#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace helion {

enum class Severity { Error, Warning, Note };

/// One report, as DiagnosticEngine::capture keeps it.
struct Diagnostic {
  Severity severity;
  ir::SourceLoc loc;
  std::string message;
};

class DiagnosticEngine {
public:
  explicit DiagnosticEngine(std::ostream& out);

  /// Makes `text` the contents of `file`, for the source line under a diagnostic.
  /// Files not registered are read from disk on first use.
  void addFile(const std::string& file, std::string text);

  void report(Severity severity, const ir::SourceLoc& loc, const std::string& message);
  void error(const ir::SourceLoc& loc, const std::string& message) {
    report(Severity::Error, loc, message);
  }
  void warning(const ir::SourceLoc& loc, const std::string& message) {
    report(Severity::Warning, loc, message);
  }
  void note(const ir::SourceLoc& loc, const std::string& message) {
    report(Severity::Note, loc, message);
  }
  /// An error with no location (`helionc: error: ...`).
  void error(const std::string& message);

  /// From now on, reports go to `sink` (counted, not printed); null prints again. For a
  /// question asked silently whose reason may be shown later (lib/Transforms'
  /// matmulTemplateTakes).
  void capture(std::vector<Diagnostic>* sink) { capture_ = sink; }

  int errorCount() const { return errors_; }
  bool hasErrors() const { return errors_ > 0; }
  void setColor(bool on) { color_ = on; }

private:
  const std::string* fileText(const std::string& file);

  std::ostream& out_;
  std::map<std::string, std::string> files_;
  int errors_ = 0;
  bool color_ = false;
  std::vector<Diagnostic>* capture_ = nullptr;
};

/// True when stderr is a terminal and NO_COLOR is unset.
bool stderrWantsColor();

} // namespace helion
