# resolv_wrapper benchmark programs: see bench/resolv_wrapper.workloads.
cwrap_add_bench(resolv_bench resolv_bench.c)
target_link_libraries(resolv_bench PRIVATE resolv)
