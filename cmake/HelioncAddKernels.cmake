# helionc_add_kernels(<target> KERNELS <file>... [CONFIG <best.json>]
#                     [ARCHS <arch>...] [DTYPES <dtype>...] [OPTIONS <arg>...])
#
# Compiles each kernel file with `helionc compile` at build time and adds the host code
# it generates (<stem>.helion.cpp) to <target>, which is linked with helionc::runtime
# and compiled as C++23. Relative paths are relative to the current source directory.
#
#   CONFIG   the config file for every kernel of these files (`--config`)
#   ARCHS    GPU architectures to compile ahead of time, one `--aot-arch` each
#   DTYPES   tensor dtypes of the ahead-of-time instantiations, one `--dtype` each
#   OPTIONS  more `helionc compile` options, passed as they are
#
# The kernel is parsed with the target's include directories and compile definitions.
# A kernel is compiled again when it, a header it includes (helionc's depfile names
# each), the config file or helionc changes, and at no other time. Outputs go to
# <binary dir>/helionc/<target>/<the kernel's directory>/, so kernels with the same
# name in different directories do not collide. Call it in the directory that defines
# <target>, whose target_link_libraries calls must use the keyword (PRIVATE/PUBLIC) form.
include_guard(GLOBAL)

# The policies the function runs under (recorded when it is defined): CMP0116, Ninja
# rewrites depfile paths relative to the build directory.
cmake_policy(PUSH)
cmake_policy(VERSION 3.20...3.31)

# <out dir> of a kernel file: its directory relative to the current source directory,
# or (outside it) a hash of its absolute directory.
function(_helionc_output_dir target kernel out)
  get_filename_component(dir "${kernel}" DIRECTORY)
  file(RELATIVE_PATH rel "${CMAKE_CURRENT_SOURCE_DIR}" "${dir}")
  if(IS_ABSOLUTE "${rel}" OR rel MATCHES "^\\.\\.(/|$)")
    string(MD5 hash "${dir}")
    string(SUBSTRING "${hash}" 0 12 hash)
    set(rel "_outside/${hash}")
  endif()
  set(${out} "${CMAKE_CURRENT_BINARY_DIR}/helionc/${target}/${rel}" PARENT_SCOPE)
endfunction()

function(helionc_add_kernels target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "CONFIG" "KERNELS;ARCHS;DTYPES;OPTIONS")
  set(usage "helionc_add_kernels(${target} KERNELS file... [CONFIG file] [ARCHS ...] "
            "[DTYPES ...] [OPTIONS ...])")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "helionc_add_kernels: unexpected arguments '${arg_UNPARSED_ARGUMENTS}'; "
                        "usage: ${usage}")
  endif()
  if(NOT arg_KERNELS)
    message(FATAL_ERROR "helionc_add_kernels: no KERNELS given; usage: ${usage}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "helionc_add_kernels: there is no target '${target}'")
  endif()
  if(NOT TARGET helionc::helionc)
    message(FATAL_ERROR "helionc_add_kernels: no helionc::helionc (this helionc package was "
                        "built without the frontend: HELIONC_ENABLE_FRONTEND=OFF)")
  endif()
  get_target_property(type ${target} TYPE)
  if(NOT type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$")
    message(FATAL_ERROR "helionc_add_kernels: '${target}' is a ${type}; expected an "
                        "executable or a library that compiles sources")
  endif()
  get_target_property(target_dir ${target} SOURCE_DIR)
  if(NOT target_dir STREQUAL CMAKE_CURRENT_SOURCE_DIR)
    message(FATAL_ERROR "helionc_add_kernels: call it in ${target_dir}, the directory that "
                        "defines '${target}' (its build rules live there)")
  endif()

  set(flags)
  set(config)
  if(arg_CONFIG)
    get_filename_component(config "${arg_CONFIG}" ABSOLUTE)
    list(APPEND flags --config "${config}")
  endif()
  foreach(arch IN LISTS arg_ARCHS)
    list(APPEND flags --aot-arch "${arch}")
  endforeach()
  foreach(dtype IN LISTS arg_DTYPES)
    list(APPEND flags --dtype "${dtype}")
  endforeach()
  list(APPEND flags ${arg_OPTIONS})
  # Clang sees what the target's own sources see (each expanded to one argument per
  # entry by COMMAND_EXPAND_LISTS; nothing when empty).
  set(incs "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  set(defs "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")

  get_target_property(generated_before ${target} HELIONC_GENERATED)
  if(NOT generated_before)
    set(generated_before)
  endif()
  foreach(kernel IN LISTS arg_KERNELS)
    get_filename_component(kernel "${kernel}" ABSOLUTE)
    get_filename_component(kernel_dir "${kernel}" DIRECTORY)
    get_filename_component(stem "${kernel}" NAME_WLE)
    _helionc_output_dir(${target} "${kernel}" out_dir)
    set(generated "${out_dir}/${stem}.helion.cpp")
    if(generated IN_LIST generated_before)
      message(FATAL_ERROR "helionc_add_kernels: '${kernel}' gives ${generated}, which another "
                          "kernel file of '${target}' gives too (listed twice?)")
    endif()
    list(APPEND generated_before "${generated}")
    file(RELATIVE_PATH shown "${PROJECT_SOURCE_DIR}" "${kernel}")
    add_custom_command(
      OUTPUT "${generated}"
      COMMAND helionc::helionc compile "${kernel}" -o "${out_dir}" --depfile "${generated}.d"
              ${flags} -- "$<$<BOOL:${incs}>:-I$<JOIN:${incs},;-I>>"
              "$<$<BOOL:${defs}>:-D$<JOIN:${defs},;-D>>"
      DEPENDS "${kernel}" ${config} "$<TARGET_FILE:helionc::helionc>"
      DEPFILE "${generated}.d"
      COMMENT "helionc: compiling ${shown}"
      COMMAND_EXPAND_LISTS VERBATIM)
    target_sources(${target} PRIVATE "${generated}")
    # The generated file is the kernel file rewritten: its #include "..." must find what
    # the original found beside itself.
    set_property(SOURCE "${generated}" APPEND PROPERTY COMPILE_OPTIONS "-iquote${kernel_dir}")
  endforeach()
  set_property(TARGET ${target} PROPERTY HELIONC_GENERATED "${generated_before}")
  target_link_libraries(${target} PRIVATE helionc::runtime)
  target_compile_features(${target} PRIVATE cxx_std_23)
endfunction()

cmake_policy(POP)
