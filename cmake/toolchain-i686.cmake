# Toolchain file for the 32-bit x86 (i686) build on a Debian multiarch host:
#   cmake -S . -B build-i686 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-i686.cmake
# needs gcc-multilib and the :i386 -dev packages (tools/deps), or, where
# those cannot be installed, cmocka and libpcap built for i686 into
# build-deps/i686 (tools/deps-from-source i686, which tools/deps runs
# then). A copy of the tree that does not have them names the prefix that
# does: -DCWRAP_I686_PREFIX=DIR.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR i686)
set(CMAKE_C_COMPILER gcc)
set(CMAKE_C_FLAGS_INIT "-m32 -march=i686")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-m32")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-m32")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "-m32")
set(CMAKE_LIBRARY_ARCHITECTURE i386-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CWRAP_I686_PREFIX "${CMAKE_CURRENT_LIST_DIR}/../build-deps/i686"
    CACHE PATH "Install prefix of cmocka and libpcap built for i686")
get_filename_component(_cwrap_i686_prefix "${CWRAP_I686_PREFIX}" ABSOLUTE)
# try_compile() projects read this file again: same prefix there.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES CWRAP_I686_PREFIX)
if(EXISTS "${_cwrap_i686_prefix}/lib/pkgconfig")
  # The libraries built from source, found by the test programs without
  # LD_LIBRARY_PATH.
  set(ENV{PKG_CONFIG_LIBDIR} "${_cwrap_i686_prefix}/lib/pkgconfig")
  set(CMAKE_BUILD_RPATH "${_cwrap_i686_prefix}/lib")
else()
  set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/i386-linux-gnu/pkgconfig:/usr/share/pkgconfig")
endif()
