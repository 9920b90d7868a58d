# pam_wrapper benchmark programs (where it is built): see
# bench/pam_wrapper.workloads.
if(TARGET pamtest)
    cwrap_add_bench(pam_bench pam_bench.c)
    target_link_libraries(pam_bench PRIVATE pamtest pam)
    target_compile_definitions(pam_bench PRIVATE
        PAM_BENCH_MODULE_DIR="$<TARGET_FILE_DIR:pam_matrix>")
endif()
