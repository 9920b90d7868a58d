# nss_wrapper benchmark programs: see bench/nss_wrapper.workloads.
cwrap_add_bench(nss_bench nss_bench.c)
