/*
 * spawn_bench N COMMAND [ARGS...]: start COMMAND N times (posix_spawn +
 * waitpid) and report the mean time per start in us/op. The variables in
 * BENCH_CHILD_ENV ("A=1 B=2", may include LD_PRELOAD=...) are given to the
 * children only, so this program itself runs unwrapped.
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

extern char **environ;

static char **child_environment(void)
{
	const char *extra = getenv("BENCH_CHILD_ENV");
	size_t n = 0, i, k = 0;
	char **env, *copy, *tok, *save = NULL;

	while (environ[n] != NULL) {
		n++;
	}
	env = calloc(n + 64, sizeof(*env));
	if (env == NULL) {
		exit(1);
	}
	for (i = 0; i < n; i++) {
		if (strncmp(environ[i], "BENCH_CHILD_ENV=", 16) != 0) {
			env[k++] = environ[i];
		}
	}
	if (extra != NULL) {
		copy = strdup(extra);
		for (tok = strtok_r(copy, " ", &save); tok != NULL && k < n + 63;
		     tok = strtok_r(NULL, " ", &save)) {
			env[k++] = tok;
		}
	}
	env[k] = NULL;
	return env;
}

int main(int argc, char **argv)
{
	char **env;
	uint64_t t0, t1;
	long count, i;
	int status;
	pid_t pid;

	if (argc < 3 || (count = strtol(argv[1], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: spawn_bench N COMMAND [ARGS...]\n");
		return 2;
	}
	env = child_environment();
	t0 = bench_now_ns();
	for (i = 0; i < count; i++) {
		posix_spawn_file_actions_t fa;

		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		if (posix_spawn(&pid, argv[2], &fa, NULL, argv + 2, env) != 0) {
			perror(argv[2]);
			return 1;
		}
		posix_spawn_file_actions_destroy(&fa);
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0) {
			fprintf(stderr, "%s failed\n", argv[2]);
			return 1;
		}
	}
	t1 = bench_now_ns();
	bench_report((double)(t1 - t0) / 1000.0 / (double)count, "us/op");
	return 0;
}
