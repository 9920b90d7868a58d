# Sourced by test scripts (POSIX sh, so bash scripts use it too): how a
# test waits for something that another process should do.
#
# A wait for something that should come gives it a minute
# (CWRAP_TEST_WAIT seconds) before the test fails: that costs nothing
# when it comes at once, and lets a loaded machine (a sanitizer runtime
# loading in every process of a pyenv shim, two suites at once, a build
# beside) be slow. A wait that something does NOT come (nothing arrives
# within T) keeps its short T: load can only make it pass.
wait_limit=${CWRAP_TEST_WAIT:-60}

# wait_until CMD [ARG...]: runs CMD every 0.05 s until it succeeds
# (returns 0), or until wait_limit seconds have passed (returns 1).
wait_until() {
	_wait_n=$((wait_limit * 20))
	while ! "$@"; do
		_wait_n=$((_wait_n - 1))
		[ "$_wait_n" -gt 0 ] || return 1
		sleep 0.05
	done
	return 0
}
