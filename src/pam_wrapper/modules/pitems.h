/*
 * The PAM items that pam_get_items exports and pam_set_items sets, named
 * by their constants, in the order both modules go through them (the
 * order of upstream's modules, which the PAM environment keeps). The
 * items that are not strings (PAM_CONV, PAM_FAIL_DELAY, PAM_XAUTHDATA)
 * are not among them.
 */
#ifndef PITEMS_H
#define PITEMS_H

#include <security/pam_appl.h>

#define PITEMS_EXPORT __attribute__((visibility("default")))

struct pitem {
	int item;
	const char *name;
};

static const struct pitem pitems[] = {
    {PAM_SERVICE, "PAM_SERVICE"},
    {PAM_USER, "PAM_USER"},
    {PAM_USER_PROMPT, "PAM_USER_PROMPT"},
    {PAM_TTY, "PAM_TTY"},
    {PAM_RUSER, "PAM_RUSER"},
    {PAM_RHOST, "PAM_RHOST"},
    {PAM_AUTHTOK, "PAM_AUTHTOK"},
    {PAM_OLDAUTHTOK, "PAM_OLDAUTHTOK"},
#ifdef PAM_XDISPLAY
    {PAM_XDISPLAY, "PAM_XDISPLAY"},
#endif
#ifdef PAM_AUTHTOK_TYPE
    {PAM_AUTHTOK_TYPE, "PAM_AUTHTOK_TYPE"},
#endif
};

#define PITEMS_COUNT (sizeof(pitems) / sizeof(pitems[0]))

/* Every module hook of pam_get_items and pam_set_items is `fn`. */
#define PITEMS_HOOKS(fn)                                                       \
	PITEMS_EXPORT int pam_sm_authenticate(pam_handle_t *ph, int flags,     \
					      int argc, const char **argv)     \
	{                                                                      \
		return fn(ph, flags, argc, argv);                              \
	}                                                                      \
	PITEMS_EXPORT int pam_sm_setcred(pam_handle_t *ph, int flags,          \
					 int argc, const char **argv)          \
	{                                                                      \
		return fn(ph, flags, argc, argv);                              \
	}                                                                      \
	PITEMS_EXPORT int pam_sm_acct_mgmt(pam_handle_t *ph, int flags,        \
					   int argc, const char **argv)        \
	{                                                                      \
		return fn(ph, flags, argc, argv);                              \
	}                                                                      \
	PITEMS_EXPORT int pam_sm_open_session(pam_handle_t *ph, int flags,     \
					      int argc, const char **argv)     \
	{                                                                      \
		return fn(ph, flags, argc, argv);                              \
	}                                                                      \
	PITEMS_EXPORT int pam_sm_close_session(pam_handle_t *ph, int flags,    \
					       int argc, const char **argv)    \
	{                                                                      \
		return fn(ph, flags, argc, argv);                              \
	}                                                                      \
	PITEMS_EXPORT int pam_sm_chauthtok(pam_handle_t *ph, int flags,        \
					   int argc, const char **argv)        \
	{                                                                      \
		return fn(ph, flags, argc, argv);                              \
	}

#endif
