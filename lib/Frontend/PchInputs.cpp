//===- PchInputs.cpp - What a PCH build looked at, and whether it changed -===//
#include "PchInputs.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/xxhash.h>

namespace helion::frontend {
namespace {

namespace vfs = llvm::vfs;

Probe::Kind kindOf(llvm::sys::fs::file_type type) {
  switch (type) {
  case llvm::sys::fs::file_type::regular_file:
    return Probe::Kind::File;
  case llvm::sys::fs::file_type::directory_file:
    return Probe::Kind::Directory;
  default:
    return Probe::Kind::Other;
  }
}

/// A file opened through the recorder: its bytes are hashed as Clang reads them, so
/// the manifest describes exactly what went into the PCH.
class RecordingFile : public vfs::File {
public:
  RecordingFile(std::unique_ptr<vfs::File> inner, std::string path, PchInputs& inputs)
      : inner_(std::move(inner)), path_(std::move(path)), inputs_(inputs) {}

  llvm::ErrorOr<vfs::Status> status() override { return inner_->status(); }
  llvm::ErrorOr<std::string> getName() override { return inner_->getName(); }
  std::error_code close() override { return inner_->close(); }

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>>
  getBuffer(const llvm::Twine& name, int64_t fileSize, bool requiresNullTerminator,
            bool isVolatile) override {
    auto buffer = inner_->getBuffer(name, fileSize, requiresNullTerminator, isVolatile);
    if (buffer) {
      Probe& probe = inputs_.probes[path_];
      probe.kind = Probe::Kind::File;
      probe.size = (*buffer)->getBufferSize();
      probe.contentHash = contentHash((*buffer)->getBuffer());
    }
    return buffer;
  }

private:
  std::unique_ptr<vfs::File> inner_;
  std::string path_;
  PchInputs& inputs_;
};

class RecordingFileSystem : public vfs::ProxyFileSystem {
public:
  RecordingFileSystem(llvm::IntrusiveRefCntPtr<vfs::FileSystem> base, PchInputs& inputs)
      : ProxyFileSystem(std::move(base)), inputs_(inputs) {}

  llvm::ErrorOr<vfs::Status> status(const llvm::Twine& path) override {
    auto result = ProxyFileSystem::status(path);
    record(path.str(), result);
    return result;
  }
  bool exists(const llvm::Twine& path) override { return bool(status(path)); }

  llvm::ErrorOr<std::unique_ptr<vfs::File>> openFileForRead(const llvm::Twine& path) override {
    std::string spelled = path.str();
    auto file = ProxyFileSystem::openFileForRead(spelled);
    if (!file) {
      record(spelled, file.getError());
      return file;
    }
    record(spelled, (*file)->status());
    return std::unique_ptr<vfs::File>(
        std::make_unique<RecordingFile>(std::move(*file), spelled, inputs_));
  }

  vfs::directory_iterator dir_begin(const llvm::Twine& dir, std::error_code& ec) override {
    inputs_.listedDirectory = true;
    return ProxyFileSystem::dir_begin(dir, ec);
  }

private:
  void record(const std::string& path, const llvm::ErrorOr<vfs::Status>& status) {
    Probe& probe = inputs_.probes[path];
    if (!probe.contentHash.empty())
      return; // read already: that is what counts
    probe.kind = status ? kindOf(status->getType()) : Probe::Kind::Missing;
    probe.size = status && probe.kind == Probe::Kind::File ? status->getSize() : 0;
  }

  PchInputs& inputs_;
};

char kindLetter(Probe::Kind kind) {
  switch (kind) {
  case Probe::Kind::Missing:
    return 'm';
  case Probe::Kind::File:
    return 'f';
  case Probe::Kind::Directory:
    return 'd';
  case Probe::Kind::Other:
    return 'o';
  }
  return '?';
}

} // namespace

llvm::IntrusiveRefCntPtr<vfs::FileSystem>
recordingFileSystem(llvm::IntrusiveRefCntPtr<vfs::FileSystem> base, PchInputs& inputs) {
  return llvm::makeIntrusiveRefCnt<RecordingFileSystem>(std::move(base), inputs);
}

std::string contentHash(llvm::StringRef bytes) {
  llvm::XXH128_hash_t h = llvm::xxh3_128bits(llvm::arrayRefFromStringRef(bytes));
  return llvm::utohexstr(h.high64, /*LowerCase=*/true, /*Width=*/16) +
         llvm::utohexstr(h.low64, /*LowerCase=*/true, /*Width=*/16);
}

std::optional<std::string> firstChangedInput(const PchInputs& inputs) {
  for (const auto& [path, probe] : inputs.probes) {
    llvm::sys::fs::file_status status;
    Probe::Kind now = llvm::sys::fs::status(path, status) ? Probe::Kind::Missing
                                                          : kindOf(status.type());
    if (now != probe.kind)
      return path;
    if (probe.contentHash.empty())
      continue; // only probed: that it is still there (or not) is what mattered
    if (status.getSize() != probe.size)
      return path;
    auto bytes = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false);
    if (!bytes || contentHash((*bytes)->getBuffer()) != probe.contentHash)
      return path;
  }
  return std::nullopt;
}

std::string serializeInputs(const PchInputs& inputs) {
  std::string out;
  for (const auto& [path, probe] : inputs.probes) {
    out += kindLetter(probe.kind);
    out += ' ' + std::to_string(probe.size) + ' ';
    out += probe.contentHash.empty() ? "-" : probe.contentHash;
    out += ' ' + path + '\n';
  }
  return out;
}

std::optional<PchInputs> parseInputs(llvm::StringRef text) {
  PchInputs inputs;
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    text = rest;
    auto [kind, afterKind] = line.split(' ');
    auto [size, afterSize] = afterKind.split(' ');
    auto [hash, path] = afterSize.split(' ');
    Probe probe;
    if (kind == "m")
      probe.kind = Probe::Kind::Missing;
    else if (kind == "f")
      probe.kind = Probe::Kind::File;
    else if (kind == "d")
      probe.kind = Probe::Kind::Directory;
    else if (kind == "o")
      probe.kind = Probe::Kind::Other;
    else
      return std::nullopt;
    if (size.getAsInteger(10, probe.size) || path.empty() || (hash != "-" && hash.size() != 32))
      return std::nullopt;
    if (hash != "-")
      probe.contentHash = hash.str();
    inputs.probes[path.str()] = std::move(probe);
  }
  return inputs;
}

} // namespace helion::frontend
