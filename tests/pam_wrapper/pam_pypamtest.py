"""pypamtest under pam_wrapper, with pam_matrix, pam_chatty and the items
modules answering: every name of the module (run_pamtest, TestCase,
TestResult, PamTestError, the PAMTEST_* constants), the results and
messages of a run, what a failing run raises, GETENVLIST's pam_env and
KEEPHANDLE's pam_handle given back to a second run.

Run by ctest (pam_pypamtest) with PYTHONPATH naming the built module,
LD_PRELOAD pam_wrapper and CWRAP_PAM_MODULE_DIR the built modules."""

import os
import shutil
import tempfile
import unittest

import pypamtest as p

MODS = os.environ["CWRAP_PAM_MODULE_DIR"]


class PyPamTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="cwrap-pypamtest-")
        self.svc = os.path.join(self.dir, "services")
        self.passdb = os.path.join(self.dir, "passdb")
        os.mkdir(self.svc)
        with open(self.passdb, "w") as f:
            f.write("alice:secret:matrix\nbob:pw:elsewhere\n")
        self.service("matrix", "".join(
            "%s required %s/pam_matrix.so passdb=%s verbose\n" % (t, MODS, self.passdb)
            for t in ("auth", "account", "password", "session")))
        self.service("other", "auth required pam_deny.so\naccount required pam_deny.so\n")
        # (read by pam_wrapper at the next pam_start: os.environ calls putenv)
        os.environ["PAM_WRAPPER"] = "1"
        os.environ["PAM_WRAPPER_SERVICE_DIR"] = self.svc

    def tearDown(self):
        shutil.rmtree(self.dir)

    def service(self, name, text):
        with open(os.path.join(self.svc, name), "w") as f:
            f.write(text)

    def test_constants(self):
        self.assertEqual(
            (p.PAMTEST_AUTHENTICATE, p.PAMTEST_SETCRED, p.PAMTEST_ACCOUNT,
             p.PAMTEST_OPEN_SESSION, p.PAMTEST_CLOSE_SESSION, p.PAMTEST_CHAUTHTOK,
             p.PAMTEST_GETENVLIST, p.PAMTEST_KEEPHANDLE),
            (0, 1, 2, 3, 4, 5, 20, 21))
        self.assertEqual(
            (p.PAMTEST_FLAG_ESTABLISH_CRED, p.PAMTEST_FLAG_DELETE_CRED,
             p.PAMTEST_FLAG_REINITIALIZE_CRED, p.PAMTEST_FLAG_REFRESH_CRED),
            (2, 4, 8, 16))
        self.assertEqual(
            (p.PAMTEST_ERR_OK, p.PAMTEST_ERR_START, p.PAMTEST_ERR_CASE,
             p.PAMTEST_ERR_OP, p.PAMTEST_ERR_END, p.PAMTEST_ERR_KEEPHANDLE,
             p.PAMTEST_ERR_INTERNAL),
            (0, 1, 2, 3, 4, 5, 6))
        self.assertTrue(issubclass(p.PamTestError, OSError))

    def test_testcase(self):
        t = p.TestCase(p.PAMTEST_ACCOUNT)
        self.assertEqual((t.pam_operation, t.expected_rv, t.flags), (2, 0, 0))
        t = p.TestCase(pam_operation=p.PAMTEST_SETCRED, expected_rv=7,
                       flags=p.PAMTEST_FLAG_DELETE_CRED)
        self.assertEqual(repr(t), "{ pam_operation [1] expected_rv [7] flags [4] }")
        with self.assertRaises(AttributeError):
            t.expected_rv = 0
        with self.assertRaises(AttributeError):
            t.pam_env
        with self.assertRaisesRegex(ValueError, "Unsupported PAM operation 6"):
            p.TestCase(6)
        with self.assertRaises(TypeError):
            p.TestCase()

    def test_result(self):
        r = p.TestResult(["i1", "i2"], ["e1"])
        self.assertEqual((r.info, r.errors), (["i1", "i2"], ["e1"]))
        self.assertEqual(repr(r), "{ errors: { {e1} } infos: { {i1}{i2} } }")
        self.assertEqual((p.TestResult().info, p.TestResult().errors), ([], []))
        with self.assertRaises(TypeError):
            p.TestResult(1)

    def test_run(self):
        r = p.run_pamtest("alice", "matrix",
                          [p.TestCase(p.PAMTEST_AUTHENTICATE),
                           p.TestCase(p.PAMTEST_ACCOUNT),
                           p.TestCase(p.PAMTEST_SETCRED, flags=p.PAMTEST_FLAG_ESTABLISH_CRED)],
                          ["secret"])
        self.assertIsInstance(r, p.TestResult)
        self.assertEqual(r.info, ("Authentication succeeded",))
        self.assertEqual(r.errors, ())
        # keywords, and test_cases for tests
        r = p.run_pamtest(username="bob", service="matrix", echo_off=["pw"],
                          test_cases=[p.TestCase(p.PAMTEST_AUTHENTICATE),
                                      p.TestCase(p.PAMTEST_ACCOUNT, 6)])
        self.assertEqual(r.info, ("Authentication succeeded",))

    def test_failing_case(self):
        with self.assertRaises(p.PamTestError) as cm:
            p.run_pamtest("alice", "matrix",
                          [p.TestCase(p.PAMTEST_AUTHENTICATE),
                           p.TestCase(p.PAMTEST_ACCOUNT)], ["wrong"])
        self.assertEqual(cm.exception.args, (
            "Error [2]: Test case { pam_operation [0] expected_rv [0] flags [0] } returned [7]",))
        # no answer left: a NULL answer from a conversation that succeeds,
        # which pam_matrix refuses (PAM_CRED_ERR, as upstream's pypamtest
        # and module give)
        with self.assertRaisesRegex(p.PamTestError, r"returned \[17\]"):
            p.run_pamtest("alice", "matrix", [p.TestCase(p.PAMTEST_AUTHENTICATE)])
        # no new password: PAM_AUTHINFO_UNAVAIL, the file unchanged
        with self.assertRaisesRegex(p.PamTestError, r"returned \[9\]"):
            p.run_pamtest("alice", "matrix", [p.TestCase(p.PAMTEST_CHAUTHTOK)], ["secret"])
        with open(self.passdb) as f:
            self.assertEqual(f.read(), "alice:secret:matrix\nbob:pw:elsewhere\n")

    def test_start_error(self):
        os.remove(os.path.join(self.svc, "other"))
        with self.assertRaises(p.PamTestError) as cm:
            p.run_pamtest("alice", "nosuch", [p.TestCase(p.PAMTEST_ACCOUNT)])
        self.assertEqual(cm.exception.errno, p.PAMTEST_ERR_START)
        self.assertEqual(cm.exception.strerror, "pam_start failed()")

    def test_arguments(self):
        with self.assertRaisesRegex(TypeError, "tests must be a sequence"):
            p.run_pamtest("alice", "matrix", p.TestCase(p.PAMTEST_ACCOUNT))
        with self.assertRaises(TypeError):
            p.run_pamtest("alice", "matrix", [1])
        with self.assertRaises(TypeError):
            p.run_pamtest("alice", "matrix", [p.TestCase(p.PAMTEST_AUTHENTICATE)], [b"secret"])
        with self.assertRaises(TypeError):
            p.run_pamtest(None, "matrix", [p.TestCase(p.PAMTEST_ACCOUNT)])
        with self.assertRaisesRegex(OSError, "Failed to get the pam handle pointer"):
            p.run_pamtest("alice", "matrix", [], [], [], 3)

    def test_echo_on_and_chauthtok(self):
        self.service("echo", "auth required %s/pam_matrix.so passdb=%s echo\n"
                     "password required %s/pam_matrix.so passdb=%s\n"
                     % (MODS, self.passdb, MODS, self.passdb))
        p.run_pamtest("alice", "echo", [p.TestCase(p.PAMTEST_AUTHENTICATE)], [], ["secret"])
        p.run_pamtest("alice", "echo", [p.TestCase(p.PAMTEST_CHAUTHTOK)],
                      ["secret", "n3w", "n3w"])
        with open(self.passdb) as f:
            self.assertEqual(f.read(), "alice:n3w:matrix\nbob:pw:elsewhere\n")

    def test_env_and_handle(self):
        env = p.TestCase(p.PAMTEST_GETENVLIST)
        keep = p.TestCase(p.PAMTEST_KEEPHANDLE)
        p.run_pamtest("alice", "matrix", [p.TestCase(p.PAMTEST_OPEN_SESSION), env, keep])
        self.assertEqual(env.pam_env, {"HOMEDIR": "/home/alice"})
        env2 = p.TestCase(p.PAMTEST_GETENVLIST)
        p.run_pamtest("alice", "matrix", [p.TestCase(p.PAMTEST_CLOSE_SESSION), env2],
                      handle=keep.pam_handle)
        self.assertEqual(env2.pam_env, {})

    def test_items(self):
        self.service("items", "auth required %s/pam_set_items.so\n"
                     "auth required %s/pam_get_items.so\n" % (MODS, MODS))
        os.environ["PAM_RHOST"] = "client.example"
        try:
            env = p.TestCase(p.PAMTEST_GETENVLIST)
            p.run_pamtest("alice", "items", [p.TestCase(p.PAMTEST_AUTHENTICATE), env])
        finally:
            del os.environ["PAM_RHOST"]
        self.assertEqual(env.pam_env, {"PAM_SERVICE": "items", "PAM_USER": "alice",
                                       "PAM_RHOST": "client.example"})

    def test_chatty_many_messages(self):
        self.service("chatty", "auth required %s/pam_chatty.so num_lines=40 info error\n" % MODS)
        r = p.run_pamtest("alice", "chatty", [p.TestCase(p.PAMTEST_AUTHENTICATE)])
        self.assertEqual(r.info, ("Authentication succeeded",) * 40)
        self.assertEqual(r.errors, ("Authentication generated an error",) * 40)


if __name__ == "__main__":
    unittest.main(verbosity=2)
