# What the C library and the kernel headers offer, found by feature tests
# (never by naming a libc): the answers go to cwrap_config.h, which
# src/common/cwrap_platform.h includes, and to CWRAP_PLATFORM_FEATURES,
# the list the exports tests check the libraries against (a name in
# <library>.exports followed by "@feature" is exported only where that
# feature was found).
include(CheckIncludeFile)
include(CheckSymbolExists)
include(CheckFunctionExists)

set(CMAKE_REQUIRED_DEFINITIONS -D_GNU_SOURCE)
set(CMAKE_REQUIRED_QUIET ON)

# Kernel headers: glibc systems have them beside libc's; musl-gcc's
# include path does not (cwrap_platform.h then defines the few constants).
check_include_file(linux/tcp.h HAVE_LINUX_TCP_H)
check_include_file(linux/futex.h HAVE_LINUX_FUTEX_H)
check_include_file(linux/close_range.h HAVE_LINUX_CLOSE_RANGE_H)
# cwrap_kernel_headers(TARGET HEADER): TARGET includes the kernel's HEADER
# (linux/seccomp.h, linux/unix_diag.h, ...), which musl-gcc's include path
# lacks: there, a directory of links to the system's, for it alone.
function(cwrap_kernel_headers target header)
    string(MAKE_C_IDENTIFIER "HAVE_${header}" var)
    string(TOUPPER "${var}" var)
    check_include_file(${header} ${var})
    file(GLOB asm LIST_DIRECTORIES true /usr/include/${CMAKE_SYSTEM_PROCESSOR}-linux-*/asm)
    if(NOT ${var} AND asm AND EXISTS /usr/include/${header})
        set(kdir ${CMAKE_CURRENT_BINARY_DIR}/kernel-include)
        file(MAKE_DIRECTORY ${kdir})
        list(GET asm 0 asm)
        foreach(pair "linux=/usr/include/linux" "asm-generic=/usr/include/asm-generic"
                     "asm=${asm}")
            string(REPLACE "=" ";" pair "${pair}")
            list(GET pair 0 name)
            list(GET pair 1 link)
            if(NOT EXISTS ${kdir}/${name})
                file(CREATE_LINK ${link} ${kdir}/${name} SYMBOLIC)
            endif()
        endforeach()
        target_include_directories(${target} SYSTEM PRIVATE ${kdir})
    endif()
endfunction()
# NSS modules: glibc loads them (and nss_wrapper can); musl has no NSS.
check_include_file(nss.h HAVE_NSS_H)

# Functions are looked for in the C library itself (a link test), not in
# its headers: musl's <fcntl.h> names fcntl64 as a macro, for instance.
set(CMAKE_REQUIRED_LIBRARIES ${CMAKE_DL_LIBS})
foreach(fn close_range closefrom bindresvport fcntl64 preadv2
           getpwent_r getgrent_r dlvsym statx __xstat
           __chk_fail __res_init __res_ninit
           fopen64)
    string(TOUPPER "HAVE_${fn}" var)
    check_function_exists(${fn} ${var})
endforeach()
check_symbol_exists(RTLD_DEEPBIND dlfcn.h HAVE_RTLD_DEEPBIND)
unset(CMAKE_REQUIRED_LIBRARIES)

# Prototypes that differ between C libraries: an interposed function must
# be defined with the caller's types (an int argument's upper half is
# undefined on x86_64). glibc: ioctl(int, unsigned long, ...) and int
# mmsg flags; musl: ioctl(int, int, ...) and unsigned int flags.
include(CheckCSourceCompiles)
check_c_source_compiles("
#include <sys/ioctl.h>
int ioctl(int fd, unsigned long req, ...);
int main(void) { return 0; }" CWRAP_IOCTL_REQ_ULONG)
if(CWRAP_IOCTL_REQ_ULONG)
    set(CWRAP_IOCTL_REQ "unsigned long")
else()
    set(CWRAP_IOCTL_REQ "int")
endif()
# glibc's 64-bit offset type, and whether sendfile64 is a function of its
# own (musl names it a macro for sendfile).
check_c_source_compiles("
#include <sys/types.h>
__off64_t x;
int main(void) { return 0; }" HAVE___OFF64_T)
check_c_source_compiles("
#include <sys/sendfile.h>
#ifdef sendfile64
#error a macro
#endif
int main(void) { return 0; }" HAVE_SENDFILE64_FUNCTION)
# stat64() and friends as functions of their own (glibc; musl names them
# macros for stat() and friends).
check_c_source_compiles("
#include <sys/stat.h>
#ifdef stat64
#error a macro
#endif
int (*f)(const char *, struct stat64 *) = stat64;
int main(void) { return 0; }" HAVE_STAT64_FUNCTION)
check_c_source_compiles("
#include <sys/socket.h>
int f(__SOCKADDR_ARG a);
int main(void) { return 0; }" HAVE___SOCKADDR_ARG)
check_c_source_compiles("
#include <sys/socket.h>
int sendmmsg(int fd, struct mmsghdr *v, unsigned int n, int flags);
int main(void) { return 0; }" CWRAP_MMSG_FLAGS_INT)
if(CWRAP_MMSG_FLAGS_INT)
    set(CWRAP_MMSG_FLAGS "int")
else()
    set(CWRAP_MMSG_FLAGS "unsigned int")
endif()
# setrlimit()'s resource type: glibc's enum (__rlimit_resource_t), musl's
# int; and whether setrlimit64/prlimit64 are functions of their own (glibc)
# or macros for the plain names (musl).
check_c_source_compiles("
#include <sys/resource.h>
int setrlimit(__rlimit_resource_t r, const struct rlimit *l);
int main(void) { return 0; }" CWRAP_RLIMIT_RESOURCE_ENUM)
if(CWRAP_RLIMIT_RESOURCE_ENUM)
    set(CWRAP_RLIMIT_RESOURCE "__rlimit_resource_t")
else()
    set(CWRAP_RLIMIT_RESOURCE "int")
endif()
foreach(fn setrlimit64 prlimit64)
    string(TOUPPER "HAVE_${fn}" var)
    check_c_source_compiles("
#include <sys/resource.h>
#ifdef ${fn}
#error a macro
#endif
int main(void) { return ${fn} != 0; }" ${var})
endforeach()
unset(CMAKE_REQUIRED_DEFINITIONS)

# glibc's names for 64-bit time on 32-bit systems (__sendmsg64, ...).
if(CMAKE_SIZEOF_VOID_P EQUAL 4)
    check_function_exists(__sendmsg64 HAVE_TIME64_ALIASES)
endif()

set(CWRAP_PLATFORM_FEATURES "")
foreach(var HAVE_DLVSYM HAVE_STATX HAVE___XSTAT HAVE_STAT64_FUNCTION HAVE_PREADV2 HAVE_SENDFILE64_FUNCTION HAVE_CLOSE_RANGE HAVE_CLOSEFROM HAVE_BINDRESVPORT HAVE_FCNTL64
            HAVE_GETPWENT_R HAVE_GETGRENT_R HAVE___CHK_FAIL HAVE___RES_INIT
            HAVE___RES_NINIT HAVE_TIME64_ALIASES HAVE_RTLD_DEEPBIND
            HAVE_SETRLIMIT64 HAVE_PRLIMIT64 HAVE_FOPEN64)
    if(${var})
        string(REGEX REPLACE "^HAVE_" "" feature "${var}")
        string(TOLOWER "${feature}" feature)
        list(APPEND CWRAP_PLATFORM_FEATURES ${feature})
    endif()
endforeach()

configure_file(${CMAKE_CURRENT_LIST_DIR}/cwrap_config.h.in
               ${PROJECT_BINARY_DIR}/src/common/cwrap_config.h)
message(STATUS "cwrap platform features: ${CWRAP_PLATFORM_FEATURES}")
