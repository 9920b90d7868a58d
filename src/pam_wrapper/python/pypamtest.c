/*
 * pypamtest: libpamtest for Python 3, with upstream's names and messages
 * (see pam_wrapper(1)):
 *
 *   pypamtest.run_pamtest(username, service, tests, echo_off=[],
 *                         echo_on=[], handle=None) -> TestResult
 *   pypamtest.TestCase(pam_operation, expected_rv=0, flags=0)
 *   pypamtest.TestResult(info=[], errors=[])   .info, .errors
 *   pypamtest.PamTestError (an OSError)
 *   the PAMTEST_* constants of libpamtest.h, and PAMTEST_FLAG_*.
 *
 * libpamtest's sources are compiled in (PAMTEST_STATIC): the extension
 * needs no libpamtest.so at run time. The run releases the GIL; the
 * conversation keeps every message (no limit) in C until the run ends.
 * No state but the module's types and exception.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pamtest_int.h"

static PyObject *PamTestError;

/* (the keyword lists of the Python API are char *, literals are const) */
#define KW(s) ((char *)(s))

/* ---- TestCase --------------------------------------------------------- */

typedef struct {
	PyObject_HEAD int pam_operation;
	int expected_rv;
	int flags;
	PyObject *pam_env;    /* dict, after a PAMTEST_GETENVLIST run */
	PyObject *pam_handle; /* capsule, after a PAMTEST_KEEPHANDLE run */
} TestCaseObject;

static bool pypamtest_op_known(int op)
{
	switch (op) {
	case PAMTEST_AUTHENTICATE:
	case PAMTEST_SETCRED:
	case PAMTEST_ACCOUNT:
	case PAMTEST_OPEN_SESSION:
	case PAMTEST_CLOSE_SESSION:
	case PAMTEST_CHAUTHTOK:
	case PAMTEST_GETENVLIST:
	case PAMTEST_KEEPHANDLE:
		return true;
	}
	return false;
}

static int TestCase_init(TestCaseObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {KW("pam_operation"), KW("expected_rv"),
				 KW("flags"), NULL};
	int op, rv = 0, flags = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "i|ii", kwlist, &op, &rv,
					 &flags)) {
		return -1;
	}
	if (!pypamtest_op_known(op)) {
		PyErr_Format(PyExc_ValueError, "Unsupported PAM operation %d",
			     op);
		return -1;
	}
	self->pam_operation = op;
	self->expected_rv = rv;
	self->flags = flags;
	return 0;
}

static void TestCase_dealloc(TestCaseObject *self)
{
	Py_CLEAR(self->pam_env);
	Py_CLEAR(self->pam_handle);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *TestCase_repr(TestCaseObject *self)
{
	return PyUnicode_FromFormat(
	    "{ pam_operation [%d] expected_rv [%d] flags [%d] }",
	    self->pam_operation, self->expected_rv, self->flags);
}

static PyMemberDef TestCase_members[] = {
    {"pam_operation", T_INT, offsetof(TestCaseObject, pam_operation), READONLY,
     "The PAM operation to run"},
    {"expected_rv", T_INT, offsetof(TestCaseObject, expected_rv), READONLY,
     "The expected PAM return code"},
    {"flags", T_INT, offsetof(TestCaseObject, flags), READONLY,
     "Additional flags for the PAM operation"},
    {"pam_env", T_OBJECT_EX, offsetof(TestCaseObject, pam_env), READONLY,
     "The PAM environment a PAMTEST_GETENVLIST case read (a dict)"},
    {"pam_handle", T_OBJECT_EX, offsetof(TestCaseObject, pam_handle), READONLY,
     "The PAM handle a PAMTEST_KEEPHANDLE case kept (pass it to "
     "run_pamtest as handle)"},
    {NULL, 0, 0, 0, NULL},
};

PyDoc_STRVAR(TestCase_doc,
	     "pamtest test case\n\n"
	     "One operation of a PAM transaction (authentication, a session, "
	     "a password change...) and the PAM return value it must give. "
	     "run_pamtest() takes a list of them.\n\n"
	     "Params:\n\n"
	     "pam_operation: the PAM operation to run: a constant such as "
	     "pypamtest.PAMTEST_AUTHENTICATE. Required.\n"
	     "expected_rv: the PAM return value it must give. Defaults to 0 "
	     "(PAM_SUCCESS).\n"
	     "flags: the flags of the PAM call. Defaults to 0.");

static PyTypeObject TestCaseType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "pypamtest.TestCase",
    .tp_basicsize = sizeof(TestCaseObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = TestCase_doc,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)TestCase_init,
    .tp_dealloc = (destructor)TestCase_dealloc,
    .tp_repr = (reprfunc)TestCase_repr,
    .tp_members = TestCase_members,
};

/* ---- TestResult ------------------------------------------------------- */

typedef struct {
	PyObject_HEAD PyObject *info;
	PyObject *errors;
} TestResultObject;

static int TestResult_init(TestResultObject *self, PyObject *args, PyObject *kw)
{
	PyObject *info = NULL, *errors = NULL;

	if (kw != NULL && PyDict_Size(kw) > 0) {
		PyErr_SetString(PyExc_TypeError,
				"TestResult takes no keyword arguments");
		return -1;
	}
	if (!PyArg_ParseTuple(args, "|OO", &info, &errors)) {
		return -1;
	}
	if (info != NULL && !PySequence_Check(info)) {
		PyErr_SetString(PyExc_TypeError,
				"List of info messages must be a sequence");
		return -1;
	}
	if (errors != NULL && !PySequence_Check(errors)) {
		PyErr_SetString(PyExc_TypeError,
				"List of error messages must be a sequence");
		return -1;
	}
	Py_XSETREF(self->info, info != NULL ? Py_NewRef(info) : PyList_New(0));
	Py_XSETREF(self->errors,
		   errors != NULL ? Py_NewRef(errors) : PyList_New(0));
	return self->info != NULL && self->errors != NULL ? 0 : -1;
}

static void TestResult_dealloc(TestResultObject *self)
{
	Py_CLEAR(self->info);
	Py_CLEAR(self->errors);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

/* "{m1}{m2}..." of a sequence of messages. */
static PyObject *pypamtest_join(PyObject *seq)
{
	PyObject *out = PyUnicode_FromString("");
	Py_ssize_t n = seq != NULL ? PySequence_Size(seq) : 0;

	for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
		PyObject *item = PySequence_GetItem(seq, i);
		PyObject *part =
		    item != NULL ? PyUnicode_FromFormat("{%S}", item) : NULL;

		Py_XDECREF(item);
		if (part == NULL) {
			Py_CLEAR(out);
			break;
		}
		Py_SETREF(out, PyUnicode_Concat(out, part));
		Py_DECREF(part);
	}
	return out;
}

static PyObject *TestResult_repr(TestResultObject *self)
{
	PyObject *e = pypamtest_join(self->errors);
	PyObject *i = pypamtest_join(self->info);
	PyObject *r = NULL;

	if (e != NULL && i != NULL) {
		r = PyUnicode_FromFormat("{ errors: { %U } infos: { %U } }", e,
					 i);
	}
	Py_XDECREF(e);
	Py_XDECREF(i);
	return r;
}

static PyMemberDef TestResult_members[] = {
    {"info", T_OBJECT, offsetof(TestResultObject, info), READONLY,
     "PAM_TEXT_INFO messages of the PAM conversation"},
    {"errors", T_OBJECT, offsetof(TestResultObject, errors), READONLY,
     "PAM_ERROR_MSG messages of the PAM conversation"},
    {NULL, 0, 0, 0, NULL},
};

PyDoc_STRVAR(TestResult_doc,
	     "pamtest test result\n\n"
	     "What run_pamtest() returns when every case gave its expected "
	     "result: the messages the PAM conversation was sent, in "
	     "order.\n\n"
	     "Attributes:\n"
	     "errors: PAM_ERROR_MSG messages\n"
	     "info: PAM_TEXT_INFO messages");

static PyTypeObject TestResultType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "pypamtest.TestResult",
    .tp_basicsize = sizeof(TestResultObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = TestResult_doc,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)TestResult_init,
    .tp_dealloc = (destructor)TestResult_dealloc,
    .tp_repr = (reprfunc)TestResult_repr,
    .tp_members = TestResult_members,
};

/* ---- run_pamtest ------------------------------------------------------ */

/* Messages of one style, kept by the conversation while the GIL is
 * released. */
struct pypamtest_msgs {
	char **v;
	size_t n, cap;
};

struct pypamtest_sink {
	struct pypamtest_msgs info, errors;
};

static bool pypamtest_keep(void *ctx, int style, const char *msg)
{
	struct pypamtest_sink *s = ctx;
	struct pypamtest_msgs *m =
	    style == PAM_ERROR_MSG ? &s->errors : &s->info;
	char *copy = strdup(msg);

	if (copy == NULL) {
		return false;
	}
	if (m->n == m->cap) {
		size_t cap = m->cap == 0 ? 8 : m->cap * 2;
		char **v = realloc(m->v, cap * sizeof(*v));

		if (v == NULL) {
			free(copy);
			return false;
		}
		m->v = v;
		m->cap = cap;
	}
	m->v[m->n++] = copy;
	return true;
}

static void pypamtest_msgs_free(struct pypamtest_msgs *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i]);
	}
	free(m->v);
}

static PyObject *pypamtest_msgs_tuple(const struct pypamtest_msgs *m)
{
	PyObject *t = PyTuple_New((Py_ssize_t)m->n);

	for (size_t i = 0; t != NULL && i < m->n; i++) {
		PyObject *s =
		    PyUnicode_DecodeUTF8(m->v[i], strlen(m->v[i]), "replace");

		if (s == NULL) {
			Py_CLEAR(t);
			break;
		}
		PyTuple_SET_ITEM(t, (Py_ssize_t)i, s);
	}
	return t;
}

/* A NULL-terminated array of UTF-8 copies of a sequence of str (NULL
 * for none); *ok false with a Python error set on failure. */
static char **pypamtest_strings(PyObject *seq, const char *what, bool *ok)
{
	PyObject *fast;
	char **v;
	Py_ssize_t n;

	*ok = true;
	if (seq == NULL || seq == Py_None) {
		return NULL;
	}
	if (PyUnicode_Check(seq) || !PySequence_Check(seq)) {
		PyErr_Format(PyExc_TypeError, "%s must be a sequence of str",
			     what);
		*ok = false;
		return NULL;
	}
	fast = PySequence_Fast(seq, what);
	if (fast == NULL) {
		*ok = false;
		return NULL;
	}
	n = PySequence_Fast_GET_SIZE(fast);
	v = calloc((size_t)n + 1, sizeof(*v));
	for (Py_ssize_t i = 0; v != NULL && i < n; i++) {
		PyObject *item = PySequence_Fast_GET_ITEM(fast, i);
		const char *s;

		if (!PyUnicode_Check(item)) {
			PyErr_Format(PyExc_TypeError,
				     "%s must be a sequence of str, item %zd "
				     "is %s",
				     what, i, Py_TYPE(item)->tp_name);
			goto fail;
		}
		s = PyUnicode_AsUTF8(item);
		if (s == NULL) {
			goto fail;
		}
		v[i] = strdup(s);
		if (v[i] == NULL) {
			PyErr_NoMemory();
			goto fail;
		}
	}
	if (v == NULL) {
		PyErr_NoMemory();
		*ok = false;
	}
	Py_DECREF(fast);
	return v;
fail:
	Py_DECREF(fast);
	for (Py_ssize_t i = 0; i < n; i++) {
		free(v[i]);
	}
	free(v);
	*ok = false;
	return NULL;
}

static void pypamtest_strings_free(char **v)
{
	for (size_t i = 0; v != NULL && v[i] != NULL; i++) {
		free(v[i]);
	}
	free(v);
}

/* A case's output into its TestCase: the environment as a dict, the kept
 * handle as a capsule. */
static int pypamtest_case_out(TestCaseObject *tc, struct pam_testcase *c)
{
	if (c->pam_operation == PAMTEST_GETENVLIST &&
	    c->case_out.envlist != NULL) {
		PyObject *env = PyDict_New();

		for (char **e = c->case_out.envlist; env != NULL && *e != NULL;
		     e++) {
			const char *eq = strchr(*e, '=');
			PyObject *k, *v;

			if (eq == NULL) {
				continue;
			}
			k = PyUnicode_DecodeUTF8(*e, eq - *e, "replace");
			v = PyUnicode_DecodeUTF8(eq + 1, strlen(eq + 1),
						 "replace");
			if (k == NULL || v == NULL ||
			    PyDict_SetItem(env, k, v) != 0) {
				Py_CLEAR(env);
			}
			Py_XDECREF(k);
			Py_XDECREF(v);
		}
		pamtest_free_env(c->case_out.envlist);
		c->case_out.envlist = NULL;
		if (env == NULL) {
			return -1;
		}
		Py_XSETREF(tc->pam_env, env);
	} else if (c->pam_operation == PAMTEST_KEEPHANDLE &&
		   c->case_out.ph != NULL) {
		PyObject *cap = PyCapsule_New(c->case_out.ph, NULL, NULL);

		if (cap == NULL) {
			return -1;
		}
		Py_XSETREF(tc->pam_handle, cap);
	}
	return 0;
}

PyDoc_STRVAR(
    run_pamtest_doc,
    "run_pamtest(username, service, tests, echo_off=[], echo_on=[], "
    "handle=None)\n\n"
    "Run PAM tests\n\n"
    "Runs the test cases in one PAM transaction and returns a TestResult, "
    "or raises PamTestError.\n"
    "Parameters:\n"
    "username: the user to run the PAM transaction as\n"
    "service: the PAM service to use (string)\n"
    "tests: a sequence of pypamtest.TestCase objects (also accepted as "
    "test_cases)\n"
    "echo_off: strings answering PAM_PROMPT_ECHO_OFF prompts, in order "
    "(typically passwords)\n"
    "echo_on: strings answering PAM_PROMPT_ECHO_ON prompts, in order\n"
    "handle: the pam_handle of a PAMTEST_KEEPHANDLE case of an earlier "
    "run, to go on with");

static PyObject *pypamtest_run(PyObject *module, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {
	    KW("username"), KW("service"), KW("tests"), KW("echo_off"),
	    KW("echo_on"),  KW("handle"),  NULL};
	const char *user, *service;
	PyObject *tests = NULL, *off_list = NULL, *on_list = NULL;
	PyObject *handle = NULL, *fast = NULL, *result = NULL, *kwcopy = NULL;
	struct pypamtest_sink sink = {{NULL, 0, 0}, {NULL, 0, 0}};
	struct pamtest_conv_state st = {0};
	struct pam_testcase *cases = NULL;
	pam_handle_t *ph = NULL;
	char **off = NULL, **on = NULL;
	enum pamtest_err err;
	Py_ssize_t n;
	bool ok;

	(void)module;
	/* `test_cases` is accepted for `tests` */
	if (kw != NULL && PyDict_GetItemString(kw, "test_cases") != NULL) {
		kwcopy = PyDict_Copy(kw);
		if (kwcopy == NULL ||
		    PyDict_SetItemString(
			kwcopy, "tests",
			PyDict_GetItemString(kw, "test_cases")) != 0 ||
		    PyDict_DelItemString(kwcopy, "test_cases") != 0) {
			goto out;
		}
		kw = kwcopy;
	}
	if (!PyArg_ParseTupleAndKeywords(args, kw, "ssO|OOO", kwlist, &user,
					 &service, &tests, &off_list, &on_list,
					 &handle)) {
		goto out;
	}
	if (PyUnicode_Check(tests) || !PySequence_Check(tests)) {
		PyErr_SetString(PyExc_TypeError, "tests must be a sequence");
		goto out;
	}
	if (handle != NULL && handle != Py_None) {
		ph = PyCapsule_GetPointer(handle, NULL);
		if (ph == NULL) {
			PyErr_Clear();
			PyErr_SetString(PyExc_OSError,
					"Failed to get the pam handle pointer");
			goto out;
		}
	}
	fast = PySequence_Fast(tests, "tests must be a sequence");
	if (fast == NULL) {
		goto out;
	}
	n = PySequence_Fast_GET_SIZE(fast);
	cases = calloc((size_t)n + 1, sizeof(*cases));
	if (cases == NULL) {
		PyErr_NoMemory();
		goto out;
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		PyObject *item = PySequence_Fast_GET_ITEM(fast, i);
		TestCaseObject *tc = (TestCaseObject *)item;

		if (!PyObject_TypeCheck(item, &TestCaseType)) {
			PyErr_Format(PyExc_TypeError,
				     "tests must hold pypamtest.TestCase "
				     "objects, item %zd is %s",
				     i, Py_TYPE(item)->tp_name);
			goto out;
		}
		cases[i].pam_operation = (enum pamtest_ops)tc->pam_operation;
		cases[i].expected_rv = tc->expected_rv;
		cases[i].flags = tc->flags;
	}
	off = pypamtest_strings(off_list, "echo_off", &ok);
	if (!ok) {
		goto out;
	}
	on = pypamtest_strings(on_list, "echo_on", &ok);
	if (!ok) {
		goto out;
	}

	st.echo_off = (const char *const *)off;
	st.echo_on = (const char *const *)on;
	st.sink = pypamtest_keep;
	st.sink_ctx = &sink;
	Py_BEGIN_ALLOW_THREADS;
	err = _pamtest_conv(service, user, pamtest_conv, &st, cases, (size_t)n,
			    ph);
	Py_END_ALLOW_THREADS;

	for (Py_ssize_t i = 0; i < n; i++) {
		if (pypamtest_case_out(
			(TestCaseObject *)PySequence_Fast_GET_ITEM(fast, i),
			&cases[i]) != 0) {
			goto out;
		}
	}
	if (err == PAMTEST_ERR_CASE) {
		const struct pam_testcase *f =
		    _pamtest_failed_case(cases, (size_t)n);

		PyErr_Format(PamTestError,
			     "Error [%d]: Test case { pam_operation [%d] "
			     "expected_rv [%d] flags [%d] } returned [%d]",
			     err, f->pam_operation, f->expected_rv, f->flags,
			     f->op_rv);
		goto out;
	}
	if (err != PAMTEST_ERR_OK) {
		PyObject *e = Py_BuildValue("(is)", err, pamtest_strerror(err));

		if (e != NULL) {
			PyErr_SetObject(PamTestError, e);
			Py_DECREF(e);
		}
		goto out;
	}
	{
		PyObject *i = pypamtest_msgs_tuple(&sink.info);
		PyObject *e = pypamtest_msgs_tuple(&sink.errors);

		if (i != NULL && e != NULL) {
			result = PyObject_CallFunctionObjArgs(
			    (PyObject *)&TestResultType, i, e, NULL);
		}
		Py_XDECREF(i);
		Py_XDECREF(e);
	}
out:
	/* (envlists of cases not handed to Python: the run failed before) */
	for (Py_ssize_t i = 0; cases != NULL && i < n; i++) {
		if (cases[i].pam_operation == PAMTEST_GETENVLIST) {
			pamtest_free_env(cases[i].case_out.envlist);
		}
	}
	free(cases);
	pypamtest_strings_free(off);
	pypamtest_strings_free(on);
	pypamtest_msgs_free(&sink.info);
	pypamtest_msgs_free(&sink.errors);
	Py_XDECREF(fast);
	Py_XDECREF(kwcopy);
	return result;
}

static PyMethodDef pypamtest_methods[] = {
    {"run_pamtest", (PyCFunction)(void (*)(void))pypamtest_run,
     METH_VARARGS | METH_KEYWORDS, run_pamtest_doc},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(pypamtest_doc,
	     "libpamtest for Python: run a PAM service's operations and check "
	     "their results (see pam_wrapper(1)).");

static struct PyModuleDef pypamtest_module = {
    PyModuleDef_HEAD_INIT,
    "pypamtest",
    pypamtest_doc,
    -1,
    pypamtest_methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyDoc_STRVAR(PamTestError_doc,
	     "pypamtest specific exception\n\n"
	     "Raised when _pamtest() fails: for PAMTEST_ERR_CASE (a case gave "
	     "another result than expected) its message names the case and "
	     "its result; otherwise errno is the pamtest error and strerror "
	     "its text.");

PyMODINIT_FUNC PyInit_pypamtest(void);

PyMODINIT_FUNC PyInit_pypamtest(void)
{
	static const struct {
		const char *name;
		long value;
	} constants[] = {
	    {"PAMTEST_AUTHENTICATE", PAMTEST_AUTHENTICATE},
	    {"PAMTEST_SETCRED", PAMTEST_SETCRED},
	    {"PAMTEST_ACCOUNT", PAMTEST_ACCOUNT},
	    {"PAMTEST_OPEN_SESSION", PAMTEST_OPEN_SESSION},
	    {"PAMTEST_CLOSE_SESSION", PAMTEST_CLOSE_SESSION},
	    {"PAMTEST_CHAUTHTOK", PAMTEST_CHAUTHTOK},
	    {"PAMTEST_GETENVLIST", PAMTEST_GETENVLIST},
	    {"PAMTEST_KEEPHANDLE", PAMTEST_KEEPHANDLE},
	    {"PAMTEST_FLAG_DELETE_CRED", PAM_DELETE_CRED},
	    {"PAMTEST_FLAG_ESTABLISH_CRED", PAM_ESTABLISH_CRED},
	    {"PAMTEST_FLAG_REINITIALIZE_CRED", PAM_REINITIALIZE_CRED},
	    {"PAMTEST_FLAG_REFRESH_CRED", PAM_REFRESH_CRED},
	    {"PAMTEST_ERR_OK", PAMTEST_ERR_OK},
	    {"PAMTEST_ERR_START", PAMTEST_ERR_START},
	    {"PAMTEST_ERR_CASE", PAMTEST_ERR_CASE},
	    {"PAMTEST_ERR_OP", PAMTEST_ERR_OP},
	    {"PAMTEST_ERR_END", PAMTEST_ERR_END},
	    {"PAMTEST_ERR_KEEPHANDLE", PAMTEST_ERR_KEEPHANDLE},
	    {"PAMTEST_ERR_INTERNAL", PAMTEST_ERR_INTERNAL},
	};
	PyObject *m;

	if (PyType_Ready(&TestCaseType) < 0 ||
	    PyType_Ready(&TestResultType) < 0) {
		return NULL;
	}
	m = PyModule_Create(&pypamtest_module);
	if (m == NULL) {
		return NULL;
	}
	PamTestError = PyErr_NewExceptionWithDoc(
	    "pypamtest.PamTestError", PamTestError_doc, PyExc_OSError, NULL);
	if (PamTestError == NULL ||
	    PyModule_AddObjectRef(m, "PamTestError", PamTestError) < 0 ||
	    PyModule_AddObjectRef(m, "TestCase", (PyObject *)&TestCaseType) <
		0 ||
	    PyModule_AddObjectRef(m, "TestResult",
				  (PyObject *)&TestResultType) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	for (size_t i = 0; i < sizeof(constants) / sizeof(constants[0]); i++) {
		if (PyModule_AddIntConstant(m, constants[i].name,
					    constants[i].value) < 0) {
			Py_DECREF(m);
			return NULL;
		}
	}
	return m;
}
