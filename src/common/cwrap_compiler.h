/*
 * Compiler helpers shared by the three libraries: visibility, branch hints
 * and format checking. Header only, no state.
 */
#ifndef CWRAP_COMPILER_H
#define CWRAP_COMPILER_H

/* A symbol of the compatibility contract: exported from the .so. Everything
 * else is compiled with -fvisibility=hidden. */
#define CWRAP_EXPORT __attribute__((visibility("default")))
#define CWRAP_HIDDEN __attribute__((visibility("hidden")))

#define cwrap_likely(x) __builtin_expect(!!(x), 1)
#define cwrap_unlikely(x) __builtin_expect(!!(x), 0)

#define CWRAP_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define CWRAP_UNUSED __attribute__((unused))
#define CWRAP_NORETURN __attribute__((noreturn))

/* For code the sanitizer runtimes may run before they are initialised:
 * on i386 they make their own system calls through syscall(), which a
 * wrapper interposes; instrumented code there would touch shadow memory
 * that does not exist yet. Such code must not call instrumented code. */
#define CWRAP_NO_SANITIZE __attribute__((no_sanitize("address", "undefined")))

#define CWRAP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* `hidden_name`: a hidden name of the exported function `name`, defined
 * in the same file, for the library's own calls to it: inside a library a
 * call never goes through an exported name, which the dynamic linker may
 * bind to another library's or the program's function of that name. It
 * keeps the attributes of libc's declaration (leaf, nothrow: GCC's copy),
 * as a call by the exported name did. */
#ifdef __has_attribute
#if __has_attribute(copy)
#define CWRAP_ATTR_COPY(name) __attribute__((copy(name)))
#endif
#endif
#ifndef CWRAP_ATTR_COPY
#define CWRAP_ATTR_COPY(name)
#endif
#define CWRAP_HIDDEN_ALIAS(name, hidden_name)                                  \
	extern __typeof__(name) hidden_name CWRAP_ATTR_COPY(name)              \
	    __attribute__((alias(#name), visibility("hidden")))

#endif
