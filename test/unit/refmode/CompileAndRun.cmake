# cmake -P script: compiles SOURCE with g++ and clang++-19 (-std=c++23) and runs both
# binaries. Inputs: SOURCE, INCLUDE_DIR, WORK_DIR, GXX.
file(MAKE_DIRECTORY ${WORK_DIR})
set(compilers "gxx=${GXX}")
if(EXISTS /usr/bin/clang++-19)
  list(APPEND compilers "clang=/usr/bin/clang++-19")
else()
  message(WARNING "clang++-19 not found: only g++ is checked")
endif()
foreach(entry ${compilers})
  string(REPLACE "=" ";" pair "${entry}")
  list(GET pair 0 name)
  list(GET pair 1 compiler)
  set(binary ${WORK_DIR}/coverage_${name})
  execute_process(
    COMMAND ${compiler} -std=c++23 -O1 -Wall -Wextra -Werror -Wno-unused-parameter
            -I${INCLUDE_DIR} ${SOURCE} -o ${binary}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name}: compiling ${SOURCE} failed:\n${out}${err}")
  endif()
  execute_process(COMMAND ${binary} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${name}: ${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name}: ${binary} failed (exit ${rc})")
  endif()
endforeach()
