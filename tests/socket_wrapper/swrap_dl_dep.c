/*
 * Test library for test_swrap_dlopen: a dependency of swrap_dl_mod found
 * through the module's RUNPATH ($ORIGIN/../dlmods). swrap_dl_probe() is defined
 * in the test program too: the module reaches this one only when it was opened
 * with RTLD_DEEPBIND and the flag was kept.
 */
int swrap_dl_dep_value(void);
const char *swrap_dl_probe(void);

int swrap_dl_dep_value(void)
{
	return 4242;
}

const char *swrap_dl_probe(void)
{
	return "dependency";
}
