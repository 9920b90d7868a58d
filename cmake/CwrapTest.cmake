# cwrap_add_test(<name>
#                [SOURCES <c files...>]      build a cmocka test program
#                [COMMAND <cmd> [args...]]   or run a script / program
#                [PRELOAD socket|nss|uid|resolv|pam|priv...] libraries to preload
#                [ENV <VAR=value>...]        extra environment
#                [LABELS unit|preload|integration|threads|demo|noval...]
#                (COMMAND tests get the label "script" too)
#                [LINK <targets...>]         extra libraries to link
#                [TIMEOUT <seconds>]
#                [ANY_ARCH] [ANY_LIBC])      see below
#
# A test labelled "integration" preloads the wrappers into the system's
# programs (nc, getent, sshd, ...). In a build whose programs another
# dynamic loader runs than the system's (the i686 build on an x86_64 host,
# a musl build on a glibc system), the loader would ignore the libraries
# there, so such a test is registered but disabled (ctest lists it as "Not
# Run (Disabled)"), unless it says ANY_ARCH: it runs no system program
# under the wrappers where the loader would not ignore them (ANY_ARCH tests
# are disabled in a musl build too: there the system's programs do not
# start at all with this build's libraries preloaded), unless it says
# ANY_LIBC: it never preloads them into the system's programs.
#
# One line declares a test, what it preloads and its environment. Every test
# also sees, for scripts that preload by hand:
#   CWRAP_SOCKET_WRAPPER_LIB, CWRAP_NSS_WRAPPER_LIB, CWRAP_UID_WRAPPER_LIB,
#   CWRAP_RESOLV_WRAPPER_LIB, CWRAP_PRIV_WRAPPER_LIB, CWRAP_PAM_WRAPPER_LIB
#                         absolute paths of the built libraries (pam_wrapper's
#                         only where it is built: see src/pam_wrapper)
#   CWRAP_LIBRARY_PATH    the directories that hold them (for LD_LIBRARY_PATH,
#                         so `LD_PRELOAD=libsocket_wrapper.so` works as typed)
#   CWRAP_PRELOAD_PREFIX  the sanitizer runtime plus a space, or empty: put it
#                         first in any LD_PRELOAD a script sets
#   CWRAP_SOURCE_DIR, CWRAP_BINARY_DIR, CWRAP_TEST_BIN (tests' helper programs)
# In sanitizer builds the runtime is put first in LD_PRELOAD, as it must be.

set(CWRAP_TEST_DEFAULT_TIMEOUT 120)

# The dynamic loader of the system's programs (/bin/sh's PT_INTERP) and
# of this build's (a probe program's): when they differ, the system's
# programs cannot load this build's libraries.
function(_cwrap_interp file var)
    file(STRINGS "${file}" interp REGEX "^/[^ ]*/ld-[^ /]*\\.so[.0-9]*$" LIMIT_COUNT 1)
    set(${var} "${interp}" PARENT_SCOPE)
endfunction()
_cwrap_interp(/bin/sh CWRAP_HOST_INTERP)
set(_probe_src ${PROJECT_BINARY_DIR}/CMakeFiles/cwrap_interp_probe.c)
file(WRITE ${_probe_src} "int main(void) { return 0; }\n")
try_compile(_probe_ok ${PROJECT_BINARY_DIR}/CMakeFiles/cwrap_interp_probe
            SOURCES ${_probe_src}
            COPY_FILE ${PROJECT_BINARY_DIR}/CMakeFiles/cwrap_interp_probe.bin)
_cwrap_interp(${PROJECT_BINARY_DIR}/CMakeFiles/cwrap_interp_probe.bin CWRAP_BUILD_INTERP)
set(CWRAP_FOREIGN_PROGRAMS OFF)
if(NOT CWRAP_HOST_INTERP STREQUAL CWRAP_BUILD_INTERP)
    # "ignored": the system's loader skips libraries of the other word
    # size (i686 on x86_64) and runs the program unwrapped; "fail": it
    # cannot load this build's libraries at all (musl on glibc), and the
    # program does not start with them preloaded.
    file(READ /bin/sh _cwrap_elf_class OFFSET 4 LIMIT 1 HEX)
    if((_cwrap_elf_class STREQUAL "01") EQUAL (CMAKE_SIZEOF_VOID_P EQUAL 4))
        set(CWRAP_FOREIGN_PROGRAMS fail)
    else()
        set(CWRAP_FOREIGN_PROGRAMS ignored)
    endif()
    message(STATUS "The system's programs run under ${CWRAP_HOST_INTERP}, this build's under "
                   "${CWRAP_BUILD_INTERP}: the tests that preload the wrappers into the "
                   "system's programs are disabled")
endif()

function(cwrap_add_test name)
    cmake_parse_arguments(T "ANY_ARCH;ANY_LIBC" "TIMEOUT" "SOURCES;COMMAND;PRELOAD;ENV;LABELS;LINK" ${ARGN})

    if(T_SOURCES)
        add_executable(${name} ${T_SOURCES})
        target_link_libraries(${name} PRIVATE cwrap_testutil ${T_LINK})
        set(cmd $<TARGET_FILE:${name}>)
    elseif(T_COMMAND)
        set(cmd ${T_COMMAND})
        list(APPEND T_LABELS script)   # not run under valgrind (it would check the shell)
    else()
        message(FATAL_ERROR "cwrap_add_test(${name}): SOURCES or COMMAND required")
    endif()

    add_test(NAME ${name} COMMAND ${cmd})

    set(_cwrap_pam_dir "")
    if(TARGET pam_wrapper)
        set(_cwrap_pam_dir ":$<TARGET_FILE_DIR:pam_wrapper>")
    endif()

    set(preload "")
    if(CWRAP_SANITIZER_RUNTIME AND T_PRELOAD)
        list(APPEND preload ${CWRAP_SANITIZER_RUNTIME})
    endif()
    foreach(lib ${T_PRELOAD})
        if(NOT lib MATCHES "^(socket|nss|uid|resolv|pam|priv)$")
            message(FATAL_ERROR "cwrap_add_test(${name}): unknown PRELOAD '${lib}'")
        endif()
        list(APPEND preload $<TARGET_FILE:${lib}_wrapper>)
    endforeach()

    set(prefix "")
    if(CWRAP_SANITIZER_RUNTIME)
        set(prefix "${CWRAP_SANITIZER_RUNTIME} ")
    endif()

    set(env
        "CWRAP_SOCKET_WRAPPER_LIB=$<TARGET_FILE:socket_wrapper>"
        "CWRAP_NSS_WRAPPER_LIB=$<TARGET_FILE:nss_wrapper>"
        "CWRAP_UID_WRAPPER_LIB=$<TARGET_FILE:uid_wrapper>"
        "CWRAP_RESOLV_WRAPPER_LIB=$<TARGET_FILE:resolv_wrapper>"
        "CWRAP_PRIV_WRAPPER_LIB=$<TARGET_FILE:priv_wrapper>"
        "CWRAP_LIBRARY_PATH=$<TARGET_FILE_DIR:socket_wrapper>:$<TARGET_FILE_DIR:nss_wrapper>:$<TARGET_FILE_DIR:uid_wrapper>:$<TARGET_FILE_DIR:resolv_wrapper>:$<TARGET_FILE_DIR:priv_wrapper>${_cwrap_pam_dir}"
        "CWRAP_PRELOAD_PREFIX=${prefix}"
        "CWRAP_SOURCE_DIR=${PROJECT_SOURCE_DIR}"
        "CWRAP_BINARY_DIR=${PROJECT_BINARY_DIR}"
        "CWRAP_TEST_BIN=${PROJECT_BINARY_DIR}/tests/bin")
    if(TARGET pam_wrapper)
        list(APPEND env "CWRAP_PAM_WRAPPER_LIB=$<TARGET_FILE:pam_wrapper>")
    endif()
    if(preload)
        list(JOIN preload ":" preload_str)
        list(APPEND env "LD_PRELOAD=${preload_str}")
    endif()
    if(CWRAP_SANITIZER STREQUAL "address")
        if("integration" IN_LIST T_LABELS)
            # Foreign programs (nc, getent, ...) run under the runtime too;
            # their own leaks are not ours to report.
            list(APPEND env "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1")
        else()
            list(APPEND env "ASAN_OPTIONS=detect_leaks=1:abort_on_error=1")
        endif()
        list(APPEND env "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
    elseif(CWRAP_SANITIZER STREQUAL "thread")
        list(APPEND env "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1")
    endif()
    if(CWRAP_FOREIGN_PROGRAMS)
        # (cwrap_test_host_programs_wrapped(); scripts read it too)
        list(APPEND env "CWRAP_FOREIGN_PROGRAMS=${CWRAP_FOREIGN_PROGRAMS}")
    endif()
    list(APPEND env ${T_ENV})

    if(NOT T_TIMEOUT)
        set(T_TIMEOUT ${CWRAP_TEST_DEFAULT_TIMEOUT})
    endif()
    set_tests_properties(${name} PROPERTIES
        ENVIRONMENT "${env}"
        LABELS "${T_LABELS}"
        TIMEOUT ${T_TIMEOUT})
    # (ANY_ARCH: the script's own uses of the system's tools, with the
    # wrappers in LD_PRELOAD, are fine where the loader ignores them, not
    # where they cannot start)
    if("integration" IN_LIST T_LABELS AND CWRAP_FOREIGN_PROGRAMS AND NOT T_ANY_LIBC
       AND (NOT T_ANY_ARCH OR CWRAP_FOREIGN_PROGRAMS STREQUAL "fail"))
        set_tests_properties(${name} PROPERTIES DISABLED TRUE)
    endif()
endfunction()

# cwrap_add_test_program(<name> <c files...> [LINK ...]): a helper program
# that tests run (an echo server, a program that prints its ids, ...),
# placed in ${CWRAP_TEST_BIN}.
function(cwrap_add_test_program name)
    cmake_parse_arguments(P "" "" "LINK" ${ARGN})
    add_executable(${name} ${P_UNPARSED_ARGUMENTS})
    target_link_libraries(${name} PRIVATE cwrap_testutil ${P_LINK})
    set_target_properties(${name} PROPERTIES
        RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests/bin)
endfunction()
