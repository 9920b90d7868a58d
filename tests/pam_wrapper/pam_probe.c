/*
 * pam_probe SERVICE USER|- ANSWERS OP[:FLAGS]...: one PAM transaction
 * (pam_start, the operations, pam_end) with a conversation that answers
 * prompts from ANSWERS (comma-separated, "_" an empty answer, "!" no
 * answer from a conversation that succeeds: a NULL response), printing
 * a transcript: every message with its style, each operation's result
 * and the PAM environment after it, and the PAM user at the end. OPs:
 * auth setcred acct open close chauthtok. pam_compare.sh runs it with
 * upstream's modules and ours and compares the transcripts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <security/pam_appl.h>

static char *answers[64];
static int nanswers, used;

static int probe_conv(int n, const struct pam_message **m,
		      struct pam_response **r, void *d)
{
	struct pam_response *res = calloc((size_t)n, sizeof(*res));

	(void)d;
	if (res == NULL) {
		return PAM_BUF_ERR;
	}
	for (int i = 0; i < n; i++) {
		int style = m[i]->msg_style;

		printf("  conv style=%d msg='%s'", style,
		       m[i]->msg != NULL ? m[i]->msg : "(null)");
		if (style == PAM_PROMPT_ECHO_OFF ||
		    style == PAM_PROMPT_ECHO_ON) {
			if (used == nanswers || r == NULL) {
				printf(" -> no answer\n");
				for (int k = 0; k < i; k++) {
					free(res[k].resp);
				}
				free(res);
				return PAM_CONV_ERR;
			}
			if (strcmp(answers[used], "!") == 0) {
				used++;
				printf(" -> NULL");
			} else {
				res[i].resp = strdup(answers[used++]);
				printf(" -> '%s'", res[i].resp);
			}
		}
		printf("\n");
	}
	/* (upstream's modules pass no response pointer with messages) */
	if (r != NULL) {
		*r = res;
	} else {
		free(res);
	}
	return PAM_SUCCESS;
}

static int probe_op(pam_handle_t *ph, const char *op, int flags)
{
	if (strcmp(op, "auth") == 0) {
		return pam_authenticate(ph, flags);
	} else if (strcmp(op, "setcred") == 0) {
		return pam_setcred(ph, flags != 0 ? flags
						  : (int)PAM_ESTABLISH_CRED);
	} else if (strcmp(op, "acct") == 0) {
		return pam_acct_mgmt(ph, flags);
	} else if (strcmp(op, "open") == 0) {
		return pam_open_session(ph, flags);
	} else if (strcmp(op, "close") == 0) {
		return pam_close_session(ph, flags);
	} else if (strcmp(op, "chauthtok") == 0) {
		return pam_chauthtok(ph, flags);
	}
	fprintf(stderr, "pam_probe: unknown operation '%s'\n", op);
	exit(2);
}

int main(int argc, char **argv)
{
	struct pam_conv conv = {probe_conv, NULL};
	const void *user = NULL;
	pam_handle_t *ph = NULL;
	char *list;
	int rc;

	if (argc < 4) {
		fprintf(stderr, "usage: pam_probe SERVICE USER|- ANSWERS "
				"OP[:FLAGS]...\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IONBF, 0);
	list = strdup(argv[3]);
	for (char *t = strtok(list, ","); t != NULL && nanswers < 64;
	     t = strtok(NULL, ",")) {
		answers[nanswers++] = strcmp(t, "_") == 0 ? (char *)"" : t;
	}
	rc = pam_start(argv[1], strcmp(argv[2], "-") == 0 ? NULL : argv[2],
		       &conv, &ph);
	printf("start -> %d\n", rc);
	if (rc != PAM_SUCCESS) {
		return 1;
	}
	for (int i = 4; i < argc; i++) {
		char *op = strdup(argv[i]);
		char *colon = strchr(op, ':');
		int flags = 0;
		char **env;

		if (colon != NULL) {
			*colon = '\0';
			flags = (int)strtol(colon + 1, NULL, 0);
		}
		rc = probe_op(ph, op, flags);
		printf("%s -> %d (%s)\n", argv[i], rc, pam_strerror(ph, rc));
		env = pam_getenvlist(ph);
		for (char **e = env; e != NULL && *e != NULL; e++) {
			printf("  env %s\n", *e);
			free(*e);
		}
		free(env);
		free(op);
	}
	pam_get_item(ph, PAM_USER, &user);
	printf("user=%s\n", user != NULL ? (const char *)user : "(null)");
	pam_end(ph, rc);
	free(list);
	return 0;
}
