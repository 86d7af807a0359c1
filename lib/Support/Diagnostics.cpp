//===- Diagnostics.cpp - Clang-style diagnostics --------------------------===//
#include "helion/Support/Diagnostics.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <sstream>
#include <unistd.h>

namespace helion {

DiagnosticEngine::DiagnosticEngine(std::ostream& out) : out_(out) {}

void DiagnosticEngine::addFile(const std::string& file, std::string text) {
  files_[file] = std::move(text);
}

const std::string* DiagnosticEngine::fileText(const std::string& file) {
  auto it = files_.find(file);
  if (it != files_.end())
    return &it->second;
  std::ifstream in(file, std::ios::binary);
  if (!in)
    return nullptr;
  std::ostringstream ss;
  ss << in.rdbuf();
  return &(files_[file] = ss.str());
}

static const char* severityName(Severity s) {
  switch (s) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Note:
    return "note";
  }
  return "error";
}

static const char* severityColor(Severity s) {
  switch (s) {
  case Severity::Error:
    return "\033[1;31m";
  case Severity::Warning:
    return "\033[1;35m";
  case Severity::Note:
    return "\033[1;36m";
  }
  return "";
}

void DiagnosticEngine::report(Severity severity, const ir::SourceLoc& loc,
                              const std::string& message) {
  if (severity == Severity::Error)
    ++errors_;
  if (capture_) {
    capture_->push_back({severity, loc, message});
    return;
  }
  const char* bold = color_ ? "\033[1m" : "";
  const char* reset = color_ ? "\033[0m" : "";
  out_ << bold;
  if (loc.valid())
    out_ << loc.file << ':' << loc.line << ':' << loc.col << ": ";
  else if (!loc.file.empty())
    out_ << loc.file << ": ";
  else
    out_ << "helionc: ";
  out_ << (color_ ? severityColor(severity) : "") << severityName(severity) << ": " << reset
       << bold << message << reset << '\n';
  if (!loc.valid())
    return;
  const std::string* text = fileText(loc.file);
  if (!text)
    return;
  // Find the 1-based line `loc.line`.
  size_t start = 0;
  for (int line = 1; line < loc.line && start != std::string::npos; ++line) {
    start = text->find('\n', start);
    if (start != std::string::npos)
      ++start;
  }
  if (start == std::string::npos || start > text->size())
    return;
  size_t end = text->find('\n', start);
  std::string lineText = text->substr(start, end == std::string::npos ? end : end - start);
  // A long line (minified JSON, a generated expression) shows a window of
  // kWindow characters around the column, each cut side marked "...".
  constexpr size_t kWindow = 100;
  size_t col = static_cast<size_t>(std::max(loc.col, 1)) - 1; // 0-based in lineText
  std::string prefix;
  if (lineText.size() > kWindow) {
    size_t from = col > kWindow / 2 ? std::min(col - kWindow / 2, lineText.size() - kWindow) : 0;
    bool cutEnd = from + kWindow < lineText.size();
    lineText = (from > 0 ? "..." : "") + lineText.substr(from, kWindow) + (cutEnd ? "..." : "");
    col = col - from + (from > 0 ? 3 : 0);
  }
  std::string number = std::to_string(loc.line);
  out_ << ' ' << number << " | " << lineText << '\n';
  out_ << ' ' << std::string(number.size(), ' ') << " | ";
  // Keep tabs so the caret lines up under tab-indented code.
  for (size_t i = 0; i < col && i < lineText.size(); ++i)
    out_ << (lineText[i] == '\t' ? '\t' : ' ');
  out_ << (color_ ? "\033[1;32m" : "") << '^' << reset << '\n';
}

void DiagnosticEngine::error(const std::string& message) { report(Severity::Error, {}, message); }

bool stderrWantsColor() {
  const char* noColor = std::getenv("NO_COLOR");
  if (noColor && *noColor)
    return false;
  return isatty(2) != 0;
}

} // namespace helion
