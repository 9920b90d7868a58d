# Warnings, sanitizers and coverage for every target of the project.

add_compile_options(
    -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes
    -Wpointer-arith -Wwrite-strings -Wformat=2 -Wno-format-nonliteral
    -Wimplicit-fallthrough -Wundef -Wcast-align -Wvla
    -fno-common)
add_compile_definitions(_GNU_SOURCE)

if(CWRAP_WERROR)
    add_compile_options(-Werror)
endif()

# The sanitizer runtime that LD_PRELOAD must name first for preloaded tests
# (empty when no sanitizer is in use).
set(CWRAP_SANITIZER_RUNTIME "")
if(CWRAP_SANITIZER STREQUAL "address")
    add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                        -fno-omit-frame-pointer)
    add_link_options(-fsanitize=address,undefined)
    set(_cwrap_rt libasan.so)
elseif(CWRAP_SANITIZER STREQUAL "thread")
    add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
    add_link_options(-fsanitize=thread)
    set(_cwrap_rt libtsan.so)
elseif(NOT CWRAP_SANITIZER STREQUAL "")
    message(FATAL_ERROR "CWRAP_SANITIZER must be '', 'address' or 'thread', not '${CWRAP_SANITIZER}'")
endif()

if(DEFINED _cwrap_rt)
    # With the build's flags (-m32 picks the 32-bit runtime).
    separate_arguments(_cwrap_flags UNIX_COMMAND "${CMAKE_C_FLAGS_INIT} ${CMAKE_C_FLAGS}")
    execute_process(COMMAND ${CMAKE_C_COMPILER} ${_cwrap_flags} -print-file-name=${_cwrap_rt}
                    OUTPUT_VARIABLE CWRAP_SANITIZER_RUNTIME
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    get_filename_component(CWRAP_SANITIZER_RUNTIME "${CWRAP_SANITIZER_RUNTIME}" REALPATH)
    if(NOT EXISTS "${CWRAP_SANITIZER_RUNTIME}")
        message(FATAL_ERROR "sanitizer runtime ${_cwrap_rt} not found")
    endif()
endif()

# libFuzzer build (tools/fuzz, clang only): every object instrumented for
# coverage; the fuzz targets link the fuzzer's main (tests/fuzz).
if(CWRAP_FUZZ)
    if(NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
        message(FATAL_ERROR "CWRAP_FUZZ needs clang (CC=clang)")
    endif()
    add_compile_options(-fsanitize=fuzzer-no-link)
endif()

if(CWRAP_COVERAGE)
    add_compile_options(--coverage -O0)
    add_link_options(--coverage)
endif()
