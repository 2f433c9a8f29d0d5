#include "object_archive.h"

#include "llvm_error.h"

#include <llvm/Object/Archive.h>
#include <llvm/Object/ArchiveWriter.h>
#include <llvm/Support/MemoryBuffer.h>

namespace memjit::jit::detail {

bool isArchive(std::string_view bytes) noexcept {
  return bytes.starts_with(std::string_view(llvm::object::ArchiveMagic));
}

Expected<std::string> archiveObjects(const std::vector<std::string>& objects) {
  std::vector<std::string> names;
  names.reserve(objects.size());
  for (std::size_t i = 0; i < objects.size(); ++i) names.push_back("part" + std::to_string(i) + ".o");
  std::vector<llvm::NewArchiveMember> members;
  members.reserve(objects.size());
  for (std::size_t i = 0; i < objects.size(); ++i)
    members.emplace_back(llvm::MemoryBufferRef(llvm::StringRef(objects[i].data(), objects[i].size()), names[i]));
  auto archive = llvm::writeArchiveToBuffer(members, llvm::SymtabWritingMode::NoSymtab,
                                            llvm::object::Archive::K_GNU, /*Deterministic=*/true, /*Thin=*/false);
  if (!archive) return fromLLVM(archive.takeError(), ErrorCode::Internal, "cannot archive a module's objects");
  return std::string((*archive)->getBuffer());
}

Expected<std::vector<std::string_view>> objectsIn(std::string_view bytes) {
  if (!isArchive(bytes)) return std::vector<std::string_view>{bytes};
  auto archive = llvm::object::Archive::create(llvm::MemoryBufferRef(llvm::StringRef(bytes.data(), bytes.size()), "objects"));
  if (!archive) return fromLLVM(archive.takeError(), ErrorCode::ParseError, "cannot read a module's archive of objects");
  std::vector<std::string_view> objects;
  llvm::Error error = llvm::Error::success();
  for (const llvm::object::Archive::Child& child : (*archive)->children(error)) {
    auto member = child.getMemoryBufferRef();
    if (!member) {
      llvm::consumeError(std::move(error));
      return fromLLVM(member.takeError(), ErrorCode::ParseError, "cannot read a member of a module's archive");
    }
    objects.emplace_back(member->getBufferStart(), member->getBufferSize());
  }
  if (error) return fromLLVM(std::move(error), ErrorCode::ParseError, "cannot read a module's archive of objects");
  return objects;
}

}  // namespace memjit::jit::detail
