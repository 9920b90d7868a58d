#!/usr/bin/env python3
"""The launcher and signals, with a private socket directory (cwrap waits
for the command as its child): a command killed by a signal kills cwrap
with the same signal (not an exit status), signals sent to cwrap reach
the command, Ctrl-C typed on a terminal reaches it once (not once from the
terminal and once more from cwrap), and the directory is removed in every
case. The command is the project's launcher_probe."""
import os
import pty
import select
import signal
import subprocess
import sys
import tempfile
import time

C = os.environ["CWRAP_LAUNCHER"]
P = os.path.join(os.environ["CWRAP_TEST_BIN"], "launcher_probe")
# How long a wait for what should come gives it (tests/common/wait.sh):
# a loaded machine may be slow, and the wait ends when it comes.
WAIT = int(os.environ.get("CWRAP_TEST_WAIT", "60"))
failed = False


def check(desc, cond, detail=""):
    global failed
    if cond:
        print("ok:", desc)
    else:
        print("FAIL:", desc, detail)
        failed = True


def wait_file(path, seconds=WAIT):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if os.path.exists(path) and os.path.getsize(path) > 0:
            with open(path) as f:
                return f.read().strip()
        time.sleep(0.02)
    raise SystemExit("FAIL: %s never written" % path)


tmp = tempfile.mkdtemp()
env = dict(os.environ, TMPDIR=tmp)
ready = os.path.join(tmp, "ready")

# The command's death by a signal is cwrap's.
for sig in (signal.SIGTERM, signal.SIGKILL, signal.SIGABRT):
    r = subprocess.run([C, P, "raise", str(int(sig))], env=env,
                       stderr=subprocess.DEVNULL)
    check("command killed by %s: cwrap killed by it too" % sig.name,
          r.returncode == -sig, "(returncode %d)" % r.returncode)
r = subprocess.run([C, P, "exit", "143"], env=env)
check("exit status 143 stays an exit status", r.returncode == 143,
      "(returncode %d)" % r.returncode)

# Signals sent to cwrap reach the command; it ends as the command ends.
p = subprocess.Popen([C, P, "serve", ready], env=env,
                     stdout=subprocess.PIPE, text=True)
d = wait_file(ready)
check("the command runs in a private directory", os.path.isdir(d), d)
for n, sig in enumerate((signal.SIGTERM, signal.SIGINT, signal.SIGHUP), 1):
    p.send_signal(sig)
    line = p.stdout.readline().strip()
    check("%s to cwrap reaches the command" % sig.name,
          line == "got %d (signal %d)" % (n, sig), repr(line))
p.send_signal(signal.SIGQUIT)
rc = p.wait(timeout=WAIT)
check("cwrap exits as the command does (3)", rc == 3, "(returncode %d)" % rc)
check("the directory is removed", not os.path.exists(d), d)
p.stdout.close()
os.unlink(ready)

# SIGTERM to cwrap, command not catching it: both die by SIGTERM.
p = subprocess.Popen([C, P, "wait", ready], env=env)
d = wait_file(ready)
time.sleep(0.1)
p.terminate()
rc = p.wait(timeout=WAIT)
check("SIGTERM to cwrap ends the command, cwrap dies by it",
      rc == -signal.SIGTERM, "(returncode %d)" % rc)
check("the directory is removed after SIGTERM", not os.path.exists(d), d)
os.unlink(ready)

# Ctrl-C on a terminal: the terminal signals the whole foreground process
# group, cwrap and the command; the command must see it once.
pid, master = pty.fork()
if pid == 0:
    os.environ.update(env)
    os.execv(C, [C, P, "serve", ready])
d = wait_file(ready)
os.write(master, b"\x03")
out = b""
end = time.monotonic() + WAIT
while b"got 1" not in out and time.monotonic() < end:
    if select.select([master], [], [], 0.1)[0]:
        try:
            out += os.read(master, 1024)
        except OSError:
            break
time.sleep(0.5)  # a second, forwarded copy would come now
os.kill(pid, signal.SIGQUIT)
end = time.monotonic() + WAIT
while time.monotonic() < end:
    r = select.select([master], [], [], 0.1)[0]
    if r:
        try:
            data = os.read(master, 1024)
        except OSError:
            break
        if not data:
            break
        out += data
_, status = os.waitpid(pid, 0)
text = out.decode(errors="replace")
check("Ctrl-C reaches the command once",
      text.count("got ") == 1 and "(signal %d)" % signal.SIGINT in text,
      repr(text))
check("then SIGQUIT to cwrap: exit 3",
      os.WIFEXITED(status) and os.WEXITSTATUS(status) == 3, status)
check("the directory is removed after Ctrl-C", not os.path.exists(d), d)
os.close(master)

left = os.listdir(tmp)
check("nothing left in TMPDIR", left == ["ready"] or left == [], left)
subprocess.run(["rm", "-rf", tmp])
sys.exit(1 if failed else 0)
