# cwrap_add_test(NAME <name> COMMAND <command> [<arg>...]
#                [WRAPPERS socket|nss|uid|resolv|pam|priv ...]
#                [ENVIRONMENT <VAR=value>...]
#                [WORKING_DIRECTORY <dir>])
#
# Installed with find_package(cwrap) for the projects that test with the
# cwrap libraries (the cwrap project's own tests use another function of
# the same name, cmake/CwrapTest.cmake, which is not installed).
#
# Adds a ctest test that runs <command> through the installed launcher
# (CWRAP_LAUNCHER, cwrap(1); cwrap-config keeps it in a global property)
# with the libraries of WRAPPERS preloaded (default: socket) and enabled:
# socket gets a fresh socket directory of its own on each run, removed
# when the test ends; uid gets UID_WRAPPER=1, pam PAM_WRAPPER=1, priv
# PRIV_WRAPPER=1; nss and resolv take their files from ENVIRONMENT
# (NSS_WRAPPER_PASSWD=..., RESOLV_WRAPPER_HOSTS=...). ENVIRONMENT is the
# test's ENVIRONMENT property (a LD_PRELOAD there stays in front of the
# libraries; values may hold `;`, but, as in any ctest ENVIRONMENT, no
# unbalanced `[` or `]`). <command> may be an executable target, as for
# add_test(); every argument, including empty ones and ones with `;`,
# spaces, quotes or brackets, reaches the command unchanged. Further
# properties (LABELS, TIMEOUT, ...) with set_tests_properties() as usual.

# (The arguments are read one by one from ARGV<n>, never through a CMake
# list, which would split them at a `;` and mis-read unbalanced `[` `]`.)
function(cwrap_add_test)
    set(name "")
    set(where "")
    set(wrappers socket)
    set(environment "")
    set(command "")
    set(mode "")
    math(EXPR last "${ARGC} - 1")
    foreach(i RANGE 0 ${last})
        set(arg "${ARGV${i}}")
        if(arg MATCHES "^(NAME|COMMAND|WRAPPERS|ENVIRONMENT|WORKING_DIRECTORY)$")
            set(mode "${arg}")
            if(mode STREQUAL "WRAPPERS")
                set(wrappers "")
            endif()
        elseif(mode STREQUAL "NAME" AND name STREQUAL "")
            set(name "${arg}")
        elseif(mode STREQUAL "WORKING_DIRECTORY" AND where STREQUAL "")
            _cwrap_bracket(where "${arg}")
            set(where "WORKING_DIRECTORY ${where}")
        elseif(mode STREQUAL "WRAPPERS")
            list(APPEND wrappers "${arg}")
        elseif(mode STREQUAL "ENVIRONMENT")
            string(REPLACE ";" "\\;" arg "${arg}")
            list(APPEND environment "${arg}")
        elseif(mode STREQUAL "COMMAND")
            if(command STREQUAL "" AND TARGET "${arg}")
                get_target_property(type "${arg}" TYPE)
                if(type STREQUAL "EXECUTABLE")
                    set(arg "$<TARGET_FILE:${arg}>")
                endif()
            endif()
            _cwrap_bracket(arg "${arg}")
            string(APPEND command " ${arg}")
        else()
            message(FATAL_ERROR "cwrap_add_test(${name}): unexpected argument '${arg}'")
        endif()
    endforeach()
    if(name STREQUAL "" OR command STREQUAL "")
        message(FATAL_ERROR "cwrap_add_test: NAME and COMMAND are required")
    endif()

    get_property(launcher GLOBAL PROPERTY CWRAP_LAUNCHER)
    get_property(libdir GLOBAL PROPERTY CWRAP_LIBRARY_DIR)
    set(options "")
    set(socket FALSE)
    foreach(lib IN LISTS wrappers)
        if(NOT lib MATCHES "^(socket|nss|uid|resolv|pam|priv)$")
            message(FATAL_ERROR "cwrap_add_test(${name}): WRAPPERS ${lib}: "
                                "not one of socket nss uid resolv pam priv")
        endif()
        if(NOT EXISTS "${libdir}/lib${lib}_wrapper.so")
            message(FATAL_ERROR "cwrap_add_test(${name}): WRAPPERS ${lib}: "
                                "lib${lib}_wrapper.so is not installed in ${libdir}")
        endif()
        if(lib STREQUAL "socket")
            set(socket TRUE)
        endif()
        string(APPEND options " --with ${lib}")
    endforeach()
    if(NOT socket)
        string(APPEND options " --no-socket")
    endif()

    _cwrap_bracket(launcher "${launcher}")
    _cwrap_bracket(test_name "${name}")
    cmake_language(EVAL CODE
        "add_test(NAME ${test_name} ${where} COMMAND ${launcher}${options} --${command})")
    if(NOT environment STREQUAL "")
        set_tests_properties("${name}" PROPERTIES ENVIRONMENT "${environment}")
    endif()
endfunction()

# _cwrap_bracket(VAR TEXT): TEXT as a CMake bracket argument, [=[TEXT]=],
# with enough `=` that TEXT cannot close it.
function(_cwrap_bracket var text)
    set(eq "=")
    while(text MATCHES "]${eq}]")
        string(APPEND eq "=")
    endwhile()
    set(${var} "[${eq}[${text}]${eq}]" PARENT_SCOPE)
endfunction()
