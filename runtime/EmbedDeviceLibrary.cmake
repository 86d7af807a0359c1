# Writes OUTPUT, a C++ file defining helion::rt::deviceLibrary(): each header of
# the device library as a raw string, named as NVRTC's #include sees it
# ("helion/device.cuh"). Run by the build (cmake -P) whenever a header changes.
#   cmake -DDEVICE_DIR=<runtime/device> -DOUTPUT=<file.cpp> -DHEADERS="helion/a.cuh;..." -P EmbedDeviceLibrary.cmake
set(body "")
foreach(name ${HEADERS})
  file(READ "${DEVICE_DIR}/${name}" text)
  string(FIND "${text}" ")helion_embed\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${name} contains the raw-string delimiter )helion_embed\"")
  endif()
  string(APPEND body "      {\"${name}\", R\"helion_embed(${text})helion_embed\"},\n")
endforeach()
file(WRITE "${OUTPUT}.tmp"
"// Generated from runtime/device by EmbedDeviceLibrary.cmake: do not edit.
#include \"helion/runtime/Compile.h\"

namespace helion::rt {

const std::vector<EmbeddedHeader>& deviceLibrary() {
  static const std::vector<EmbeddedHeader> headers = {
${body}  };
  return headers;
}

}  // namespace helion::rt
")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
