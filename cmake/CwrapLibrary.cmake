# cwrap_wrapper_library(<name> VERSION <v> ENTRY <files...> LOGIC <files...>
#                       [PC_EXTRA <line>] [CMAKE_EXTRA <code>])
#
# Builds one preloadable library:
#   <name>_logic  static, hidden visibility: the behaviour, linked directly by
#                 unit tests (no exported entry points);
#   <name>        the shared library (versioned SONAME + unversioned link)
#                 made of ENTRY plus <name>_logic plus src/common, plus
#                 src/common/cwrap_envwatch.c (setenv and friends).
# and installs it with its pkg-config file and CMake package files
# (PC_EXTRA and CMAKE_EXTRA: see cwrap_install_package).
# <name>.exports beside the sources lists the symbols it must export;
# tests check the built library against it.
function(cwrap_wrapper_library name)
    cmake_parse_arguments(W "" "VERSION;PC_EXTRA;CMAKE_EXTRA" "ENTRY;LOGIC" ${ARGN})

    add_library(${name}_logic STATIC ${W_LOGIC})
    set_target_properties(${name}_logic PROPERTIES C_VISIBILITY_PRESET hidden)
    target_include_directories(${name}_logic PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}
                                                    ${CMAKE_CURRENT_BINARY_DIR})
    target_link_libraries(${name}_logic PUBLIC cwrap_common)

    # Every library interposes the environment-changing functions, so that
    # its variables are read again after a change (src/common/cwrap_env.h).
    add_library(${name} SHARED ${W_ENTRY}
                ${PROJECT_SOURCE_DIR}/src/common/cwrap_envwatch.c)
    set_target_properties(${name} PROPERTIES
        C_VISIBILITY_PRESET hidden
        VERSION ${W_VERSION}
        SOVERSION ${CWRAP_SOVERSION})
    target_link_libraries(${name} PRIVATE ${name}_logic)
    # Start-up: every preloaded library is mapped into every process of a
    # test run. One text and one data segment (no separate read-only
    # segments, no RELRO mprotect) is two mappings instead of five and
    # costs well under half as much to load; a test tool has no use for
    # RELRO's protection of its few GOT entries.
    target_link_options(${name} PRIVATE -Wl,--no-undefined
                        -Wl,-z,noseparate-code -Wl,-z,norelro)

    install(TARGETS ${name}
            LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

    cwrap_install_package(${name} ${W_VERSION} ${name}
                          PC_EXTRA "${W_PC_EXTRA}" CMAKE_EXTRA "${W_CMAKE_EXTRA}")
endfunction()

# cwrap_install_package(<package> <version> <library target> [LINK]
#                       [PC_NAME <name>] [PC_EXTRA <line>] [CMAKE_EXTRA <code>])
# Writes <package>.pc (Libs: the absolute library path, which consumers
# preload; with LINK: -L<libdir> -l<name>, for a library consumers link) and
# <package>-config.cmake / -config-version.cmake, which set
# <PACKAGE>_LIBRARY to the absolute library path. PC_NAME names the .pc
# file when it is not <package> (libpamtest.pc of the package pamtest).
# PC_EXTRA is a line added
# to the .pc file's variables (it may use ${libdir}); CMAKE_EXTRA is code
# added to the config file (it may use ${PACKAGE_PREFIX_DIR} and the
# variables the file sets).
function(cwrap_install_package package version target)
    cmake_parse_arguments(P "LINK" "PC_NAME;PC_EXTRA;CMAKE_EXTRA" "" ${ARGN})
    if(NOT P_PC_NAME)
        set(P_PC_NAME ${package})
    endif()
    include(CMakePackageConfigHelpers)
    string(TOUPPER ${package} PACKAGE_UPPER)
    set(PACKAGE_NAME ${package})
    set(PACKAGE_VERSION ${version})
    set(PACKAGE_LIBRARY_FILE "${CMAKE_SHARED_LIBRARY_PREFIX}${target}${CMAKE_SHARED_LIBRARY_SUFFIX}")
    set(PACKAGE_PC_EXTRA "${P_PC_EXTRA}")
    set(PACKAGE_CMAKE_EXTRA "${P_CMAKE_EXTRA}")
    if(P_LINK)
        set(PACKAGE_LIBS "-L@libdir@ -l${target}")
        set(PACKAGE_USE "to link with")
    else()
        set(PACKAGE_LIBS "@libdir@/${PACKAGE_LIBRARY_FILE}")
        set(PACKAGE_USE "for LD_PRELOAD in tests")
    endif()

    # The .pc file is written at install time, so that it names the prefix
    # actually installed to (cmake --install --prefix, DESTDIR).
    set(prefix "@prefix@")          # kept for the install-time pass
    set(libdir "@libdir@")
    set(includedir "@includedir@")
    configure_file(${PROJECT_SOURCE_DIR}/cmake/package.pc.in
                   ${CMAKE_CURRENT_BINARY_DIR}/${P_PC_NAME}.pc.in @ONLY)
    install(CODE "
        set(prefix \"\${CMAKE_INSTALL_PREFIX}\")
        set(libdir \"${CMAKE_INSTALL_LIBDIR}\")
        set(includedir \"${CMAKE_INSTALL_INCLUDEDIR}\")
        foreach(v libdir includedir)
            if(NOT IS_ABSOLUTE \"\${\${v}}\")
                set(\${v} \"\${prefix}/\${\${v}}\")
            endif()
        endforeach()
        configure_file(\"${CMAKE_CURRENT_BINARY_DIR}/${P_PC_NAME}.pc.in\"
                       \"\$ENV{DESTDIR}\${libdir}/pkgconfig/${P_PC_NAME}.pc\" @ONLY)
        message(STATUS \"Installing: \$ENV{DESTDIR}\${libdir}/pkgconfig/${P_PC_NAME}.pc\")
    ")

    set(CONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/${package})
    configure_package_config_file(
        ${PROJECT_SOURCE_DIR}/cmake/package-config.cmake.in
        ${CMAKE_CURRENT_BINARY_DIR}/${package}-config.cmake
        INSTALL_DESTINATION ${CONFIG_DIR}
        PATH_VARS CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR)
    write_basic_package_version_file(
        ${CMAKE_CURRENT_BINARY_DIR}/${package}-config-version.cmake
        VERSION ${version}
        COMPATIBILITY SameMajorVersion)
    install(FILES ${CMAKE_CURRENT_BINARY_DIR}/${package}-config.cmake
                  ${CMAKE_CURRENT_BINARY_DIR}/${package}-config-version.cmake
            DESTINATION ${CONFIG_DIR})
endfunction()
