#!/usr/bin/env python3
"""Run the shell commands that a document shows, and check what they print.

    doc_commands.py [--list] FILE...

FILE is a Markdown file (README.md, doc/*.md) or a man page (doc/*.1,
doc/*.8). A block of commands is:

  - Markdown: a fenced block (```, ```sh, ```console) with lines that
    begin with "$ ": each such line is a command (continued by lines
    after a trailing backslash, and by the body of a here-document), the
    lines up to the next command are what it prints (stdout and stderr
    together). A ```sh block without "$ " lines is a script, run whole;
    it must succeed. Blocks in other languages (cmake, c, text) are code
    to read, not commands.
  - a man page: the text between .nf/.fi or .EX/.EE that holds "$ "
    lines, read the same way once roff's escapes are undone.

In expected output, "..." matches any text within a line, and a line
that is only "..." matches any number of lines. Trailing blanks and
blank lines at the end are not compared, nor the warnings that some
programs print only to root (tshark's), which a reader never sees. A command whose expected output
is empty must exit 0; one that shows output is judged by its output
(an example may show a command failing).

Each file runs in one bash session (what a reader types one after the
other: variables and the current directory carry over) in a fresh
directory, which is also $TMPDIR and $HOME; "/tmp/" in a command and in
its expected output means that directory, so examples keep the paths a
reader would type. The build's libraries are on LD_LIBRARY_PATH (so
LD_PRELOAD=libsocket_wrapper.so works as typed) and its programs
(cwrap) first on PATH.

A block that cannot run here says why, just before it:
    <!-- doctest: skip REASON -->       (Markdown)
    .\\" doctest: skip REASON           (man page)
REASON must name the test that runs it instead, or say why it cannot
run (two terminals, a long benchmark, ...): --list prints them all.
Other annotations, same places:
    doctest: timeout SECONDS           for each command of the block
    doctest: needs PROGRAM...          skip the block (visibly) where a
                                       program is not installed
    doctest: if COMMAND                skip the block (visibly) where
                                       COMMAND fails (a host that lacks
                                       what the block needs)
Exit status: 0 all blocks ran and matched, 1 a mismatch or a failure.
"""

import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

DEFAULT_TIMEOUT = 60


class Block:
    def __init__(self, path, line, kind, lines, notes):
        self.path = path
        self.line = line  # 1-based line of the block's first content line
        self.kind = kind  # "session" or "script"
        self.lines = lines
        self.notes = notes  # {"skip": reason, "timeout": n, "needs": [...], "if": cmd}

    def where(self):
        return "%s:%d" % (self.path, self.line)


def parse_note(text, notes):
    m = re.match(r"\s*doctest:\s*(\w+)\s*(.*?)\s*$", text)
    if not m:
        return False
    key, arg = m.group(1), m.group(2)
    if key == "skip":
        if not arg:
            raise SystemExit("doctest: skip needs a reason")
        notes["skip"] = arg
    elif key == "timeout":
        notes["timeout"] = int(arg)
    elif key == "needs":
        notes["needs"] = arg.split()
    elif key == "if":
        if not arg:
            raise SystemExit("doctest: if needs a command")
        notes["if"] = arg
    else:
        raise SystemExit("doctest: unknown annotation %r" % key)
    return True


def markdown_blocks(path, text):
    blocks = []
    notes = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^(\s*)(```+)\s*([\w+-]*)\s*$", line)
        note = re.match(r"^\s*<!--(.*)-->\s*$", line)
        if note and "doctest:" in note.group(1):
            parse_note(note.group(1), notes)
            i += 1
            continue
        if not m:
            if line.strip():
                notes = {}
            i += 1
            continue
        indent, fence, lang = m.group(1), m.group(2), m.group(3)
        start = i + 1
        body = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        i += 1
        if lang in ("", "sh", "console", "shell", "bash"):
            if any(l.startswith("$ ") for l in body):
                blocks.append(Block(path, start + 1, "session", body, notes))
            elif lang in ("sh", "shell", "bash") and any(l.strip() for l in body):
                blocks.append(Block(path, start + 1, "script", body, notes))
        notes = {}
    return blocks


ROFF_ESCAPES = [
    (r"\e", "\\"), (r"\-", "-"), (r"\(aq", "'"), (r"\(dq", '"'),
    (r"\(ga", "`"), (r"\(ti", "~"), (r"\(ha", "^"), (r"\&", ""),
    (r"\ ", " "), (r"\fB", ""), (r"\fI", ""), (r"\fR", ""), (r"\fP", ""),
    (r"\(em", "--"), (r"\(en", "-"), (r"\|", ""),
]


def unroff(line):
    out = line
    for a, b in ROFF_ESCAPES:
        out = out.replace(a, b)
    return out


def man_blocks(path, text):
    blocks = []
    notes = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith('.\\"'):
            parse_note(line[3:], notes)
            i += 1
            continue
        if line.strip() in (".nf", ".EX"):
            end = ".fi" if line.strip() == ".nf" else ".EE"
            start = i + 1
            body = []
            i += 1
            while i < len(lines) and lines[i].strip() != end:
                l = lines[i]
                # requests inside the block (.RS, .RE, .PP, .br) are layout
                if not re.match(r"^\.[A-Za-z]", l):
                    body.append(unroff(l))
                i += 1
            i += 1
            if any(l.startswith("$ ") for l in body):
                blocks.append(Block(path, start + 1, "session", body, notes))
            notes = {}
            continue
        if line.startswith(".SH") or line.startswith(".SS") or (line.strip() and not line.startswith(".")):
            notes = {}
        i += 1
    return blocks


def commands(block):
    """The block's (command, expected lines, line number) triples."""
    out = []
    lines = block.lines
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            i += 1
            continue
        lineno = block.line + i
        cmd = [lines[i][2:]]
        i += 1
        # continuation lines and here-documents
        heredocs = re.findall(r"<<-?\s*['\"]?(\w+)['\"]?", cmd[0])
        while cmd[-1].endswith("\\") and i < len(lines):
            cmd.append(lines[i])
            heredocs += re.findall(r"<<-?\s*['\"]?(\w+)['\"]?", lines[i])
            i += 1
        for word in heredocs:
            while i < len(lines):
                cmd.append(lines[i])
                i += 1
                if lines[i - 1].strip() == word:
                    break
        expected = []
        while i < len(lines) and not lines[i].startswith("$ "):
            expected.append(lines[i])
            i += 1
        while expected and not expected[-1].strip():
            expected.pop()
        out.append(("\n".join(cmd), expected, lineno))
    return out


def line_matches(pattern, text):
    parts = pattern.rstrip().split("...")
    rx = ".*".join(re.escape(p) for p in parts)
    return re.fullmatch(rx, text.rstrip()) is not None


# What a program prints only because the suite runs as root, which a
# reader who follows the documents as an ordinary user never sees.
ROOT_NOISE = [
    'Running as user "root" and group "root". This could be dangerous.',
]


def output_matches(expected, actual):
    """Match expected lines (with "..." wildcards) against actual lines."""
    actual = [a for a in actual if a.strip() not in ROOT_NOISE]
    memo = {}

    def m(i, j):
        key = (i, j)
        if key in memo:
            return memo[key]
        if i == len(expected):
            r = all(not a.strip() for a in actual[j:])
        elif expected[i].strip() == "...":
            r = any(m(i + 1, k) for k in range(j, len(actual) + 1))
        elif j < len(actual) and line_matches(expected[i], actual[j]):
            r = m(i + 1, j + 1)
        else:
            r = False
        memo[key] = r
        return r

    return m(0, 0)


class Shell:
    """One bash session; each command's output ends with a marker line."""

    def __init__(self, cwd, env):
        self.proc = subprocess.Popen(
            ["bash", "--noprofile", "--norc"], cwd=cwd, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            start_new_session=True)
        self.buf = b""
        self.n = 0

    def run(self, cmd, timeout):
        self.n += 1
        marker = "__doctest_end_%d_%d__" % (os.getpid(), self.n)
        script = "%s\n__rc=$?; printf '\\n%s %%d\\n' \"$__rc\"\n" % (cmd, marker)
        self.proc.stdin.write(script.encode())
        self.proc.stdin.flush()
        deadline = time.monotonic() + timeout
        pat = re.compile(rb"\n" + marker.encode() + rb" (\d+)\n")
        while True:
            m = pat.search(self.buf)
            if m:
                out = self.buf[:m.start()]
                self.buf = self.buf[m.end():]
                return out.decode(errors="replace"), int(m.group(1))
            left = deadline - time.monotonic()
            if left <= 0:
                return self.buf.decode(errors="replace"), None
            r, _, _ = select.select([self.proc.stdout], [], [], left)
            if r:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                if not chunk:
                    return self.buf.decode(errors="replace"), None
                self.buf += chunk

    def close(self):
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def blocks_of(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if path.endswith(".md"):
        return markdown_blocks(path, text)
    return man_blocks(path, text)


def run_file(path, env_base):
    blocks = blocks_of(path)
    work = tempfile.mkdtemp(prefix="cwrap-doc-")
    os.chmod(work, 0o755)
    env = dict(env_base)
    env.update(TMPDIR=work, HOME=work)
    failures = 0
    ran = skipped = 0
    shell = Shell(work, env)
    try:
        for b in blocks:
            if "skip" in b.notes:
                print("SKIP %s: %s" % (b.where(), b.notes["skip"]))
                skipped += 1
                continue
            missing = [p for p in b.notes.get("needs", []) if not shutil.which(p, path=env["PATH"])]
            if missing:
                print("SKIP %s: %s not installed" % (b.where(), " ".join(missing)))
                skipped += 1
                continue
            if "if" in b.notes and subprocess.run(
                    ["bash", "-c", b.notes["if"]], env=env, cwd=work, stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode != 0:
                print("SKIP %s: this host fails `%s`" % (b.where(), b.notes["if"]))
                skipped += 1
                continue
            timeout = b.notes.get("timeout", DEFAULT_TIMEOUT)
            if b.kind == "script":
                body = "\n".join(b.lines).replace("/tmp/", work + "/")
                out, rc = shell.run("( set -e\n%s\n)" % body, timeout)
                ran += 1
                if rc != 0:
                    failures += 1
                    print("FAIL %s: the script %s\n%s" % (
                        b.where(), "timed out" if rc is None else "exited %d" % rc, out))
                    if rc is None:
                        return failures, ran, skipped
                continue
            for cmd, expected, lineno in commands(b):
                cmd_run = cmd.replace("/tmp/", work + "/")
                exp = [e.replace("/tmp/", work + "/") for e in expected]
                out, rc = shell.run(cmd_run, timeout)
                ran += 1
                actual = out.split("\n")
                if rc is None:
                    failures += 1
                    print("FAIL %s:%d: timed out after %d s: %s\n%s" % (path, lineno, timeout, cmd, out))
                    return failures, ran, skipped
                ok = output_matches(exp, actual) if exp else rc == 0
                if not ok:
                    failures += 1
                    print("FAIL %s:%d: $ %s\n  exit status %d\n  expected:\n%s\n  got:\n%s" % (
                        path, lineno, cmd, rc,
                        "\n".join("    | " + e for e in exp) or "    (no output, exit 0)",
                        "\n".join("    | " + a for a in actual)))
    finally:
        shell.close()
        shutil.rmtree(work, ignore_errors=True)
    return failures, ran, skipped


def main(argv):
    if len(argv) > 1 and argv[1] == "--list":
        for path in argv[2:]:
            for b in blocks_of(path):
                what = "skip: " + b.notes["skip"] if "skip" in b.notes else b.kind
                print("%s: %s" % (b.where(), what))
        return 0
    env = dict(os.environ)
    libpath = env.get("CWRAP_LIBRARY_PATH", "")
    if libpath:
        env["LD_LIBRARY_PATH"] = libpath + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    bindir = env.get("CWRAP_BIN_DIR", "")
    if bindir:
        env["PATH"] = bindir + ":" + env.get("PATH", "/usr/bin:/bin")
    env.pop("LD_PRELOAD", None)
    total_fail = 0
    for path in argv[1:]:
        fails, ran, skipped = run_file(path, env)
        print("%s: %d commands run, %d blocks skipped, %d failed" % (path, ran, skipped, fails))
        total_fail += fails
    return 1 if total_fail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
