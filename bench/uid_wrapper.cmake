# uid_wrapper benchmarks (see uid_wrapper.workloads).
cwrap_add_bench(uid_getid uid_getid.c)
cwrap_add_bench(uid_switch uid_switch.c)
cwrap_add_bench(uid_stat uid_stat.c)
