# Toolchain file for the musl build on an x86_64 Debian host:
#   cmake -S . -B build-musl -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-musl.cmake
# needs musl-tools, and cmocka and libpcap built for musl into
# build-deps/musl by tools/deps (tools/deps-from-source musl). A copy of the tree that
# does not have them names the prefix that does: -DCWRAP_MUSL_PREFIX=DIR.
# The programs are native (they run on the host), so no CMAKE_SYSTEM_NAME.
set(CMAKE_C_COMPILER musl-gcc)
set(CWRAP_MUSL_PREFIX "${CMAKE_CURRENT_LIST_DIR}/../build-deps/musl"
    CACHE PATH "Install prefix of cmocka and libpcap built for musl")
get_filename_component(_cwrap_musl_prefix "${CWRAP_MUSL_PREFIX}" ABSOLUTE)
# try_compile() projects read this file again: same prefix there.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES CWRAP_MUSL_PREFIX)
# pkg-config finds the musl cmocka and libpcap, never the glibc ones.
set(ENV{PKG_CONFIG_LIBDIR} "${_cwrap_musl_prefix}/lib/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")
# find_library() never takes glibc's libraries either.
list(APPEND CMAKE_SYSTEM_IGNORE_PATH
     /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu)
# The test programs find the musl libraries without LD_LIBRARY_PATH.
set(CMAKE_BUILD_RPATH "${_cwrap_musl_prefix}/lib")
